"""Variants and corner cases PyTorch's device-generic tests reach on tpu,
against CPU: out= forms (the FFTs, range, bernoulli, batch norm, the
deprecated _aminmax, _addmm_activation, _compute_linear_combination), arange
and linspace into an out of another shape or layout, copies into conjugate
and negative views, is_set_to, PyTorch's argument checks before tpu's dtype
refusal, and the margin losses of an empty batch. Everything under
torch_tpu.no_fallback()."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import torch_tpu

TPU = "tpu"


def tpu(t):
    return t.to(TPU)


def _seeded(seed=0):
    return torch.Generator().manual_seed(seed)


# ---- FFT out= ------------------------------------------------------------------------------

FFT_TOL = dict(atol=1e-4, rtol=2e-5)  # CPU's MKL rounds float32 transforms (ops.yaml's FFT tolerances)


@pytest.mark.parametrize("fn, make, n", [
    (torch.fft.fft, lambda g: torch.randn(4, 8, generator=g, dtype=torch.cfloat), None),
    (torch.fft.ifft2, lambda g: torch.randn(4, 8, generator=g, dtype=torch.cdouble), None),
    (torch.fft.rfft, lambda g: torch.randn(4, 8, generator=g), None),
    (torch.fft.fft, lambda g: torch.randn(4, 8, generator=g), None),  # real input: the two-sided r2c
    (torch.fft.rfftn, lambda g: torch.randn(4, 6, generator=g, dtype=torch.float64), None),
    (torch.fft.irfft, lambda g: torch.randn(4, 5, generator=g, dtype=torch.cfloat), 8),
    (torch.fft.hfft, lambda g: torch.randn(4, 5, generator=g, dtype=torch.cfloat), 9),
], ids=["fft", "ifft2", "rfft", "fft-real", "rfftn", "irfft", "hfft"])
def test_fft_out(fn, make, n):
    x = make(_seeded())
    kwargs = {"n": n} if n else {}
    expected = fn(x, **kwargs)
    out = torch.empty(0, dtype=expected.dtype, device=TPU)
    with torch_tpu.no_fallback():
        got = fn(tpu(x), out=out, **kwargs)
    assert got is out
    torch.testing.assert_close(out.cpu(), expected, **FFT_TOL)


def test_fft_out_casts_into_a_wider_dtype_like_cpu():
    x = torch.randn(8, generator=_seeded(), dtype=torch.cfloat)
    expected = torch.fft.fft(x, out=torch.empty(0, dtype=torch.cdouble))
    out = torch.empty(0, dtype=torch.cdouble, device=TPU)
    with torch_tpu.no_fallback():
        torch.fft.fft(tpu(x), out=out)
    torch.testing.assert_close(out.cpu(), expected, **FFT_TOL)


# ---- range, arange, linspace -----------------------------------------------------------------

RANGES = [(0, 5, 1), (-1, 2, 0.25), (10, 0, -3), (0, 1, 0.3)]


# (an integer range takes integer ends and steps: CPU truncates 0.25 to 0 and raises)
@pytest.mark.parametrize("dtype, start, end, step", [
    (dtype, *r) for dtype in [torch.float32, torch.float64, torch.int64, torch.float16, torch.bfloat16]
    for r in RANGES if dtype.is_floating_point or all(isinstance(v, int) for v in r)])
def test_range_out(dtype, start, end, step):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        expected = torch.range(start, end, step, dtype=dtype)
    with torch_tpu.no_fallback(), pytest.warns(UserWarning, match="torch.range is deprecated"):
        got = torch.range(start, end, step, dtype=dtype, device=TPU)
    torch.testing.assert_close(got.cpu(), expected, atol=0, rtol=0)


def test_range_errors_like_cpu():
    for args in [(0, 5, 0), (0, float("inf"), 1), (5, 0, 1)]:
        with pytest.raises(RuntimeError) as cpu_error:
            torch.ops.aten.range.out(*args, out=torch.empty(0))
        with pytest.raises(RuntimeError) as tpu_error:
            torch.ops.aten.range.out(*args, out=torch.empty(0, device=TPU))
        assert str(tpu_error.value) == str(cpu_error.value)


def _outs(shape_or_layout, dtype=torch.float32):
    """An out of 6 elements: 2-D contiguous, or 2-D transposed (not contiguous)."""
    if shape_or_layout == "2d":
        return torch.empty(2, 3, dtype=dtype), torch.empty(2, 3, dtype=dtype, device=TPU)
    return torch.empty(3, 2, dtype=dtype).t(), torch.empty(3, 2, dtype=dtype, device=TPU).t()


@pytest.mark.parametrize("layout", ["2d", "transposed"])
@pytest.mark.parametrize("fn", [
    lambda out: torch.arange(6, out=out),
    lambda out: torch.arange(1.5, 4.5, 0.5, out=out),
    lambda out: torch.linspace(-1, 1, 6, out=out),
    lambda out: torch.ops.aten.range.out(0, 5, 1, out=out),
], ids=["arange", "arange-step", "linspace", "range"])
def test_factories_fill_an_out_of_another_shape_in_row_major_order(layout, fn):
    """An out whose element count already matches is not resized: CPU fills it
    in row-major order, whatever its shape and strides."""
    cpu_out, tpu_out = _outs(layout)
    expected = fn(cpu_out)
    with torch_tpu.no_fallback():
        got = fn(tpu_out)
    assert got is tpu_out and got.shape == expected.shape and got.stride() == expected.stride()
    torch.testing.assert_close(got.cpu(), expected, atol=0, rtol=0)


# ---- bernoulli.out ---------------------------------------------------------------------------

def test_bernoulli_out():
    p = torch.tensor([0.0, 1.0, 0.0, 1.0, 1.0])
    out = torch.full((2,), 7.0, device=TPU)  # resized, as on CPU
    with torch_tpu.no_fallback():
        got = torch.bernoulli(tpu(p), out=out)
    assert got is out and out.shape == p.shape
    torch.testing.assert_close(out.cpu(), p, atol=0, rtol=0)  # p in {0, 1}: no randomness
    torch.tpu.manual_seed(5)
    draw = torch.bernoulli(torch.full((4096,), 0.25, device=TPU), out=torch.empty(0, device=TPU)).cpu()
    assert set(draw.unique().tolist()) <= {0.0, 1.0} and 0.2 < draw.mean().item() < 0.3


# ---- batch norm out= ---------------------------------------------------------------------------

@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("op", ["native_batch_norm", "_native_batch_norm_legit"])
def test_batch_norm_out(op, training):
    g = _seeded()
    x = torch.randn(4, 3, 5, generator=g)
    w, b = torch.randn(3, generator=g), torch.randn(3, generator=g)
    rm, rv = torch.randn(3, generator=g), torch.rand(3, generator=g) + 0.5
    fn = getattr(torch.ops.aten, op)
    rm_t, rv_t = tpu(rm), tpu(rv)
    expected = fn.default(tpu(x), tpu(w), tpu(b), rm_t.clone(), rv_t.clone(), training, 0.1, 1e-5)
    outs = [torch.empty(0, device=TPU) for _ in range(3)]
    with torch_tpu.no_fallback():
        got = fn.out(tpu(x), tpu(w), tpu(b), rm_t, rv_t, training, 0.1, 1e-5, out=outs[0], save_mean=outs[1],
                     save_invstd=outs[2])
    assert all(g_ is o for g_, o in zip(got, outs))
    for o, e in zip(outs, expected):
        torch.testing.assert_close(o.cpu(), e.cpu(), atol=0, rtol=0)
    cpu = torch.ops.aten.native_batch_norm.default(x, w, b, rm.clone(), rv.clone(), training, 0.1, 1e-5)[0]
    torch.testing.assert_close(outs[0].cpu(), cpu, atol=1e-5, rtol=1e-5)
    if training:  # the running statistics were updated in place, as by the functional form
        expected_rm = rm.clone()
        torch.ops.aten.native_batch_norm.default(x, w, b, expected_rm, rv.clone(), True, 0.1, 1e-5)
        torch.testing.assert_close(rm_t.cpu(), expected_rm, atol=1e-6, rtol=1e-6)


# ---- _aminmax, is_set_to -----------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:_aminmax is deprecated")
def test_deprecated_aminmax():
    x = torch.randn(3, 4, generator=_seeded())
    with torch_tpu.no_fallback():
        got = torch._aminmax(tpu(x))
        got_dim = torch._aminmax(tpu(x), 1, True)
    for g, e in zip(got + got_dim, torch._aminmax(x) + torch._aminmax(x, 1, True)):
        torch.testing.assert_close(g.cpu(), e, atol=0, rtol=0)


def test_is_set_to():
    a = torch.randn(6, device=TPU)
    b = torch.empty(0, device=TPU).set_(a.untyped_storage(), 0, (6,), (1,))
    with torch_tpu.no_fallback():
        assert a.is_set_to(b) and b.is_set_to(a)
        assert not a.is_set_to(a[1:]) and not a.is_set_to(a.view(2, 3)) and not a.is_set_to(a.clone())


# ---- _addmm_activation, _compute_linear_combination ------------------------------------------

@pytest.mark.parametrize("use_gelu", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_addmm_activation(use_gelu, dtype):
    g = _seeded()
    bias, m1, m2 = (torch.randn(s, generator=g, dtype=dtype) for s in [(3,), (4, 5), (5, 3)])
    expected = torch._addmm_activation(bias, m1, m2, beta=0.5, alpha=2, use_gelu=use_gelu)
    out = torch.empty(0, dtype=dtype, device=TPU)
    with torch_tpu.no_fallback():
        got = torch._addmm_activation(tpu(bias), tpu(m1), tpu(m2), beta=0.5, alpha=2, use_gelu=use_gelu)
        torch._addmm_activation(tpu(bias), tpu(m1), tpu(m2), beta=0.5, alpha=2, use_gelu=use_gelu, out=out)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(got.cpu(), expected, **tol)
    torch.testing.assert_close(out.cpu(), expected, **tol)


def test_addmm_activation_relu_on_integers_like_cpu():
    bias, m1, m2 = torch.tensor([1, -9]), torch.tensor([[1, 2], [3, -4]]), torch.tensor([[1, 0], [0, 1]])
    with torch_tpu.no_fallback():
        got = torch._addmm_activation(tpu(bias), tpu(m1), tpu(m2))
    torch.testing.assert_close(got.cpu(), torch._addmm_activation(bias, m1, m2), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.int64])
def test_compute_linear_combination(dtype):
    g = _seeded()
    x = (torch.randn(3, 2, 4, generator=g) * 10).to(dtype)
    coefficients = (torch.randn(5, 3, generator=g) * 10).to(dtype)
    start = torch.ones(5, 2, 4, dtype=dtype)
    if dtype.is_complex:
        # CPU's complex kernel adds only the first term in torch 2.13
        # (_compute_linear_combination([[1], [2]], [[1, 1]]) is 1, not 3):
        # the definition, sum_j coefficients[i, j] * input[j], instead.
        expected = (coefficients @ x.reshape(3, -1)).view(5, 2, 4)
        expected_out = start + expected
    else:
        expected = torch._compute_linear_combination(x, coefficients)
        expected_out = torch._compute_linear_combination(x, coefficients, out=start.clone())  # adds to out
    out = tpu(start)
    with torch_tpu.no_fallback():
        got = torch._compute_linear_combination(tpu(x), tpu(coefficients))
        torch._compute_linear_combination(tpu(x), tpu(coefficients), out=out)
    tol = {} if dtype.is_floating_point or dtype.is_complex else dict(atol=0, rtol=0)
    torch.testing.assert_close(got.cpu(), expected, **tol)
    torch.testing.assert_close(out.cpu(), expected_out, **tol)
    with pytest.raises(RuntimeError, match="Empty tensor not supported"):
        torch._compute_linear_combination(torch.ones(0, 2, device=TPU), torch.ones(2, 0, device=TPU))


# ---- copies into conjugate and negative views ----------------------------------------------------

def _src(kind, dtype):
    g = _seeded(1)
    x = torch.randn(4, 3, generator=g, dtype=dtype)
    if kind == "conj":
        return x.conj()
    if kind == "neg":
        return x._neg_view()
    return x


@pytest.mark.parametrize("src_kind", ["plain", "conj", "neg"])
@pytest.mark.parametrize("dst_kind", ["conj", "neg", "conj-neg"])
@pytest.mark.parametrize("src_device", ["cpu", TPU])
def test_copy_into_conjugate_and_negative_views(src_kind, dst_kind, src_device):
    """dst, read through its bits, equals src read through src's; what dst
    stores is CPU's copy_ into the same view."""
    dtype = torch.cfloat
    src = _src(src_kind, dtype)
    if src_device == TPU:
        src = tpu(src)

    def dst_of(base):
        if "conj" in dst_kind:
            base = base.conj()
        if "neg" in dst_kind:
            base = base._neg_view()
        return base

    cpu_base = torch.zeros(4, 3, dtype=dtype)
    tpu_base = torch.zeros(4, 3, dtype=dtype, device=TPU)
    dst_of(cpu_base).copy_(src.cpu())
    with torch_tpu.no_fallback():
        dst = dst_of(tpu_base)
        dst.copy_(src)
    torch.testing.assert_close(dst.cpu(), src.cpu().resolve_conj().resolve_neg(), atol=0, rtol=0)
    torch.testing.assert_close(tpu_base.cpu(), cpu_base, atol=0, rtol=0)  # the stored values


