"""The fused optimizer kernels called directly (_fused_adam_, _fused_adamw_,
_fused_sgd_, _fused_adagrad_, both lr overloads), against CPU's: the grad
scale (gradients written back unscaled), found_inf skipping the step, every
floating dtype, parameters that are not contiguous, and CPU's errors.

float32/float64 run CPU's fused kernel in the same dtype for 3 steps.
float16/bfloat16 take one step against CPU's kernel run in float32 on the
same values, rounded once at the end (within assert_close's float16/bfloat16
tolerance: CPU's vectorized lerp fuses a multiply-add, one float ulp that can
round the other way): the device computes in float and rounds once, as CPU's
reduced-precision path is meant to (CPU's own fused SGD
in float16/bfloat16 skips the parameter update in its vectorized loop in
torch 2.13, so it cannot be the reference there)."""

import pytest
import torch
import torch_tpu

KERNELS = {
    "adam": (torch._fused_adam_, 3, dict(beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-3, amsgrad=True,
                                         maximize=False)),
    "adamw": (torch._fused_adamw_, 3, dict(beta1=0.8, beta2=0.9, weight_decay=0.1, eps=1e-3, amsgrad=False,
                                           maximize=True)),
    "sgd": (torch._fused_sgd_, 1, dict(weight_decay=0.1, momentum=0.9, dampening=0.2, nesterov=True,
                                       maximize=False)),
    "adagrad": (torch._fused_adagrad_, 1, dict(lr_decay=0.05, weight_decay=0.1, eps=1e-3, maximize=True)),
}
SHAPES = [(33, 5), (1000,), ()]  # 1000: more than one block of the kernel


def _state(name, dtype, g):
    """(params, grads, state lists, steps) for one kernel, float tensors on CPU."""
    _, n_states, kw = KERNELS[name]
    params = [torch.randn(s, generator=g).to(dtype) for s in SHAPES]
    grads = [torch.randn(s, generator=g).to(dtype) * 8 for s in SHAPES]
    states = [[torch.rand(s, generator=g).to(dtype) for s in SHAPES] for _ in range(n_states)]
    if name == "adam" or name == "adamw":
        if not kw["amsgrad"]:
            states[2] = []
    steps = [torch.tensor(3.0) for _ in SHAPES]
    return params, grads, states, steps


def _call(name, params, grads, states, steps, lr, grad_scale, found_inf, first_step=False):
    fn, _, kw = KERNELS[name]
    if name in ("adam", "adamw"):
        fn(params, grads, states[0], states[1], states[2], steps, lr=lr, grad_scale=grad_scale,
           found_inf=found_inf, **kw)
    elif name == "sgd":
        fn(params, grads, states[0], lr=lr, is_first_step=first_step, grad_scale=grad_scale,
           found_inf=found_inf, **kw)
    else:
        fn(params, grads, states[0], steps, lr=lr, grad_scale=grad_scale, found_inf=found_inf, **kw)


def _run(name, dtype, device, ref_dtype, n_steps, scaler, lr_kind, transpose=False):
    g = torch.Generator().manual_seed(0)
    params, grads, states, steps = _state(name, dtype, g)
    move = lambda t: t.to(ref_dtype).to(device)  # noqa: E731
    params = [move(p) for p in params]
    if transpose:
        params[0] = params[0].t().contiguous().t()  # dense, not contiguous; the rest contiguous
    grads = [move(t) for t in grads]
    states = [[move(t) for t in lst] for lst in states]
    steps = [t.to(device) for t in steps]
    grad_scale = torch.tensor([4.0], device=device) if scaler else None
    found_inf = torch.tensor([1.0 if scaler == "inf" else 0.0], device=device) if scaler else None
    lr = {"float": 0.05, "cpu_tensor": torch.tensor(0.05), "device_tensor": torch.tensor(0.05, device=device)}[lr_kind]
    for k in range(n_steps):
        if name in ("adam", "adamw", "adagrad"):
            torch._foreach_add_(steps, 1)
        _call(name, params, grads, states, steps, lr, grad_scale, found_inf, first_step=(k == 0))
    out = [params, grads] + states
    return [[t.cpu().to(dtype) for t in lst] for lst in out]


@pytest.mark.parametrize("lr_kind", ["float", "cpu_tensor", "device_tensor"])
@pytest.mark.parametrize("scaler", [None, "finite", "inf"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64],
                         ids=lambda d: str(d).removeprefix("torch."))
