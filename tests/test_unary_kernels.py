"""The unary elementwise family on tpu against CPU eager, where the generated
OpInfo tests do not reach: large tensors (the vectorized loops and their
tails, split over the device cores), special values (inf, NaN, signed zeros,
overflow and underflow ranges), float16/bfloat16 computed in float,
non-contiguous inputs and outputs, in-place and out= forms, bool results of
the predicates, gelu's two approximations forward and backward through
autograd, and no host fallback anywhere.

The float approximations (csrc/kernels/common/vec_math.h) are a few ulp from CPU's
SLEEF-based ones, so values are compared with OpInfo's default tolerances
(torch.testing.assert_close), the predicates and rounding ops exactly; the
complex ops call CPU's own functions and are compared bit for bit."""

import math

import pytest
import torch
import torch.nn.functional as F

torch_tpu = pytest.importorskip("torch_tpu")

FLOATING = [torch.float32, torch.float64, torch.float16, torch.bfloat16]

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-30, -1e-30, 1e-45, 1e-3, 3.0, -3.0, 9.0, -9.0,
            20.0, -20.0, 88.0, 88.7, 89.0, -87.0, -103.0, -104.0, 1e10, -1e10, 3e38, -3e38,
            math.inf, -math.inf, math.nan]


def values(dtype, n=70001, scale=4.0, seed=0):
    """n values of dtype: specials first, then normal random values (an odd
    count, so the loops' tails run)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=g, dtype=torch.float64) * scale
    x[: len(SPECIALS)] = torch.tensor(SPECIALS, dtype=torch.float64)
    return x.to(dtype)


def strided(t):
    """t's values in a non-contiguous tensor (CPU takes its native kernels)."""
    return torch.stack([t, t], dim=-1)[..., 0]


def check(fn, *cpu_args, exact=False, native=False, tol=None, **kw):
    """fn on tpu copies of cpu_args vs fn on CPU; no host fallback. native:
    the CPU reference runs on non-contiguous copies, so that CPU takes ATen's
    own kernel (float32 contiguous gelu goes to oneDNN, which gives NaN for
    gelu(inf) and inf for gelu(3e38); ATen's kernel, CUDA's and tpu's give
    inf and 3e38)."""
    tol = tol or {}
    expected = fn(*[strided(a) if native else a for a in cpu_args], **kw)
    with torch_tpu.no_fallback():
        actual = fn(*[a.to("tpu") if isinstance(a, torch.Tensor) else a for a in cpu_args], **kw)
    if isinstance(expected, torch.Tensor):
        expected, actual = (expected,), (actual,)
    for a, e in zip(actual, expected):
        assert a.device.type == "tpu"
        a = a.cpu()
        if exact:
            torch.testing.assert_close(a, e, rtol=0, atol=0, equal_nan=True)
        else:
            torch.testing.assert_close(a, e, equal_nan=True, **tol)


UNARY_FLOAT = {
    "exp": torch.exp, "exp2": torch.exp2, "expm1": torch.expm1, "log": torch.log, "log1p": torch.log1p,
    "log2": torch.log2, "log10": torch.log10, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin,
    "cos": torch.cos, "tan": torch.tan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "erf": torch.erf,
    "reciprocal": torch.reciprocal, "silu": F.silu,
    "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
def test_unary_float_ops_match_cpu(name, dtype):
    fn = UNARY_FLOAT[name]
    x = values(dtype)
    if name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        x = torch.cat([x, x.abs()])  # half of them in the domain
    check(fn, x, native=name.startswith("gelu"))


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sqrt", "gelu_tanh", "erf"])
def test_non_contiguous_in_place_and_out(name):
    fn = UNARY_FLOAT[name]
    x = values(torch.float32, n=3 * 1000 * 7).reshape(3, 1000, 7).abs()
    check(lambda t: fn(t.transpose(0, 2)), x)  # strided input
    check(lambda t: fn(t[:, ::3]), x)
    if name in ("gelu_tanh",):
        return
    op = getattr(torch, name)
    # out= of another dtype (CPU casts the float32 result into it: float32's
    # tolerance applies)
    check(lambda t: op(t, out=torch.empty(t.shape, dtype=torch.float64, device=t.device)), x,
          tol=dict(rtol=1.3e-6, atol=1e-5))
    # non-contiguous out=
    check(lambda t: op(t, out=torch.empty(t.shape[::-1], device=t.device).transpose(0, 2)), x)
    # in place on a view
    check(lambda t: getattr(t.clone()[:, 1:], name + "_")(), x)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.bool], ids=str)
