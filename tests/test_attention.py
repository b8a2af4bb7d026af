"""scaled_dot_product_attention on tpu: the fused kernel behind the
"overrideable" backend (kernels/nn/attention.h) against CPU eager, forward
and backward: masks (causal, additive, boolean, broadcast, a fully masked
row), strided layouts, query blocks, reduced precision; the backend choice
(_fused_sdp_choice and the stub ATen consults); and compiled graphs keeping
the fused op as one extern call."""

import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils._python_dispatch import TorchDispatchMode

torch_tpu = pytest.importorskip("torch_tpu")

FUSED = "aten._scaled_dot_product_fused_attention_overrideable.default"
FUSED_BACKWARD = "aten._scaled_dot_product_fused_attention_overrideable_backward.default"
TOL = {torch.float32: dict(atol=2e-5, rtol=1e-4), torch.bfloat16: dict(atol=2e-2, rtol=2e-2),
       torch.float16: dict(atol=2e-3, rtol=2e-3)}


class OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def _qkv(b, h, sq, skv, d, dv, dtype, seed, layout="contiguous"):
    g = torch.Generator().manual_seed(seed)
    if layout == "bshd":  # (batch, seq, heads, dim) transposed: a model's usual view
        q = torch.randn(b, sq, h, d, generator=g).transpose(1, 2)
        k = torch.randn(b, skv, h, d, generator=g).transpose(1, 2)
        v = torch.randn(b, skv, h, dv, generator=g).transpose(1, 2)
    else:
        q, k, v = (torch.randn(b, h, sq, d, generator=g), torch.randn(b, h, skv, d, generator=g),
                   torch.randn(b, h, skv, dv, generator=g))
    return [t.to(dtype) for t in (q, k, v)]


def _both(fn, tensors, dtype, grads=True):
    """fn on CPU and on tpu (same inputs), with the gradients of every
    floating input when grads."""
    results = []
    for device in ("cpu", "tpu"):
        xs = [t.detach().to(device).requires_grad_(grads and t.is_floating_point()) for t in tensors]
        out = fn(*xs)
        g = None
        if grads:
            gen = torch.Generator().manual_seed(7)
            grad_out = torch.randn(out.shape, generator=gen).to(dtype).to(device)
            out.backward(grad_out)
            g = [x.grad.cpu() if x.grad is not None else None for x in xs]
        results.append((out.detach().cpu(), g))
    return results


CASES = [  # b, h, sq, skv, d, dv, mask, causal, layout
    (2, 3, 7, 7, 8, 8, None, False, "contiguous"),
    (2, 3, 9, 9, 16, 16, None, True, "bshd"),
    (1, 2, 5, 11, 8, 12, None, True, "contiguous"),      # causal with more keys than queries
    (2, 2, 6, 10, 8, 8, "float", False, "bshd"),          # additive bias [sq, skv] broadcast
    (2, 2, 6, 6, 8, 8, "bool", False, "contiguous"),      # boolean mask [b, 1, sq, skv]
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:6])) + f"-{c[6]}-causal{c[7]}-{c[8]}")
def test_fused_attention_matches_cpu(case, dtype):
    b, h, sq, skv, d, dv, mask, causal, layout = case
    q, k, v = _qkv(b, h, sq, skv, d, dv, dtype, seed=sq * 31 + skv)
    tensors = [q, k, v]
    g = torch.Generator().manual_seed(3)
    if mask == "float":
        tensors.append(torch.randn(sq, skv, generator=g).to(dtype))
    elif mask == "bool":
        tensors.append(torch.rand(b, 1, sq, skv, generator=g) > 0.3)
    grads = sq * skv <= 10000  # not for the long case: CPU's backward is slow there

    def fn(q, k, v, m=None):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)

    log = OpLog()
    with log:
        F.scaled_dot_product_attention(*[t.to("tpu") for t in tensors[:3]],
                                       attn_mask=tensors[3].to("tpu") if len(tensors) > 3 else None,
                                       is_causal=causal)
    assert FUSED in log.ops, log.ops
    (out_cpu, g_cpu), (out_tpu, g_tpu) = _both(fn, tensors, dtype, grads)
    torch.testing.assert_close(out_tpu, out_cpu, **TOL[dtype])
    if grads:
        for a, c in zip(g_tpu, g_cpu):
            if c is not None:
                torch.testing.assert_close(a, c, **TOL[dtype])


