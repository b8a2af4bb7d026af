"""torch.amp.GradScaler("tpu") against GradScaler("cpu"), and its two device
kernels (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_)
against CPU's. Steps whose gradients hold inf or NaN are skipped on both,
the scale backs off, and grows again after growth_interval good steps."""

import math

import pytest
import torch
import torch_tpu

INF, NAN = float("inf"), float("nan")


def _scaler_steps(device, optim_kwargs, bad_steps, steps=7, clip=False):
    """A small linear model trained with GradScaler; the loss of the steps in
    bad_steps is multiplied by inf or NaN. Returns (params, scales) after each step."""
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.05, **optim_kwargs)
    scaler = torch.amp.GradScaler(device, init_scale=2.0 ** 8, growth_interval=2)
    x = torch.linspace(-1, 1, 20).reshape(5, 4).to(device)
    history = []
    for step in range(steps):
        loss = model(x).pow(2).sum()
        if step in bad_steps:
            loss = loss * bad_steps[step]
        scaler.scale(loss).backward()
        if clip:  # the usual recipe: unscale first, then clip the true gradients
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        history.append(([p.detach().cpu().clone() for p in model.parameters()], scaler.get_scale()))
    return history


@pytest.mark.parametrize("clip", [False, True], ids=["", "unscale_and_clip"])
@pytest.mark.parametrize("impl", [{"foreach": False}, {"foreach": True}, {"fused": True}],
                         ids=["forloop", "foreach", "fused"])
def test_grad_scaler_matches_cpu_with_skipped_steps(impl, clip):
    bad = {2: INF, 3: NAN, 5: INF}
    cpu = _scaler_steps("cpu", impl, bad, clip=clip)
    before = torch_tpu.stats()
    tpu = _scaler_steps("tpu", impl, bad, clip=clip)
    assert torch_tpu.telemetry.fallback_calls() == torch_tpu.telemetry.fallback_calls(before)
    for step, ((tp, ts), (cp, cs)) in enumerate(zip(tpu, cpu)):
        assert ts == cs, f"step {step}: scale {ts} on tpu, {cs} on CPU"
        for a, b in zip(tp, cp):
            torch.testing.assert_close(a, b, msg=lambda m: f"step {step}: {m}")
    # a skipped step leaves the parameters as they were, and halves the scale
    for step in bad:
        for a, b in zip(tpu[step][0], tpu[step - 1][0]):
            assert torch.equal(a, b), f"step {step} was not skipped"
        assert tpu[step][1] == tpu[step - 1][1] / 2
    # two good steps in a row double it (steps 0-1: 256 -> 512)
    assert tpu[1][1] == 2 * tpu[0][1]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("bad", [None, INF, -INF, NAN])
def test_unscale_kernel_matches_cpu(dtype, bad):
    g = torch.Generator().manual_seed(0)
    grads = [torch.randn(shape, generator=g).to(dtype) * 64 for shape in [(7, 3), (1000,), (0,), ()]]
    grads.append(torch.randn(6, 4, generator=g).to(dtype).t())  # not contiguous
    if bad is not None:
        grads[1][517] = bad
    results = {}
    for device in ("cpu", "tpu"):
        ts = [t.clone().to(device) for t in grads]
        found = torch.zeros(1, device=device)
        torch._amp_foreach_non_finite_check_and_unscale_(ts, found, torch.full((1,), 1 / 64, device=device))
        results[device] = ([t.cpu() for t in ts], found.cpu())
    for a, b in zip(results["tpu"][0], results["cpu"][0]):
        torch.testing.assert_close(a, b, equal_nan=True, rtol=0, atol=0)
    assert results["tpu"][1].item() == results["cpu"][1].item() == (0.0 if bad is None else 1.0)


def test_unscale_kernel_keeps_found_inf_set():
    """found_inf is only ever set, never cleared (one flag for several lists)."""
    found = torch.ones(1, device="tpu")
    t = torch.ones(3, device="tpu")
    torch._amp_foreach_non_finite_check_and_unscale_([t], found, torch.full((1,), 0.5, device="tpu"))
    assert found.item() == 1.0
    assert t.cpu().tolist() == [0.5, 0.5, 0.5]


