"""Pooling on tpu against CPU eager: max_pool2d (indices, dilation,
ceil_mode, padding, NaN), avg_pool2d (count_include_pad, divisor_override,
ceil_mode), adaptive_avg_pool2d and adaptive_max_pool1d/2d/3d (sizes that
do and do not divide), their
backwards through autograd, every floating dtype, batched and unbatched,
channels-last input, and ATen's argument errors. Integer pooling (forward
only): max pooling in uint8..int64, average pooling in int64 (truncating
division), exactly CPU's values and indices."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: dict(atol=1e-12, rtol=1e-12),
       torch.float16: dict(atol=2e-3, rtol=2e-3), torch.bfloat16: dict(atol=2e-2, rtol=2e-2)}
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def rand(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def check(fn, x, dtype, layout=None):
    xc = x.clone().requires_grad_()
    xt = x.to("tpu")
    if layout is not None:
        xt = xt.contiguous(memory_format=layout)
    xt.requires_grad_()
    y_cpu = fn(xc)
    with torch_tpu.no_fallback():
        y = fn(xt)
    outs_cpu = y_cpu if isinstance(y_cpu, tuple) else (y_cpu,)
    outs = y if isinstance(y, tuple) else (y,)
    for a, e in zip(outs, outs_cpu):
        assert a.shape == e.shape and a.dtype == e.dtype
        if e.dtype == torch.int64:
            assert torch.equal(a.cpu(), e)
        else:
            torch.testing.assert_close(a.detach().cpu(), e.detach(), equal_nan=True, **TOL[dtype])
    g = rand(outs_cpu[0].shape, dtype, seed=7)
    (gc,) = torch.autograd.grad(outs_cpu[0], xc, g)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(outs[0], xt, g.to("tpu"))
    torch.testing.assert_close(gt.cpu(), gc, equal_nan=True, **TOL[dtype])
    return outs


MAX_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=(3, 2), stride=(2, 1), dilation=(2, 1)), dict(kernel_size=3, stride=2, ceil_mode=True),
             dict(kernel_size=2, stride=1, padding=1, dilation=2)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kw", MAX_CASES, ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 9, 8), (3, 7, 7)], ids=str)
def test_max_pool2d(shape, kw, dtype):
    check(lambda x: F.max_pool2d(x, return_indices=True, **kw), rand(shape, dtype), dtype)


def test_max_pool2d_nan_ties_and_channels_last():
    x = torch.tensor([[[[1.0, 1.0, float("nan")], [3.0, float("nan"), 3.0], [0.0, 0.0, 0.0]]]])
    check(lambda t: F.max_pool2d(t, 2, 1, return_indices=True), x, torch.float32)
    (y, i) = check(lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True), rand((2, 4, 6, 5)), torch.float32,
                   layout=torch.channels_last)
    assert y.is_contiguous(memory_format=torch.channels_last)


def test_max_pool_rows_infinities_and_1d():
    # 1-d and 2-d max pooling runs a row of windows at a time over a plane
    # in a border of -inf (pool.cpp, max_plane_rows): windows of -inf only
    # (the index is the first real tap, never a border one), ties, ceil_mode
    # windows past the padding, and max_pool1d.
    inf = float("inf")
    x = torch.tensor([[[[-inf, -inf, 2.0, 2.0, -inf], [-inf, -inf, -inf, 5.0, 5.0],
                        [1.0, -inf, float("nan"), 0.0, -inf], [-inf, -inf, -inf, -inf, -inf]]]])
    for kw in (dict(kernel_size=2, stride=1, padding=1), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=2, stride=2, dilation=2, ceil_mode=True)):
        check(lambda t: F.max_pool2d(t, return_indices=True, **kw), x, torch.float32)
    for kw in (dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, dilation=3, ceil_mode=True)):
        check(lambda t: F.max_pool1d(t, return_indices=True, **kw), x[0].reshape(2, 2, 5), torch.float32)


AVG_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
             dict(kernel_size=(2, 3), stride=(1, 2), ceil_mode=True), dict(kernel_size=3, padding=1, divisor_override=5),
             dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kw", AVG_CASES, ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 9, 8), (3, 7, 7)], ids=str)
def test_avg_pool2d(shape, kw, dtype):
    check(lambda x: F.avg_pool2d(x, **kw), rand(shape, dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("size", [(1, 1), (3, 3), (4, 2), (7, 5), (2, 9)], ids=str)
def test_adaptive_avg_pool2d(size, dtype):
    # (1, 1) is mean.dim in ATen's adaptive_avg_pool2d; the others reach _adaptive_avg_pool2d
    check(lambda x: F.adaptive_avg_pool2d(x, size), rand((2, 3, 7, 9), dtype), dtype)
    check(lambda x: torch.ops.aten._adaptive_avg_pool2d(x, size), rand((3, 7, 9), dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("size", [(1, 1), (3, 3), (4, 2), (7, 5), (2, 9)], ids=str)
def test_adaptive_max_pool2d(size, dtype):
    # values, indices and the gradient through the indices
    check(lambda x: F.adaptive_max_pool2d(x, size, return_indices=True), rand((2, 3, 7, 9), dtype), dtype)
    check(lambda x: F.adaptive_max_pool2d(x, size, return_indices=True), rand((3, 7, 9), dtype), dtype)
    check(lambda x: F.adaptive_max_pool2d(x, size), rand((2, 3, 7, 9), dtype), dtype,
          layout=torch.channels_last)


@pytest.mark.parametrize("size", [1, 3, 5], ids=str)
def test_adaptive_max_pool1d_and_3d(size):
    check(lambda x: F.adaptive_max_pool1d(x, size, return_indices=True), rand((2, 3, 7)), torch.float32)
    check(lambda x: F.adaptive_max_pool3d(x, (size, 2, 3), return_indices=True), rand((2, 3, 5, 7, 4)),
          torch.float32)
    check(lambda x: F.adaptive_max_pool3d(x, size), rand((3, 5, 7, 4), torch.float64), torch.float64)


def test_adaptive_max_pool_nan_and_ties():
    x = torch.tensor([[[[1.0, 3.0, 3.0, float("nan")], [0.0, 3.0, float("nan"), 2.0]]]])
    check(lambda t: F.adaptive_max_pool2d(t, (1, 2), return_indices=True), x, torch.float32)


def test_adaptive_channels_last():
    (y,) = check(lambda x: torch.ops.aten._adaptive_avg_pool2d(x, (3, 2)), rand((2, 4, 7, 5)), torch.float32,
                 layout=torch.channels_last)
    assert y.is_contiguous(memory_format=torch.channels_last)


@pytest.mark.parametrize("call,match", [
    (lambda x: F.max_pool2d(x, 2, padding=2), "pad should be at most half of effective kernel size"),
    (lambda x: F.max_pool2d(x, 0, 1), "kernel size should be greater than zero"),
    (lambda x: F.avg_pool2d(x, 2, stride=0), "stride should not be zero"),
    (lambda x: F.max_pool2d(x[:, :, :1, :1], 3), "Output size is too small"),
    (lambda x: torch.ops.aten._adaptive_avg_pool2d(x[0, 0], (2, 2)), "Expected 3D or 4D tensor"),
])
def test_bad_arguments_raise_like_cpu(call, match):
    x = rand((2, 3, 6, 6))
    with pytest.raises(RuntimeError, match=match):
        call(x)
    xt = x.to("tpu")
    before = torch_tpu.stats()["launches"]
    with pytest.raises(RuntimeError, match=match):
        call(xt)
    assert torch_tpu.stats()["launches"] == before


# ---- 3d --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), dilation=(2, 1, 1), ceil_mode=True)],
                         ids=str)
def test_max_pool3d(kw, dtype):
    check(lambda x: F.max_pool3d(x, return_indices=True, **kw), rand((2, 3, 6, 7, 5), dtype), dtype)
    check(lambda x: F.max_pool3d(x, return_indices=True, **kw), rand((3, 6, 7, 5), dtype), dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)  # CPU has no reduced-precision avg_pool3d
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=(2, 3, 2), ceil_mode=True, divisor_override=3)], ids=str)
def test_avg_pool3d(kw, dtype):
    check(lambda x: F.avg_pool3d(x, **kw), rand((2, 3, 6, 7, 5), dtype), dtype)


@pytest.mark.parametrize("size", [(1, 1, 1), (2, 3, 4), (5, 7, 2)], ids=str)
def test_adaptive_avg_pool3d(size):
    check(lambda x: torch.ops.aten._adaptive_avg_pool3d(x, size), rand((2, 3, 5, 7, 4)), torch.float32)
    check(lambda x: torch.ops.aten._adaptive_avg_pool3d(x, size), rand((3, 5, 7, 4)), torch.float32)


def test_pool3d_channels_last_and_errors():
    (y, _) = check(lambda x: F.max_pool3d(x, 2, return_indices=True), rand((2, 3, 4, 4, 4)), torch.float32,
                   layout=torch.channels_last_3d)
    assert y.is_contiguous(memory_format=torch.channels_last_3d)
    x = rand((2, 3, 4, 4, 4))
    for call, match in [(lambda t: F.max_pool3d(t, 2, padding=2), "pad should be"),
                        (lambda t: F.max_pool3d(t[0, 0], 2), "4D or 5D")]:
        with pytest.raises(RuntimeError, match=match):
            call(x)
        with pytest.raises(RuntimeError, match=match):
            call(x.to("tpu"))


# ---- integers (forward only: no gradient) --------------------------------------

INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def rand_int(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dtype)


def check_exact(fn, x, layout=None):
    xt = x.to("tpu")
    if layout is not None:
        xt = xt.contiguous(memory_format=layout)
    expected = fn(x)
    with torch_tpu.no_fallback():
        actual = fn(xt)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = actual if isinstance(actual, tuple) else (actual,)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        assert torch.equal(a.cpu(), e)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("kw", MAX_CASES, ids=str)
def test_max_pool2d_integers(kw, dtype):
    check_exact(lambda x: F.max_pool2d(x, return_indices=True, **kw), rand_int((2, 3, 9, 8), dtype))
    check_exact(lambda x: F.max_pool2d(x, return_indices=True, **kw), rand_int((3, 7, 7), dtype))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_max_pool_integer_extremes_and_channels_last(dtype):
    # Windows holding only the type's lowest value (first index wins), ties.
    info = torch.iinfo(dtype)
    x = torch.full((1, 2, 4, 4), info.min, dtype=dtype)
    x[0, 1, 1:3, 1:3] = info.max
    check_exact(lambda t: F.max_pool2d(t, 2, 1, return_indices=True), x)
    check_exact(lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True), rand_int((2, 4, 6, 5), dtype),
                layout=torch.channels_last)
    check_exact(lambda t: F.max_pool3d(t, 2, 1, return_indices=True), x.unsqueeze(2).expand(1, 2, 3, 4, 4))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), dilation=(2, 1, 1), ceil_mode=True)],
                         ids=str)
def test_max_pool3d_integers(kw, dtype):
    check_exact(lambda x: F.max_pool3d(x, return_indices=True, **kw), rand_int((2, 3, 6, 7, 5), dtype))


@pytest.mark.parametrize("kw", AVG_CASES + [dict(kernel_size=2, divisor_override=-3)], ids=str)
def test_avg_pool2d_int64(kw):
    # Negative sums: the quotient truncates toward zero, as CPU's int64 division.
    check_exact(lambda x: F.avg_pool2d(x, **kw), rand_int((2, 3, 9, 8), torch.int64))
    check_exact(lambda x: F.avg_pool2d(x, **kw), rand_int((3, 7, 7), torch.int64))
    check_exact(lambda x: F.avg_pool2d(x, **kw), rand_int((2, 3, 9, 8), torch.int64), layout=torch.channels_last)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3, 2), ceil_mode=True, divisor_override=3)], ids=str)
def test_avg_pool3d_int64(kw):
    check_exact(lambda x: F.avg_pool3d(x, **kw), rand_int((2, 3, 6, 7, 5), torch.int64))
    check_exact(lambda x: F.avg_pool3d(x, **kw), rand_int((2, 3, 6, 7, 5), torch.int64),
                layout=torch.channels_last_3d)


def test_integer_pooling_cpu_lacks_stays_rejected():
    # CPU averages no other integer dtype: tpu raises NotImplementedError.
    with pytest.raises(NotImplementedError):
        F.avg_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.int32, device="tpu"), 2)
