"""torch.compile on tpu with the default backend (Inductor): the
registrations (Dynamo's device interface, Inductor's scheduling, wrapper and
device op overrides for "tpu" replace torch's Pallas/JAX defaults), compiled
inference and training of a small MLP and CNN against CPU eager, static and
dynamic shapes, no graph breaks and no host fallbacks, generated kernels as
asynchronous device work on the current stream, the tpu:: custom operators
as single nodes, and graph breaks falling back to eager tpu. Strict mode is on
(tests/conftest.py): a compiled kernel touching memory its launch did not
name would fault."""

import copy
import difflib
import re
import subprocess
import sys
import textwrap

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters
from torch._inductor.utils import run_and_get_code

import torch_tpu
from conftest import stream_gate


pytestmark = pytest.mark.usefixtures("fresh_dynamo")  # tests/conftest.py


def _graph_breaks():
    # torch 2.13 counts some breaks (data-dependent jumps) only under
    # "unimplemented", with a resume function compiled after them.
    return sum(sum(counters[k].values()) for k in ("graph_break", "unimplemented", "resumes"))


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x))).log_softmax(-1)


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        h = torch.nn.functional.max_pool2d(h, 2)
        return self.fc(h.mean((2, 3)))


def _models(cls):
    torch.manual_seed(0)
    cpu = cls()
    return cpu, copy.deepcopy(cpu).to("tpu")


def _input(cls, batch=4, seed=1):
    g = torch.Generator().manual_seed(seed)
    shape = (batch, 16) if cls is MLP else (batch, 3, 8, 8)
    return torch.randn(shape, generator=g)


# ------------------------------------------------------------ registration --

def test_registrations_are_torch_tpus():
    import torch._inductor.compile_fx  # noqa: F401  (Inductor's entry: ours register here)
    from torch._dynamo.device_interface import get_interface_for_device
    from torch._inductor.codegen import common

    from torch_tpu._compile import check_registrations, dynamo, inductor

    for name in ("tpu", "tpu:0", torch.device("tpu")):
        assert get_interface_for_device(name) is dynamo.TpuInterface
    common.init_backend_registration()
    assert common.get_scheduling_for_device("tpu") is inductor.TpuScheduling
    assert common.get_wrapper_codegen_for_device("tpu") is inductor.TpuWrapperCodegen
    assert isinstance(common.get_device_op_overrides("tpu"), inductor.TpuDeviceOpOverrides)
    check_registrations()  # nothing to report


def test_reregistered_default_is_named():
    import torch._inductor.compile_fx  # noqa: F401
    from torch._inductor.codegen import common
    from torch._inductor.codegen.cpu_device_op_overrides import CpuDeviceOpOverrides

    from torch_tpu._compile import check_registrations, register_all

    # torch._dynamo.reset() (the fixture) drops compile-start callbacks; a
    # tpu compile arms the check again, as importing torch_tpu did.
    torch.compile(lambda x: x * 2)(torch.ones(2, device="tpu"))
    common.register_device_op_overrides("tpu", CpuDeviceOpOverrides())
    try:
        with pytest.raises(RuntimeError, match="device op overrides for 'tpu' are CpuDeviceOpOverrides"):
            check_registrations()
        # ... and at the start of a compile, before Inductor would use it.
        with pytest.raises(Exception, match="re-registered"):
            torch.compile(lambda x: x + 1)(torch.ones(3, device="tpu"))
    finally:
        register_all()
    check_registrations()