def test_update_scale_kernel_matches_cpu():
    flags = [0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0]
    states = {}
    for device in ("cpu", "tpu"):
        scale = torch.full((1,), 2.0 ** 10, device=device)
        tracker = torch.zeros(1, dtype=torch.int32, device=device)
        seen = []
        for f in flags:
            found = torch.full((1,), float(f), device=device)
            out = torch._amp_update_scale_(scale, tracker, found, 2.0, 0.25, 3)
            assert out is scale
            seen.append((scale.item(), tracker.item()))
        states[device] = seen
    assert states["tpu"] == states["cpu"]


def test_update_scale_kernel_does_not_grow_to_inf():
    for device in ("cpu", "tpu"):
        scale = torch.full((1,), 3.0e38, device=device)
        tracker = torch.zeros(1, dtype=torch.int32, device=device)
        torch._amp_update_scale_(scale, tracker, torch.zeros(1, device=device), 2.0, 0.5, 1)
        assert scale.item() == pytest.approx(3.0e38) and math.isfinite(scale.item())
        assert tracker.item() == 0


def _errors_on_cpu_and_tpu(call):
    """The exception call(device) raises on each device; both of one type."""
    errors = {}
    for device in ("cpu", "tpu"):
        with pytest.raises(Exception) as e:
            call(device)
        errors[device] = e.value
    assert type(errors["tpu"]) is type(errors["cpu"])
    return errors


@pytest.mark.parametrize("case", ["found_inf_dtype", "inv_scale_numel", "grad_dtype"])
def test_unscale_kernel_errors_match_cpu(case):
    def call(device):
        grads = [torch.ones(3, device=device)]
        found = torch.zeros(1, device=device)
        inv = torch.ones(1, device=device)
        if case == "found_inf_dtype":
            found = found.double()
        elif case == "inv_scale_numel":
            inv = torch.ones(2, device=device)
        else:
            grads = [torch.ones(3, dtype=torch.int32, device=device)]
        torch._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
    errors = _errors_on_cpu_and_tpu(call)
    if case != "grad_dtype":  # the kernel's name differs
        assert str(errors["tpu"]) == str(errors["cpu"])


@pytest.mark.parametrize("case", ["tracker_dtype", "scale_dtype", "found_numel"])
def test_update_scale_kernel_errors_match_cpu(case):
    def call(device):
        scale = torch.ones(1, device=device)
        tracker = torch.zeros(1, dtype=torch.int32, device=device)
        found = torch.zeros(1, device=device)
        if case == "tracker_dtype":
            tracker = tracker.float()
        elif case == "scale_dtype":
            scale = scale.double()
        else:
            found = torch.zeros(2, device=device)
        torch._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 2)
    errors = _errors_on_cpu_and_tpu(call)
    assert str(errors["tpu"]) == str(errors["cpu"])


def _autocast_steps(device, steps=6):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).to(device)
    # (not fused SGD with momentum: a skipped first step leaves its momentum buffers
    # uninitialized, torch.empty_like, on CPU too)
    opt = torch.optim.AdamW(model.parameters(), lr=0.01, fused=True)
    # 2**20 overflows the float16 gradients: the first steps are skipped and back off
    scaler = torch.amp.GradScaler(device, init_scale=2.0 ** 20, growth_interval=2)
    x = torch.linspace(-2, 2, 48).reshape(6, 8).to(device)
    scales = []
    for _ in range(steps):
        with torch.autocast(device, dtype=torch.float16):
            out = model(x)
            assert out.dtype == torch.float16
            loss = out.float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        scales.append(scaler.get_scale())
    return [p.detach().cpu() for p in model.parameters()], scales


def test_autocast_float16_training_with_grad_scaler_matches_cpu():
    """The mixed-precision recipe: float16 autocast forward, scaled backward,
    fused AdamW taking the scale and found_inf from the scaler."""
    cpu_params, cpu_scales = _autocast_steps("cpu")
    before = torch_tpu.stats()
    tpu_params, tpu_scales = _autocast_steps("tpu")
    assert torch_tpu.telemetry.fallback_calls() == torch_tpu.telemetry.fallback_calls(before)
    assert tpu_scales == cpu_scales
    pairs = list(zip(tpu_scales, tpu_scales[1:]))
    assert any(b < a for a, b in pairs) and any(b == a for a, b in pairs)  # steps skipped and taken
    for a, b in zip(tpu_params, cpu_params):
        # float16 matmuls round their products/sums differently on each device
        torch.testing.assert_close(a, b, rtol=2e-3, atol=2e-3)