def test_integer_inputs_promote_to_float(dtype):
    x = torch.arange(-50, 50).to(dtype) if dtype != torch.bool else torch.arange(100) % 3 == 0
    for fn in (torch.exp, torch.sqrt, torch.log1p, torch.sigmoid, torch.erf, torch.reciprocal, torch.rsqrt):
        check(fn, x)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_rounding_and_sign_are_exact(dtype):
    x = values(dtype, scale=300.0)
    x = torch.cat([x, torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.5001], dtype=dtype)])
    for fn in (torch.floor, torch.ceil, torch.round, torch.trunc, torch.frac, torch.sign, torch.sgn):
        check(fn, x, exact=True)
    for decimals in (0, 1, 2, -1, -2):
        check(lambda t: torch.round(t, decimals=decimals), x, exact=True)


def test_sign_of_integers_and_bool():
    for dtype in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
        check(torch.sign, torch.arange(-100, 100).to(dtype), exact=True)
    check(torch.sign, torch.arange(10) % 2 == 0, exact=True)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_predicates_write_bool(dtype):
    x = values(dtype)
    for fn in (torch.isneginf, torch.isposinf, torch.isnan):
        check(fn, x, exact=True)
        check(lambda t: fn(t[::3]), x, exact=True)
    y = x[:300].reshape(30, 10)
    check(lambda t: torch.isneginf(t.t(), out=torch.empty(10, 30, dtype=torch.bool, device=t.device)), y,
          exact=True)
    check(lambda t: torch.isnan(t.t()), y, exact=True)  # strided input: output laid out like it


def test_predicates_on_integers_are_false():
    x = torch.arange(-5, 5)
    for fn in (torch.isneginf, torch.isposinf, torch.isnan):
        check(fn, x, exact=True)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_forward_backward_autograd(approximate, dtype):
    x = values(dtype, n=5001, seed=1)
    x = x[torch.isfinite(x.float())]
    g = values(dtype, n=x.numel(), seed=2)
    g = torch.where(torch.isfinite(g.float()), g, torch.zeros((), dtype=dtype))

    def fwd_bwd(t, grad):
        t = t.detach().requires_grad_()
        y = F.gelu(t, approximate=approximate)
        y.backward(grad)
        return y.detach(), t.grad

    check(fwd_bwd, x, g, native=True)
    check(lambda t, d: torch.ops.aten.gelu_backward(d, t, approximate=approximate), x, g, native=True)


def test_gelu_forms_and_errors():
    x = values(torch.float32, n=1000)
    check(lambda t: torch.ops.aten.gelu_(t.clone(), approximate="tanh"), x)
    check(lambda t: torch._C._nn.gelu(t, approximate="tanh", out=torch.empty_like(t)), x)
    check(lambda t, d: torch.ops.aten.gelu_backward.grad_input(d, t, approximate="none",
                                                               grad_input=torch.empty_like(t)), x, x.flip(0))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x.to("tpu"), approximate="bogus")
    with pytest.raises((RuntimeError, NotImplementedError)):
        F.gelu(torch.arange(3, device="tpu"))


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_backward_formulas(dtype):
    x = values(dtype, n=4001, scale=2.0)
    g = values(dtype, n=4001, seed=3)
    y_sig, y_tanh = torch.sigmoid(x.float()).to(dtype), torch.tanh(x.float()).to(dtype)
    check(torch.ops.aten.sigmoid_backward, g, y_sig)
    check(torch.ops.aten.tanh_backward, g, y_tanh)
    check(torch.ops.aten.silu_backward, g, x)
    check(lambda d, t: torch.ops.aten.threshold_backward(d, t, 0.0), g, x, exact=True)
    # grad_input= forms, into non-contiguous outputs
    for op, y in ((torch.ops.aten.sigmoid_backward, y_sig), (torch.ops.aten.tanh_backward, y_tanh),
                  (torch.ops.aten.silu_backward, x)):
        check(lambda d, t: op(d, t, grad_input=torch.empty(2 * d.numel(), dtype=d.dtype, device=d.device)[::2]),
              g, y)
    check(lambda d, t: torch.ops.aten.threshold_backward(
        d, t, 0.5, grad_input=torch.empty(2 * d.numel(), dtype=d.dtype, device=d.device)[::2]), g, x, exact=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.uint8], ids=str)
def test_threshold(dtype):
    x = torch.arange(-300, 300).to(dtype) if not dtype.is_floating_point else values(dtype, n=601)
    check(lambda t: torch.threshold(t, 1, 20), x, exact=True)
    check(lambda t: F.threshold(t, 0.5, -3.0) if t.dtype.is_floating_point else F.threshold(t, 2, 7), x,
          exact=True)


def test_silu_autograd():
    x = values(torch.float32, n=3001)
    x = x[torch.isfinite(x)]

    def silu_grad(t):
        t = t.detach().requires_grad_()
        F.silu(t).backward(torch.ones_like(t))
        return t.grad

    check(silu_grad, x)