def test_copy_into_a_negative_view_of_a_real_tensor():
    src = torch.randn(5, generator=_seeded())
    base = torch.zeros(5, device=TPU)
    with torch_tpu.no_fallback():
        base._neg_view().copy_(tpu(src))
    torch.testing.assert_close(base.cpu(), -src, atol=0, rtol=0)


# ---- PyTorch's argument checks before tpu's dtype refusal -----------------------------------------

def _same_error(fn):
    with pytest.raises(Exception) as cpu_error:
        fn("cpu")
    with pytest.raises(Exception) as tpu_error:
        fn(TPU)
    assert type(tpu_error.value) is type(cpu_error.value)
    assert str(tpu_error.value).splitlines()[0] == str(cpu_error.value).splitlines()[0]


@pytest.mark.parametrize("dtype", [torch.int32, torch.bool, torch.complex64])
def test_frexp_refuses_non_floating_with_pytorch_message(dtype):
    _same_error(lambda d: torch.frexp(torch.ones(3, dtype=dtype, device=d)))


@pytest.mark.parametrize("name, fn", [
    ("tau dtype", lambda d: torch.linalg.householder_product(torch.randn(4, 3, device=d),
                                                            torch.randn(2, device=d).int())),
    ("int input", lambda d: torch.linalg.householder_product(torch.randn(4, 3, device=d).int(),
                                                            torch.randn(2, device=d).int().double())),
    ("1-d half", lambda d: torch.linalg.householder_product(torch.randn(10, device=d).half(),
                                                           torch.randn(2, device=d).half())),
    ("shape half", lambda d: torch.linalg.householder_product(torch.randn(6, 10, device=d).half(),
                                                             torch.randn(5, device=d).half())),
])
def test_householder_product_checks_first(name, fn):
    _same_error(fn)