@pytest.mark.parametrize("name", list(KERNELS))
def test_fused_kernel_matches_cpu(name, dtype, scaler, lr_kind):
    reduced = dtype in (torch.float16, torch.bfloat16)
    n_steps = 1 if reduced else 3
    cpu_lr_kind = "cpu_tensor" if lr_kind == "device_tensor" else lr_kind
    expected = _run(name, dtype, "cpu", torch.float32 if reduced else dtype, n_steps, scaler, cpu_lr_kind)
    before = torch_tpu.stats()
    got = _run(name, dtype, "tpu", dtype, n_steps, scaler, lr_kind)
    assert torch_tpu.telemetry.fallback_calls() == torch_tpu.telemetry.fallback_calls(before)
    for what, (gl, el) in zip(["params", "grads", "state0", "state1", "state2"], zip(got, expected)):
        for k, (a, b) in enumerate(zip(gl, el)):
            torch.testing.assert_close(a, b, msg=lambda m: f"{what}[{k}]: {m}")
    if scaler == "inf":  # a skipped step leaves everything as it was
        g = torch.Generator().manual_seed(0)
        params, grads, _, _ = _state(name, dtype, g)
        for a, b in zip(got[0] + got[1], params + grads):
            assert torch.equal(a, b)


@pytest.mark.parametrize("name", list(KERNELS))
def test_fused_kernel_non_contiguous_param_matches_cpu(name):
    expected = _run(name, torch.float32, "cpu", torch.float32, 3, "finite", "float", transpose=False)
    got = _run(name, torch.float32, "tpu", torch.float32, 3, "finite", "float", transpose=True)
    for gl, el in zip(got, expected):
        for a, b in zip(gl, el):
            torch.testing.assert_close(a, b)


@pytest.mark.parametrize("case", ["grads_count", "int_params", "max_exp_avg_sqs_without_amsgrad"])
def test_fused_adam_errors_match_cpu(case):
    def call(device):
        t = lambda dtype=torch.float32: torch.ones(4, dtype=dtype, device=device)  # noqa: E731
        dtype = torch.int32 if case == "int_params" else torch.float32
        params, grads = [t(dtype)], ([] if case == "grads_count" else [t(dtype)])
        maxes = [t()] if case == "max_exp_avg_sqs_without_amsgrad" else []
        torch._fused_adam_(params, grads, [t(dtype)], [t(dtype)], maxes, [torch.ones((), device=device)], lr=0.1,
                           beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    errors = {}
    for device in ("cpu", "tpu"):
        with pytest.raises(Exception) as e:
            call(device)
        errors[device] = e.value
    assert type(errors["tpu"]) is type(errors["cpu"]), (errors["tpu"], errors["cpu"])


def test_fused_kernel_rejects_params_on_two_devices():
    if torch.tpu.device_count() < 2:
        pytest.skip("needs two tpu devices")
    params = [torch.ones(3, device="tpu:0"), torch.ones(3, device="tpu:1")]
    grads = [p.clone() for p in params]
    bufs = [p.clone() for p in params]
    with pytest.raises(RuntimeError, match="expected all tensors on tpu:0"):
        torch._fused_sgd_(params, grads, bufs, weight_decay=0.0, momentum=0.9, lr=torch.tensor(0.1),
                          dampening=0.0, nesterov=False, maximize=False, is_first_step=True)


@pytest.mark.parametrize("opt_cls", [torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD, torch.optim.Adagrad],
                         ids=lambda c: c.__name__)
def test_fused_step_captured_in_a_graph_replays_like_cpu(opt_cls):
    """The CUDA-graphs pattern with fused=True: the step count lives on the
    device and the kernel reads it there, so each replay takes a new step."""
    torch.manual_seed(0)
    cpu = torch.nn.Linear(6, 3)
    tpu = torch.nn.Linear(6, 3).to("tpu")
    tpu.load_state_dict(cpu.state_dict())
    kw = {"lr": 0.05, "momentum": 0.9} if opt_cls is torch.optim.SGD else {"lr": 0.05}
    opt_c = opt_cls(cpu.parameters(), **kw, fused=True)
    opt_t = opt_cls(tpu.parameters(), **kw, fused=True)
    g = torch.Generator().manual_seed(1)
    batches = [torch.randn(4, 6, generator=g) for _ in range(6)]
    static_x = torch.zeros(4, 6, device="tpu")

    def cpu_step(x):
        opt_c.zero_grad()
        cpu(x).pow(2).sum().backward()
        opt_c.step()

    side = torch.tpu.Stream()
    side.wait_stream(torch.tpu.current_stream())
    with torch.tpu.stream(side):  # warm-up: state created outside the capture
        for x in batches[:2]:
            static_x.copy_(x)
            opt_t.zero_grad(set_to_none=True)
            tpu(static_x).pow(2).sum().backward()
            opt_t.step()
    torch.tpu.current_stream().wait_stream(side)
    for x in batches[:2]:
        cpu_step(x)
    graph = torch.tpu.TPUGraph()
    opt_t.zero_grad(set_to_none=True)
    with torch.tpu.graph(graph):
        tpu(static_x).pow(2).sum().backward()
        opt_t.step()
    for x in batches[2:]:
        static_x.copy_(x)
        graph.replay()
        cpu_step(x)
    for a, b in zip(tpu.parameters(), cpu.parameters()):
        torch.testing.assert_close(a.detach().cpu(), b.detach())
    del graph