def test_second_device_and_side_stream():
    if torch.tpu.device_count() < 2:
        pytest.skip("one device")
    x = values(torch.float32, n=100001)
    expected = F.gelu(x, approximate="tanh")
    s = torch.tpu.Stream(device="tpu:1")
    with torch.tpu.stream(s):
        y = F.gelu(x.to("tpu:1"), approximate="tanh")
        e = torch.exp(x.to("tpu:1"))
    # .cpu() below copies on tpu:1's current (default) stream: as with CUDA,
    # it is ordered after the side stream's kernels only when asked to.
    torch.tpu.current_stream(1).wait_stream(s)
    assert y.device == torch.device("tpu:1")
    torch.testing.assert_close(y.cpu(), expected, equal_nan=True)
    torch.testing.assert_close(e.cpu(), torch.exp(x), equal_nan=True)


# Complex inputs: CPU's own functions (csrc/kernels/elementwise/complex_math.h),
# so the bits agree exactly, special values (inf/NaN parts, signed zeros,
# overflow) included, for contiguous and strided inputs alike.
UNARY_COMPLEX = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
                 "sigmoid", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh",
                 "acosh", "atanh"]
COMPLEX_PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.14159, 1e-3, 1e-20, -1e-40, 1e20, -1e38, 88.0, -100.0,
                 700.0, 1e300, math.inf, -math.inf, math.nan]


def complex_values(dtype, n=20001):
    """Every pair of COMPLEX_PARTS, then random values at a few scales (near 1
    too, where expm1/log1p cancel)."""
    g = torch.Generator().manual_seed(0)
    grid = torch.tensor([complex(a, b) for a in COMPLEX_PARTS for b in COMPLEX_PARTS], dtype=torch.complex128)
    r = torch.complex(torch.randn(n, generator=g, dtype=torch.float64), torch.randn(n, generator=g, dtype=torch.float64))
    return torch.cat([grid, r, r * 30, r * 1e-4, r * 1e-3 + 1]).to(dtype)


def assert_same_bits(actual, expected):
    """Equal parts (NaNs equal whatever their sign), signed zeros included."""
    a, e = torch.view_as_real(actual.cpu()), torch.view_as_real(expected)
    torch.testing.assert_close(a, e, rtol=0, atol=0, equal_nan=True)
    zero = (e == 0)
    assert torch.equal(torch.signbit(a[zero]), torch.signbit(e[zero]))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("name", UNARY_COMPLEX)
def test_complex_unary_ops_match_cpu_exactly(name, dtype):
    fn = getattr(torch, name)
    x = complex_values(dtype)
    with torch_tpu.no_fallback():
        xt = x.to("tpu")
        assert_same_bits(fn(xt), fn(x))
        # CPU's contiguous result in both layouts (CPU's strided log1p differs
        # from its contiguous one in the last bit of one value here)
        assert_same_bits(fn(strided(xt)), fn(x))
        torch.testing.assert_close(fn(strided(xt)).cpu(), fn(strided(x)), equal_nan=True)
        out = torch.empty(2 * x.numel(), dtype=dtype, device="tpu")[::2]
        fn(xt, out=out)
        assert_same_bits(out, fn(x))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_backward_formulas_match_cpu(dtype):
    x = complex_values(dtype, n=2001)
    g = x.flip(0)
    # tpu computes every element as CPU's vectorized loop (unfused complex
    # products); CPU's scalar loop, which runs the last numel % 16 elements,
    # fuses them for complex64: exact up to there, close after.
    vec = x.numel() // 16 * 16
    for op, y in ((torch.ops.aten.sigmoid_backward, torch.sigmoid(x)), (torch.ops.aten.tanh_backward, torch.tanh(x))):
        with torch_tpu.no_fallback():
            actual = op(g.to("tpu"), y.to("tpu")).cpu()
        expected = op(g, y)
        assert_same_bits(actual[:vec], expected[:vec])
        torch.testing.assert_close(actual, expected, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_silu_and_backward_match_cpu(dtype):
    # CPU's vectorized x / (1 + exp(-x)) and dy s (1 + x (1 - s)) (no
    # conjugate); exp's and the division's last bit differ for a few values.
    x = complex_values(dtype, n=4001)
    g = x.flip(0)
    check(F.silu, x)
    check(torch.ops.aten.silu_backward, g, x)
    check(lambda d, t: torch.ops.aten.silu_backward(d, t, grad_input=torch.empty(
        2 * d.numel(), dtype=d.dtype, device=d.device)[::2]), g, x)


def test_complex_erf_is_rejected():
    # CPU has no complex erf either (NotImplementedError); tpu refuses it before running.
    z = torch.ones(3, dtype=torch.complex64, device="tpu")
    with pytest.raises(NotImplementedError):
        torch.erf(z)