@pytest.mark.parametrize("name, fn", [
    ("int", lambda d: torch.linalg.lstsq(torch.ones(3, 3, device=d).int(), torch.ones(3, 3, device=d).int())),
    ("half", lambda d: torch.linalg.lstsq(torch.ones(3, 3, device=d).half(), torch.ones(3, 3, device=d).half())),
    ("mixed", lambda d: torch.linalg.lstsq(torch.ones(3, 3, device=d).int(), torch.ones(3, 3, device=d))),
    ("1-d int", lambda d: torch.linalg.lstsq(torch.ones(3, device=d).int(), torch.ones(3, device=d).int())),
    ("rows int", lambda d: torch.linalg.lstsq(torch.ones(3, 3, device=d).int(), torch.ones(2, 3, device=d).int())),
])
def test_lstsq_checks_first(name, fn):
    _same_error(fn)


# ---- margin losses of an empty batch ----------------------------------------------------------------

@pytest.mark.parametrize("loss, target", [
    (nn.MultiMarginLoss, lambda: torch.ones(0, dtype=torch.long)),
    (nn.MultiLabelMarginLoss, lambda: torch.ones(0, 10, dtype=torch.long)),
])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_margin_losses_of_an_empty_batch(loss, target, reduction):
    """PyTorch's test_MarginLoss_empty: the loss runs and the gradient is empty.
    (CPU's mean of no frames is uninitialised memory, so its value is not compared.)"""
    x = torch.randn(0, 10, device=TPU, requires_grad=True)
    with torch_tpu.no_fallback():
        out = loss(reduction=reduction)(x, target().to(TPU))
        out.sum().backward()
    assert x.grad.shape == (0, 10)
    if reduction == "sum":
        assert out.item() == 0
    if reduction == "none":
        assert out.shape == (0,)
