"""The fast path of nn.TransformerEncoderLayer, nn.TransformerEncoder and
nn.MultiheadAttention on tpu. In eval mode without grad, torch.nn checks the
device ("tpu" is PrivateUse1's name) and calls the fused ops
(_transformer_encoder_layer_fwd, _native_multi_head_attention, and through
them _transform_bias_rescale_qkv and _masked_softmax); in train mode it runs
the composite path. Both against CPU, with the modules and inputs moved from
CPU, in float32 and float64, under torch_tpu.no_fallback().

Tolerances: CPU's fast path runs attention through its flash kernel when
there is no mask, tpu through the math path (its SDPA choice for tpu),
so the results differ by summation order: a few float32 ulps of outputs of
order 1 (measured 5e-7); float64 is exact to 1e-12."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn

import torch_tpu

TOL = {torch.float32: dict(atol=2e-5, rtol=2e-5), torch.float64: dict(atol=1e-12, rtol=1e-12)}
DTYPES = [torch.float32, torch.float64]


def _pair(module, dtype):
    torch.manual_seed(0)
    cpu = module.to(dtype)
    return cpu, copy.deepcopy(cpu).to("tpu")


def _inputs(dtype, batch=3, seq=5, dim=16):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(batch, seq, dim, generator=g, dtype=dtype)
    pad = torch.zeros(batch, seq, dtype=torch.bool)
    pad[1, 3:] = True
    pad[2, 4:] = True
    causal = torch.ones(seq, seq, dtype=torch.bool).triu(1)  # boolean: float masks leave the fast path
    return x, pad, causal


def _spy(monkeypatch, name):
    """Counts the calls of torch.<name> (the fused op the fast path takes)."""
    calls = []
    real = getattr(torch, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(torch, name, counted)
    return calls


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("mask", ["none", "padding", "causal"])
def test_encoder_layer_eval_fast_path(monkeypatch, dtype, norm_first, activation, mask):
    cpu, tpu = _pair(nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.1, activation=activation,
                                                batch_first=True, norm_first=norm_first), dtype)
    cpu.eval(), tpu.eval()
    x, pad, causal = _inputs(dtype)
    kwargs = {"src_key_padding_mask": pad} if mask == "padding" else {"src_mask": causal} if mask == "causal" else {}
    with torch.no_grad():
        expected = cpu(x, **kwargs)
        calls = _spy(monkeypatch, "_transformer_encoder_layer_fwd")
        with torch_tpu.no_fallback():
            got = tpu(x.to("tpu"), **{k: v.to("tpu") for k, v in kwargs.items()})
    assert calls, "the fast path was not taken"
    torch.testing.assert_close(got.cpu(), expected, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_encoder_eval_fast_path(monkeypatch, dtype):
    """nn.TransformerEncoder without nested tensors: each layer's fast path."""
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True)
    cpu, tpu = _pair(nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), dtype)
    cpu.eval(), tpu.eval()
    x, pad, _ = _inputs(dtype)
    with torch.no_grad():
        expected = cpu(x, src_key_padding_mask=pad)
        calls = _spy(monkeypatch, "_transformer_encoder_layer_fwd")
        with torch_tpu.no_fallback():
            got = tpu(x.to("tpu"), src_key_padding_mask=pad.to("tpu"))
    assert len(calls) == 2
    torch.testing.assert_close(got.cpu(), expected, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("mask", ["none", "padding", "causal", "both"])
def test_multihead_attention_eval_fast_path(monkeypatch, dtype, need_weights, mask):
    cpu, tpu = _pair(nn.MultiheadAttention(16, 2, batch_first=True), dtype)
    cpu.eval(), tpu.eval()
    x, pad, causal = _inputs(dtype)
    kwargs = {"need_weights": need_weights}
    if mask in ("padding", "both"):
        kwargs["key_padding_mask"] = pad
    if mask in ("causal", "both"):
        kwargs["attn_mask"] = causal
    with torch.no_grad():
        out, weights = cpu(x, x, x, **kwargs)  # CPU's fast path too
        calls = _spy(monkeypatch, "_native_multi_head_attention")
        moved = {k: v.to("tpu") if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
        xt = x.to("tpu")  # self-attention: one tensor for query, key and value (the fast path's condition)
        with torch_tpu.no_fallback():
            got, got_weights = tpu(xt, xt, xt, **moved)
    assert calls, "the fast path was not taken"
    torch.testing.assert_close(got.cpu(), out, **TOL[dtype])
    if need_weights:
        torch.testing.assert_close(got_weights.cpu(), weights, **TOL[dtype])
    else:
        assert got_weights is None and weights is None


@pytest.mark.parametrize("dtype", DTYPES)
def test_encoder_layer_train_matches_cpu_forward_and_backward(dtype):
    """Train mode takes the composite path (dropout 0 for a deterministic comparison)."""
    cpu, tpu = _pair(nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True), dtype)
    x, pad, _ = _inputs(dtype)
    xc = x.clone().requires_grad_()
    xt = x.to("tpu").requires_grad_()
    expected = cpu(xc, src_key_padding_mask=pad)
    with torch_tpu.no_fallback():
        got = tpu(xt, src_key_padding_mask=pad.to("tpu"))
        got.sum().backward()
    expected.sum().backward()
    torch.testing.assert_close(got.detach().cpu(), expected.detach(), **TOL[dtype])
    torch.testing.assert_close(xt.grad.cpu(), xc.grad, **TOL[dtype])
    for (name, p), q in zip(cpu.named_parameters(), tpu.parameters()):
        torch.testing.assert_close(q.grad.cpu(), p.grad, msg=name, **TOL[dtype])


# ---- the two kernels the fast path calls, against CPU's ------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_transform_bias_rescale_qkv(dtype):
    g = torch.Generator().manual_seed(2)
    qkv = torch.randn(2, 5, 24, generator=g).to(dtype)
    bias = torch.randn(24, generator=g).to(dtype)
    expected = torch._transform_bias_rescale_qkv(qkv, bias, 4)
    with torch_tpu.no_fallback():
        got = torch._transform_bias_rescale_qkv(qkv.to("tpu"), bias.to("tpu"), 4)
    for e, t in zip(expected, got):
        assert (t.shape, t.stride(), t.storage_offset()) == (e.shape, e.stride(), e.storage_offset())
        torch.testing.assert_close(t.cpu(), e, atol=0, rtol=0)  # same operations, same roundings


def test_transform_bias_rescale_qkv_errors_like_cpu():
    for qkv, heads in [(torch.randn(2, 3, 13), 2), (torch.randn(2, 3, 12), 3), (torch.randn(3, 12), 2)]:
        bias = torch.randn(qkv.shape[-1])
        with pytest.raises(Exception) as cpu_error:
            torch._transform_bias_rescale_qkv(qkv, bias, heads)
        with pytest.raises(type(cpu_error.value), match=str(cpu_error.value).split("(")[0].strip()[:40]):
            torch._transform_bias_rescale_qkv(qkv.to("tpu"), bias.to("tpu"), heads)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("mask_type, mask_shape, dim", [
    (2, (2, 2, 3, 3), 3), (2, (2, 2, 3, 3), 1), (1, (2, 3), 3), (1, (2, 3), 2), (0, (3, 3), 3), (0, (3, 3), 0),
    (None, (2, 5), 1),
])
def test_masked_softmax(dtype, mask_type, mask_shape, dim):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 2, 3, 3, generator=g, dtype=dtype) if len(mask_shape) != 2 or mask_type is not None \
        else torch.randn(2, 5, generator=g, dtype=dtype)
    mask = torch.rand(mask_shape, generator=g) < 0.4
    mask.view(-1)[:3] = True  # a fully masked row where the shape allows: NaN, as CPU's
    expected = torch._masked_softmax(x, mask, dim, mask_type)
    with torch_tpu.no_fallback():
        got = torch._masked_softmax(x.to("tpu"), mask.to("tpu"), dim, mask_type)
    torch.testing.assert_close(got.cpu(), expected, equal_nan=True, **TOL[dtype])


def test_masked_softmax_errors_like_cpu():
    x = torch.randn(2, 2, 3, 3)
    cases = [(torch.zeros(2, 3), 3, 1), (torch.zeros(2, 4, dtype=torch.bool), 3, 1),
             (torch.zeros(3, 3, dtype=torch.bool), 3, 5), (torch.zeros(3, 3, dtype=torch.bool), None, None),
             (torch.zeros(2, 2, 3, 4, dtype=torch.bool), 3, 2)]
    for mask, dim, mask_type in cases:
        with pytest.raises(Exception) as cpu_error:
            torch._masked_softmax(x, mask, dim, mask_type)
        with pytest.raises(type(cpu_error.value)) as tpu_error:
            torch._masked_softmax(x.to("tpu"), mask.to("tpu"), dim, mask_type)
        assert str(tpu_error.value).splitlines()[0] == str(cpu_error.value).splitlines()[0]