def test_import_does_not_load_dynamo_or_inductor():
    # The backend autoloads with `import torch`: registering must not import
    # Dynamo or Inductor (seconds) for programs that never compile.
    code = ("import sys, torch, torch_tpu; "
            "print('torch._dynamo.device_interface' in sys.modules, "
            "'torch._inductor.compile_fx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_registration_after_late_import_in_fresh_process():
    code = textwrap.dedent("""
        import torch, torch_tpu
        x = torch.arange(6.0, device="tpu")
        y = torch.compile(lambda t: (t * 2).sin() + 1)(x)
        from torch._dynamo.device_interface import get_interface_for_device
        print(get_interface_for_device("tpu:0").__name__,
              torch.allclose(y.cpu(), (torch.arange(6.0) * 2).sin() + 1))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["TpuInterface", "True"]


# ------------------------------------------------------------- correctness --

@pytest.mark.parametrize("cls", [MLP, CNN])
@pytest.mark.parametrize("dynamic", [False, True])
def test_inference_matches_cpu(cls, dynamic):
    cpu, tpu = _models(cls)
    cpu.eval(), tpu.eval()
    compiled = torch.compile(tpu, dynamic=dynamic)
    with torch_tpu.no_fallback(), torch.no_grad():
        for batch in (4, 6):
            x = _input(cls, batch)
            torch.testing.assert_close(compiled(x.to("tpu")).cpu(), cpu(x), rtol=1e-4, atol=1e-5)
    assert _graph_breaks() == 0, dict(counters["graph_break"])


@pytest.mark.parametrize("cls", [MLP, CNN])
@pytest.mark.parametrize("dynamic", [False, True])
def test_training_step_matches_cpu(cls, dynamic):
    cpu, tpu = _models(cls)
    opt_cpu = torch.optim.SGD(cpu.parameters(), lr=0.1)
    opt_tpu = torch.optim.SGD(tpu.parameters(), lr=0.1)
    compiled = torch.compile(tpu, dynamic=dynamic)
    with torch_tpu.no_fallback():
        for step, batch in enumerate((4, 6)):
            x, target = _input(cls, batch, seed=step), torch.arange(batch) % 5
            loss_cpu = torch.nn.functional.cross_entropy(cpu(x), target)
            loss_cpu.backward()
            loss_tpu = torch.nn.functional.cross_entropy(compiled(x.to("tpu")), target.to("tpu"))
            loss_tpu.backward()
            torch.testing.assert_close(loss_tpu.cpu(), loss_cpu, rtol=1e-4, atol=1e-5)
            for p_cpu, p_tpu in zip(cpu.parameters(), tpu.parameters()):
                torch.testing.assert_close(p_tpu.grad.cpu(), p_cpu.grad, rtol=1e-4, atol=1e-5)
            opt_cpu.step(), opt_tpu.step()
            opt_cpu.zero_grad(), opt_tpu.zero_grad()
    for p_cpu, p_tpu in zip(cpu.parameters(), tpu.parameters()):
        torch.testing.assert_close(p_tpu.detach().cpu(), p_cpu.detach(), rtol=1e-4, atol=1e-5)
    assert _graph_breaks() == 0, dict(counters["graph_break"])


@pytest.mark.skipif(torch.tpu.device_count() < 2, reason="needs two tpu devices")
def test_second_device_while_current_is_first():
    cpu, tpu = _models(MLP)
    tpu = tpu.to("tpu:1")
    compiled = torch.compile(tpu)
    x = _input(MLP)
    assert torch.tpu.current_device() == 0
    allocated0 = torch.tpu.memory_allocated(0)
    with torch_tpu.no_fallback():
        out = compiled(x.to("tpu:1"))
        out.sum().backward()
    assert out.device == torch.device("tpu:1")
    assert torch.tpu.memory_allocated(0) == allocated0  # nothing landed on tpu:0
    cpu(x).sum().backward()
    torch.testing.assert_close(out.detach().cpu(), cpu(x).detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(tpu.fc1.weight.grad.cpu(), cpu.fc1.weight.grad, rtol=1e-4, atol=1e-5)


def test_generated_kernels_are_launched_on_the_stream():
    fn = torch.compile(lambda x, y: (x * y).sin().sum(-1) + x.mean())
    x = torch.randn(8, 32, device="tpu")
    y = torch.randn(8, 32, device="tpu")
    out, (code,) = run_and_get_code(fn, x, y)
    kernels = re.findall(r"(\w+) = tpu_cpp_kernel\(", code)
    assert kernels, code
    for name in kernels:  # each kernel call is a launch, never a host call
        assert re.search(rf"^\s*{name}\(", code, re.M), code
    # Buffers through the allocator's fast path, on the graph's device.
    assert re.search(r"= empty_strided_tpu\(\(.*\), torch\.float32, 0\)$", code, re.M), code
    assert "empty_strided(" not in code, code
    before = torch_tpu.stats()["launches"]
    fn(x, y)
    assert torch_tpu.stats()["launches"] - before >= len(kernels)
    torch.testing.assert_close(out.cpu(), (x.cpu() * y.cpu()).sin().sum(-1) + x.cpu().mean(),
                               rtol=1e-5, atol=1e-5)


def test_compiled_call_returns_before_the_device_runs():
    fn = torch.compile(lambda x: (x.exp() * 2 + 1).relu())
    x = torch.randn(1024, device="tpu")
    fn(x)  # compile first
    torch.tpu.synchronize()
    # The stream is held at a gate: a host-side kernel would need the device
    # to have run (or would read device memory in strict mode); a launch
    # returns with its kernel queued.
    with stream_gate():
        out = fn(x)
        assert not torch.tpu.current_stream().query()
    torch.testing.assert_close(out.cpu(), (x.cpu().exp() * 2 + 1).relu())


def test_compiled_kernel_runs_on_the_current_stream():
    fn = torch.compile(lambda x: x * 3 + 1)
    x = torch.randn(64, device="tpu")
    fn(x)
    side = torch.tpu.Stream()
    torch.tpu.synchronize()  # nothing pending anywhere before the gate
    with stream_gate(side):
        with torch.tpu.stream(side):
            out = fn(x)
        # The default stream has no pending work; the side stream has it.
        assert torch.tpu.current_stream().query()
        assert not side.query()
    torch.tpu.current_stream().wait_stream(side)
    torch.testing.assert_close(out.cpu(), x.cpu() * 3 + 1)


def test_graph_mixing_cpu_and_tpu_kernels():
    # The CPU part (after .cpu()) gets host kernels, the tpu part launches;
    # equal kernel sources for both devices must not be shared.
    fn = torch.compile(lambda x: ((x.cpu() + 1).to("tpu") * 2, x.cpu() * 3, (x * 3).sin()))
    x = torch.randn(16, device="tpu")
    with torch_tpu.no_fallback():
        a, b, c = fn(x)
    xc = x.cpu()
    assert (a.device.type, b.device.type, c.device.type) == ("tpu", "cpu", "tpu")
    torch.testing.assert_close(a.cpu(), (xc + 1) * 2)
    torch.testing.assert_close(b, xc * 3)
    torch.testing.assert_close(c.cpu(), (xc * 3).sin())
    assert _graph_breaks() == 0


def _attention_inputs():
    return [torch.randn(2, 4, 16, 8, generator=torch.Generator().manual_seed(i)) for i in range(3)]


def _causal_attention(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_attention_is_one_fused_device_call():
    # The device's _fused_sdp_choice picks its fused kernel while Dynamo
    # traces, so the graph keeps attention as one call on the stream.
    q, k, v = _attention_inputs()
    with torch_tpu.no_fallback():
        out, (code,) = run_and_get_code(torch.compile(_causal_attention), q.to("tpu"), k.to("tpu"), v.to("tpu"))
    assert "aten._scaled_dot_product_fused_attention_overrideable.default(" in code, code
    assert "extern_kernels.bmm(" not in code, code
    torch.testing.assert_close(out.cpu(), _causal_attention(q, k, v), rtol=1e-5, atol=1e-5)
    assert _graph_breaks() == 0


def test_math_attention_uses_tpu_extern_kernels():
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = _attention_inputs()
    with torch_tpu.no_fallback(), sdpa_kernel([SDPBackend.MATH]):
        out, (code,) = run_and_get_code(torch.compile(_causal_attention), q.to("tpu"), k.to("tpu"), v.to("tpu"))
    assert "extern_kernels.bmm(" in code, code  # the tpu aten bmm, on the stream
    assert "overrideable" not in code, code
    torch.testing.assert_close(out.cpu(), _causal_attention(q, k, v), rtol=1e-5, atol=1e-5)
    assert _graph_breaks() == 0


def test_compile_caches_are_keyed_by_the_native_library():
    # How a graph traces depends on the native operators (the attention
    # backend choice above): graphs cached by another build must miss.
    from torch._inductor.codegen.common import custom_backend_passes

    from torch_tpu._compile import inductor

    files = inductor.cache_key_files()
    assert torch_tpu._C.__file__ in files
    assert any(f.endswith("inductor.py") for f in files)
    key = custom_backend_passes["tpu"].uuid()
    assert key.startswith(inductor._files_hash(files))
    assert not key.startswith(inductor._files_hash(files[:-1]))  # the library's bytes count


def test_compile_caches_are_keyed_by_the_attention_backends():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch._inductor.codegen.common import custom_backend_passes

    key = custom_backend_passes["tpu"].uuid
    default = key()
    with sdpa_kernel([SDPBackend.MATH]):
        math_only = key()
    with sdpa_kernel([SDPBackend.OVERRIDEABLE]):
        fused_only = key()
    assert len({default, math_only, fused_only}) == 3
    assert key() == default


def test_max_pool_with_indices_is_the_device_kernel_on_tpu_only():
    # Inductor's max-pool-with-indices code, forward and backward, is slower
    # than the device's kernels (torch_tpu/_compile/inductor.py,
    # _DEVICE_KERNEL_OPS): on tpu both stay extern calls; CPU keeps Inductor's.
    def pool(x):
        y = torch.nn.functional.max_pool2d(x.relu(), 3, 2, 1)
        return y * 2

    x = torch.randn(2, 3, 9, 9, generator=torch.Generator().manual_seed(0))
    xt = x.to("tpu").requires_grad_()
    out, code = _compiled_training_code(pool, xt)
    assert "aten.max_pool2d_with_indices.default(" in code, code
    assert "aten.max_pool2d_with_indices_backward.default(" in code, code
    xc = x.clone().requires_grad_()
    ref = pool(xc)
    ref.sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach())
    torch.testing.assert_close(xt.grad.cpu(), xc.grad)
    xc.grad = None
    _, cpu_codes = run_and_get_code(lambda: torch.compile(pool)(xc).sum().backward())
    assert "aten.max_pool2d_with_indices" not in "\n".join(cpu_codes)
    assert _graph_breaks() == 0


def _compiled_training_code(fn, *args):
    """fn compiled and run on tpu args, its sum's backward too, no host
    fallback: (the output, the code of the forward and backward graphs)."""
    def train():
        y = torch.compile(fn)(*args)
        y.sum().backward()
        return y

    with torch_tpu.no_fallback():
        out, codes = run_and_get_code(train)
    return out, "\n".join(codes)


@pytest.mark.parametrize("approximate", ["tanh", "none"])
def test_gelu_is_the_device_kernel_on_tpu_only(approximate):
    # gelu and its backward stay extern calls of the device's kernels on tpu
    # (_DEVICE_KERNEL_OPS: they have no Inductor lowering, only a
    # decomposition, which CPU keeps).
    def mlp(x, w):
        return torch.nn.functional.gelu(x @ w, approximate=approximate) * 3

    g = torch.Generator().manual_seed(0)
    x, w = torch.randn(16, 32, generator=g), torch.randn(32, 64, generator=g)
    xt = x.to("tpu").requires_grad_()
    out, code = _compiled_training_code(mlp, xt, w.to("tpu"))
    assert "aten.gelu.default(" in code and "aten.gelu_backward.default(" in code, code
    xc = x.clone().requires_grad_()
    ref = mlp(xc, w)
    ref.sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach(), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(xt.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
    _, cpu_codes = run_and_get_code(torch.compile(mlp), x, w)
    assert "aten.gelu.default(" not in cpu_codes[0], cpu_codes[0]
    assert _graph_breaks() == 0


def test_embedding_backward_is_the_device_kernel_on_tpu_only():
    g = torch.Generator().manual_seed(0)
    weight = torch.randn(20, 8, generator=g)
    idx = torch.randint(0, 20, (6, 5), generator=g)

    def lookup(w, i):
        return torch.nn.functional.embedding(i, w).tanh()

    wt = weight.to("tpu").requires_grad_()
    out, code = _compiled_training_code(lookup, wt, idx.to("tpu"))
    assert "aten.embedding_dense_backward.default(" in code, code
    wc = weight.clone().requires_grad_()
    ref = lookup(wc, idx)
    ref.sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach())
    torch.testing.assert_close(wt.grad.cpu(), wc.grad, rtol=1e-5, atol=1e-5)
    wc.grad = None
    _, cpu_codes = run_and_get_code(lambda: torch.compile(lookup)(wc, idx).sum().backward())
    assert "embedding_dense_backward.default(" not in "\n".join(cpu_codes)
    assert _graph_breaks() == 0


_KERNEL_SOURCE = re.compile(r"r'''\n(.*?)'''", re.S)


def _kernel_sources(codes):
    from torch_tpu._compile.inductor import _TPU_MARK

    return [s.replace(_TPU_MARK, "") for s in _KERNEL_SOURCE.findall("\n".join(codes))]


def _one_tensor(out):
    return out if isinstance(out, torch.Tensor) else sum(o.sum() for o in out)


def _cat_of_heads(q, k, v):
    # The GPT example's backward: q, k and v's gradients back into one row.
    return torch.cat([t.transpose(1, 2).reshape(4, 8, 32) for t in (q * 2, k, v)], -1)


@pytest.mark.parametrize("name,fn,shapes", [
    # Welford below 8 values on GPUs, two passes up to 1,024 on CPU.
    ("layer_norm", lambda x, w: torch.nn.functional.layer_norm(x + 1, (32,), w), [(4, 8, 32), (32,)]),
    ("var_mean", lambda x: torch.var_mean(x * 2, dim=-1), [(16, 48)]),
    # Copies into slices on CPU, a masked pointwise kernel on GPUs.
    ("cat_of_heads", _cat_of_heads, [(4, 4, 8, 8)] * 3),
    ("cat_of_pointwise", lambda a, b: torch.cat([a.exp(), b.sin()], 1), [(4, 24), (4, 24)]),
    # Not written as a cat on CPU.
    ("right_pad", lambda a: torch.nn.functional.pad(a.relu(), (0, 3)), [(4, 6, 5)]),
    ("softmax_reused", lambda a: torch.softmax(a * 3, -1) * a.exp(), [(8, 40)]),
    # A Python number as the divisor (the patched constant check's input).
    ("avg_pool_divisor", lambda a: torch.nn.functional.avg_pool2d(a, 3, 1, 1, divisor_override=2), [(1, 3, 9, 9)]),
])
def test_tpu_kernels_are_cpus_kernels(name, fn, shapes):
    # tpu's kernels are the C++ Inductor writes for CPU; where torch decides
    # by device.type == "cpu" (cat, var_mean, pad, realizing, loop
    # reordering) tpu must get CPU's choice, not the one made for Triton
    # (torch_tpu/_compile/cpp_choices.py). Forward and backward kernels
    # alike.
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(s, generator=g) for s in shapes]

    def train(*inputs):
        out = _one_tensor(torch.compile(fn)(*inputs))
        out.sum().backward()
        return out

    cpu_args = [a.clone().requires_grad_() for a in args]
    _, cpu_codes = run_and_get_code(train, *cpu_args)
    torch._dynamo.reset()
    tpu_args = [a.to("tpu").requires_grad_() for a in args]
    with torch_tpu.no_fallback():
        out, tpu_codes = run_and_get_code(train, *tpu_args)
    cpu_kernels, tpu_kernels = _kernel_sources(cpu_codes), _kernel_sources(tpu_codes)
    assert cpu_kernels and len(tpu_kernels) == len(cpu_kernels), "\n".join(tpu_codes)
    for c, t in zip(cpu_kernels, tpu_kernels):
        assert t == c, "\n".join(difflib.unified_diff(c.splitlines(), t.splitlines(), "cpu", "tpu", lineterm=""))
    ref_args = [a.clone().requires_grad_() for a in args]
    ref = _one_tensor(fn(*ref_args))
    ref.sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach(), rtol=1e-4, atol=1e-4)
    for t, r in zip(tpu_args, ref_args):
        torch.testing.assert_close(t.grad.cpu(), r.grad, rtol=1e-4, atol=1e-4)
    assert _graph_breaks() == 0


# ------------------------------------------------------------- custom ops --

def test_custom_op_generic_fallback_passes_keyword_only_arguments_once():
    # torch 2.13's generic lowering of a functional custom op through its
    # .out overload puts keyword-only arguments among the positional ones
    # and passes them by keyword too; the tpu wrapper codegen emits them
    # once, by keyword, whatever lowering a registry holds.
    import torch._inductor.compile_fx  # noqa: F401  (torch_tpu registers when Inductor loads)
    from torch._inductor import lowering

    op = torch.ops.tpu.bias_gelu.default
    before = lowering.lowerings.get(op)
    lowering.lowerings[op] = lowering.fallback_handler(op, add_to_fallback_set=False)
    bias = torch.randn(8, device="tpu")
    x = torch.randn(3, 8, device="tpu")
    try:
        out, (code,) = run_and_get_code(
            torch.compile(lambda t: torch.ops.tpu.bias_gelu(t * 2, bias, approximate="tanh")), x)
    finally:
        if before is None:
            lowering.lowerings.pop(op, None)
        else:
            lowering.lowerings[op] = before
    assert "approximate='tanh'" in code and "'tanh', approximate" not in code, code
    torch.testing.assert_close(out.cpu(), torch.nn.functional.gelu(x.cpu() * 2 + bias.cpu(), approximate="tanh"),
                               rtol=1e-5, atol=1e-5)


def test_custom_ops_stay_single_nodes():
    dim = 16
    weight = torch.rand(dim, device="tpu") + 0.5
    bias = torch.randn(dim, device="tpu")

    def f(x):
        h = torch.ops.tpu.rms_norm(x, weight, 1e-6)
        return torch.ops.tpu.bias_gelu(h * 2, bias, approximate="tanh")

    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        from torch._inductor.compile_fx import compile_fx

        return compile_fx(gm, example_inputs)

    x = torch.randn(4, dim, device="tpu")
    out, (code,) = run_and_get_code(torch.compile(f, backend=backend), x)
    targets = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert targets.count(torch.ops.tpu.rms_norm) == 1, targets
    assert targets.count(torch.ops.tpu.bias_gelu) == 1, targets
    # Inductor keeps them as extern calls of the tpu ops (bias_gelu through
    # its out overload, into a buffer Inductor allocates), not decomposed.
    assert code.count("torch.ops.tpu.rms_norm.default(") == 1, code
    assert code.count("torch.ops.tpu.bias_gelu.out(") == 1, code
    with torch_tpu.no_fallback():
        expected = torch.ops.tpu.bias_gelu(torch.ops.tpu.rms_norm(x, weight, 1e-6) * 2, bias,
                                           approximate="tanh")
    torch.testing.assert_close(out.cpu(), expected.cpu())
    assert _graph_breaks() == 0


def test_custom_op_training_through_aot_autograd():
    w = torch.nn.Parameter(torch.rand(16, device="tpu") + 0.5)
    x = torch.randn(3, 16, device="tpu", requires_grad=True)
    fn = torch.compile(lambda x: torch.ops.tpu.rms_norm(x, w, 1e-6).square().sum())
    with torch_tpu.no_fallback():
        fn(x).backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    torch.ops.tpu.rms_norm(x, w, 1e-6).square().sum().backward()
    torch.testing.assert_close(gx.cpu(), x.grad.cpu())
    torch.testing.assert_close(gw.cpu(), w.grad.cpu())
    assert _graph_breaks() == 0


# ------------------------------------------------------------ graph breaks --

def test_item_graph_break_falls_back_to_eager_tpu():
    def f(x):
        s = x.sum().item()  # a device-to-host sync: Dynamo breaks the graph
        return x * s + 1

    x = torch.randn(5, device="tpu")
    with torch_tpu.no_fallback():
        out = torch.compile(f)(x)
    assert _graph_breaks() >= 1
    torch.testing.assert_close(out.cpu(), x.cpu() * x.cpu().sum().item() + 1)


def test_device_api_call_graph_break():
    def f(x):
        y = x * 2
        torch.tpu.synchronize()  # calls into torch_tpu._C: Dynamo breaks here
        return y + torch.tpu.current_device()

    x = torch.randn(5, device="tpu")
    with torch_tpu.no_fallback():
        out = torch.compile(f)(x)
    assert _graph_breaks() >= 1
    torch.testing.assert_close(out.cpu(), x.cpu() * 2)


def test_data_dependent_control_flow_graph_break():
    def f(x):
        if x.sum() > 0:  # data-dependent branch: a graph break, then eager tpu
            return x.cos()
        return x.sin()

    compiled = torch.compile(f)
    for sign in (1.0, -1.0):
        x = sign * (torch.rand(6) + 0.1)
        out = compiled(x.to("tpu"))
        torch.testing.assert_close(out.cpu(), f(x))
    assert _graph_breaks() >= 1


# ---------------------------------------------------------------- examples --

def _example(name):
    import importlib
    import os

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("name, model_cls", [("train_gpt", "GPT"), ("train_resnet", "ResNet")])
def test_example_compiled_training_matches_cpu_eager(name, model_cls):
    example = _example(name)
    torch.manual_seed(0)
    model = getattr(example, model_cls)()
    cpu_losses = example.train(copy.deepcopy(model), "cpu", 3)
    with torch_tpu.no_fallback():
        tpu_losses = example.train(torch.compile(model), "tpu", 3)
    torch.testing.assert_close(tpu_losses, cpu_losses, rtol=1e-4, atol=1e-4)
    assert _graph_breaks() == 0, dict(counters["graph_break"])


def test_compiled_kernel_takes_a_0dim_cpu_tensor_as_a_scalar(fresh_dynamo):
    # As CUDA's Inductor does: torchvision's pure-PyTorch roi_align passes
    # spatial_scale as a 0-dim CPU tensor into a compiled graph on the device.
    def f(x, scale, offset):
        return (x * scale + offset).relu()

    x = torch.randn(64, device="tpu")
    for dynamic in (False, True):
        torch._dynamo.reset()
        for value in (0.5, -2.0):  # a new value must not need a recompile to be read
            scale, offset = torch.tensor(value), torch.tensor(3, dtype=torch.int64)
            out = torch.compile(f, dynamic=dynamic)(x, scale, offset)
            torch.testing.assert_close(out.cpu(), f(x.cpu(), scale, offset))