def test_query_rows_in_two_blocks():
    """8192 keys: the kernel takes 128 query rows per block (scores near 1M
    floats), so 256 queries run as two blocks (and causal rows past the
    first block see more keys)."""
    q, k, v = _qkv(1, 1, 256, 8192, 8, 8, torch.float32, seed=9)
    for causal in (False, True):
        want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        got = F.scaled_dot_product_attention(q.to("tpu"), k.to("tpu"), v.to("tpu"), is_causal=causal)
        torch.testing.assert_close(got.cpu(), want, **TOL[torch.float32])


def test_fully_masked_rows_give_zeros_and_zero_gradients_as_cpu():
    q, k, v = _qkv(1, 2, 4, 5, 8, 8, torch.float32, seed=1)
    m = torch.ones(4, 5, dtype=torch.bool)
    m[2] = False
    (out_cpu, g_cpu), (out_tpu, g_tpu) = _both(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m),
                                              [q, k, v, m], torch.float32)
    assert torch.equal(out_tpu[:, :, 2], torch.zeros_like(out_tpu[:, :, 2]))
    torch.testing.assert_close(out_tpu, out_cpu, **TOL[torch.float32])
    for a, c in zip(g_tpu[:3], g_cpu[:3]):
        torch.testing.assert_close(a, c, **TOL[torch.float32])


def test_bias_gradient_sums_over_its_broadcast_dims():
    q, k, v = _qkv(2, 3, 5, 6, 8, 8, torch.float32, seed=2)
    bias = torch.randn(1, 3, 1, 6)
    (_, g_cpu), (_, g_tpu) = _both(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m),
                                  [q, k, v, bias], torch.float32)
    assert g_tpu[3].shape == bias.shape
    torch.testing.assert_close(g_tpu[3], g_cpu[3], **TOL[torch.float32])


def test_backend_choice():
    """The fused kernel where it applies; ATen's math path for float64,
    dropout, grouped-query attention and 3-d inputs, and when the user turns
    the overrideable backend off. The operator and the stub ATen consults
    agree (the op log shows which one ran)."""
    def ran_fused(*args, **kw):
        log = OpLog()
        with log:
            F.scaled_dot_product_attention(*args, **kw)
        return FUSED in log.ops

    q, k, v = (t.to("tpu") for t in _qkv(1, 4, 6, 6, 8, 8, torch.float32, seed=4))
    assert torch._fused_sdp_choice(q, k, v) == SDPBackend.OVERRIDEABLE.value
    assert ran_fused(q, k, v)
    assert not ran_fused(q.double(), k.double(), v.double())
    assert torch._fused_sdp_choice(q.double(), k.double(), v.double()) == SDPBackend.MATH.value
    assert not ran_fused(q, k, v, dropout_p=0.5)
    assert not ran_fused(q, k[:, :2], v[:, :2], enable_gqa=True)
    assert not ran_fused(q[0], k[0], v[0])
    with sdpa_kernel([SDPBackend.MATH]):
        assert not ran_fused(q, k, v)


def test_backward_runs_the_fused_backward():
    q, k, v = (t.to("tpu").requires_grad_() for t in _qkv(1, 2, 6, 6, 8, 8, torch.float32, seed=5))
    log = OpLog()
    with log:
        F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    assert FUSED_BACKWARD in log.ops


def test_direct_call_rejects_what_the_kernel_does_not_do():
    q, k, v = (t.to("tpu") for t in _qkv(1, 2, 4, 4, 8, 8, torch.float32, seed=6))
    with pytest.raises(NotImplementedError, match="dropout"):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q, k, v, dropout_p=0.1)
    with pytest.raises(RuntimeError, match="4-d"):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q[0], k[0], v[0])
    with pytest.raises(NotImplementedError):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q.double(), k.double(), v.double())


def test_compiled_graph_calls_the_fused_kernel_forward_and_backward():
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    q, k, v = _qkv(2, 2, 8, 8, 16, 16, torch.float32, seed=8, layout="bshd")

    def step(q, k, v):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.sum().backward()
        return out

    qt, kt, vt = (t.to("tpu").requires_grad_() for t in (q, k, v))
    compiled = torch.compile(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    out, codes = run_and_get_code(lambda: compiled(qt, kt, vt).sum().backward())
    text = "\n".join(codes)
    assert "_scaled_dot_product_fused_attention_overrideable.default" in text
    assert "_scaled_dot_product_fused_attention_overrideable_backward.default" in text
    qc, kc, vc = (t.clone().requires_grad_() for t in (q, k, v))
    step(qc, kc, vc)
    for a, c in ((qt, qc), (kt, kc), (vt, vc)):
        torch.testing.assert_close(a.grad.cpu(), c.grad, **TOL[torch.float32])
