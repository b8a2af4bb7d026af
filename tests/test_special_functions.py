"""The special functions of kernels/elementwise/special_functions*.cpp on tpu
against CPU, on the values op_db's samples miss: zeros of both signs, the
infinities, NaN, poles (negative integers of polygamma and zeta), the far
tails of ndtri/log_ndtr/erfcx (down to subnormals), large arguments where
e^x overflows in i0/i1, n out of range, nextafter's bit-exact steps in
float16/bfloat16, and the branch points and far arguments of the Bessel
functions and Airy Ai of special_bessel.cpp."""

import math

import pytest
import torch

FLOATING = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
FLOAT_DOUBLE = [torch.float32, torch.float64]

INF, NAN = float("inf"), float("nan")


def _check(fn, *cpu_args, **kw):
    expected = fn(*cpu_args)
    actual = fn(*[a.to("tpu") if isinstance(a, torch.Tensor) else a for a in cpu_args])
    assert actual.device.type == "tpu"
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, **kw)


def _values(dtype, edges, seed=0, scale=4.0, n=63):
    g = torch.Generator().manual_seed(seed)
    return torch.cat([torch.tensor(edges, dtype=torch.float64),
                      torch.randn(n, generator=g, dtype=torch.float64) * scale]).to(dtype)


# 709.7827: I0's e^x times its asymptotic sum would overflow double, I0 does not
BESSEL_EDGES = [0.0, -0.0, 1e-30, -1e-30, 7.9, 8.0, 8.1, 12.0, 12.5, 20.9, 21.0, 21.5, -21.5,
                30.0, 50.0, 88.0, 88.7, 88.8, -88.8, 89.0, 100.0, 700.0, 709.7, 709.7827, 709.9, 713.0, -713.0,
                1e10, INF, -INF, NAN]


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", ["i0", "special.i0e", "special.i1", "special.i1e"])
def test_bessel_edges(name, dtype):
    fn = {"i0": torch.i0, "special.i0e": torch.special.i0e, "special.i1": torch.special.i1,
          "special.i1e": torch.special.i1e}[name]
    _check(fn, _values(dtype, BESSEL_EDGES, scale=15.0))


NORMAL_EDGES = [0.0, -0.0, 1e-300, 5e-324, -1e-300, 1e-20, 1e-8, 0.5, 0.5 + 1e-12, 0.5 - 1e-12, 0.9,
                0.99999, 1 - 1e-16, 1.0, 1.0 + 1e-12, -0.1, 2.0, INF, -INF, NAN]


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
def test_ndtri_edges(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.cat([torch.tensor(NORMAL_EDGES, dtype=torch.float64),
                   torch.rand(200, generator=g, dtype=torch.float64),
                   10 ** -torch.rand(100, generator=g, dtype=torch.float64).mul(300)]).to(dtype)
    _check(torch.special.ndtri, x)


TAIL_EDGES = [0.0, -0.0, -1.0, -1.0000001, -0.9999999, 1.0, 5.0, -5.0, -6.1, -6.2, -9.3, -9.5, -20.0,
              -26.0, -26.6, -26.7, -26.8, -30.0, -40.0, -1e3, -1e10, 25.9, 26.0, 26.1, 50.0, 1e3, 5e7,
              6e7, 1e10, 1e300, INF, -INF, NAN]


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
@pytest.mark.parametrize("name", ["special.erfcx", "special.log_ndtr"])
def test_normal_tails(name, dtype):
    fn = {"special.erfcx": torch.special.erfcx, "special.log_ndtr": torch.special.log_ndtr}[name]
    _check(fn, _values(dtype, TAIL_EDGES, scale=10.0))


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_entr_and_xlog1py_edges(dtype):
    x = _values(dtype, [0.0, -0.0, -1.0, 1.0, 1e-30, INF, -INF, NAN])
    _check(torch.special.entr, x.abs())
    _check(torch.special.entr, x)
    y = _values(dtype, [NAN, -1.0, -1.0, -2.0, 0.0, INF, -INF, 1e-30], seed=1).flip(0)
    _check(torch.special.xlog1py, x, y)
    _check(lambda a: torch.special.xlog1py(a, 0.5), x)
    _check(lambda b: torch.special.xlog1py(2.0, b), y)


POLE_EDGES = [0.0, -0.0, -1.0, -2.0, -3.0, -2.5, -0.5, 0.5, 1.0, 1e-8, -1e-8, 1e6, 1e20, INF, -INF, NAN]


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, 20, 40])
def test_polygamma_edges(n, dtype):
    x = _values(dtype, POLE_EDGES, scale=5.0)
    if dtype in (torch.float16, torch.bfloat16) and n >= 7:
        # n! exceeds float16; CPU rounds each factor in the dtype, so compare in a looser sense
        _check(lambda t: torch.polygamma(n, t), x, atol=1e-2, rtol=2e-2)
    else:
        _check(lambda t: torch.polygamma(n, t), x)


def test_polygamma_rejects_negative_n():
    x = torch.rand(4)
    with pytest.raises(RuntimeError):
        torch.polygamma(-1, x)
    with pytest.raises(RuntimeError):
        torch.polygamma(-1, x.to("tpu"))


def test_digamma_backward_is_trigamma():
    x = _values(torch.float64, [0.5, -0.5, 3.0], scale=3.0)
    cpu = x.clone().requires_grad_()
    tpu = x.to("tpu").requires_grad_()
    torch.digamma(cpu).sum().backward()
    torch.digamma(tpu).sum().backward()
    torch.testing.assert_close(tpu.grad.cpu(), cpu.grad, equal_nan=True)


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
def test_zeta_edges(dtype):
    s = torch.tensor([1.0, 0.5, -1.0, 2.0, 2.0, 2.5, 3.0, 2.0, 2.0, NAN, NAN, 2.0, 1.0001, 50.0, INF, 2.0, 4.0],
                     dtype=dtype)
    q = torch.tensor([1.0, 1.0, 1.0, 0.0, -2.0, -2.5, -2.5, 1e-8, 1e8, -2.0, 1.0, NAN, 1.0, 1.0, 2.0, INF, -INF],
                     dtype=dtype)
    _check(torch.special.zeta, s, q)
    g = torch.Generator().manual_seed(0)
    s2 = (torch.rand(200, generator=g, dtype=torch.float64) * 10 + 1).to(dtype)
    q2 = (torch.randn(200, generator=g, dtype=torch.float64) * 10).to(dtype)
    _check(torch.special.zeta, s2, q2)
    _check(lambda t: torch.special.zeta(t, 2.0), s2)
    _check(lambda t: torch.special.zeta(3.0, t), q2)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_nextafter_bit_exact(dtype):
    info = torch.finfo(dtype)
    a = torch.tensor([1.0, 0.0, -0.0, 0.0, info.max, info.max, INF, -INF, NAN, 1.0, info.tiny, -info.tiny,
                      info.tiny, 1.0, -1.0, 2.0, -2.0], dtype=dtype)
    b = torch.tensor([2.0, -1.0, 0.0, -0.0, INF, 0.0, 0.0, 0.0, 1.0, NAN, 0.0, 0.0, 1.0, 1.0, -INF, 1.0, -3.0],
                     dtype=dtype)
    a = torch.cat([a, torch.randn(100, generator=torch.Generator().manual_seed(0)).to(dtype)])
    b = torch.cat([b, torch.randn(100, generator=torch.Generator().manual_seed(1)).to(dtype)])
    # a tiny subnormal stepping to zero and back
    sub = torch.tensor([0.0], dtype=dtype)
    sub = torch.nextafter(sub, torch.ones_like(sub))
    a = torch.cat([a, sub, sub])
    b = torch.cat([b, torch.zeros_like(sub), torch.ones_like(sub)])
    expected = torch.nextafter(a, b)
    actual = torch.nextafter(a.to("tpu"), b.to("tpu")).cpu()
    nan = expected.isnan()
    assert torch.equal(actual.isnan(), nan)
    bits = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
            torch.float64: torch.int64}[dtype]
    assert torch.equal(actual[~nan].view(bits), expected[~nan].view(bits))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64], ids=str)
def test_gcd_lcm_extremes(dtype):
    info = torch.iinfo(dtype)
    vals = [0, 1, 2, 6, 12, info.max, info.min, info.max - 1, 35, 49]
    if info.min < 0:
        vals += [-1, -6, -12, -35]
    a = torch.tensor(vals, dtype=dtype)
    a, b = torch.meshgrid(a, a, indexing="ij")
    _check(torch.gcd, a.reshape(-1), b.reshape(-1))
    if dtype in (torch.int32, torch.int64):
        # lcm(min, max): gcd -1, and CPU's min / -1 dies of SIGFPE (tpu wraps)
        vals.remove(info.min)
        a = torch.tensor(vals, dtype=dtype)
        a, b = torch.meshgrid(a, a, indexing="ij")
    _check(torch.lcm, a.reshape(-1), b.reshape(-1))


@pytest.mark.parametrize("dtype", FLOATING + [torch.complex64, torch.complex128, torch.int64, torch.bool], ids=str)
def test_angle_edges(dtype):
    if dtype.is_complex:
        re = torch.tensor([0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 0.0, -1.0, 1.0])
        im = torch.tensor([0.0, 0.0, -0.0, -0.0, INF, 1.0, 0.0, NAN, -INF, 2.0])
        x = torch.complex(re, im).to(dtype)
    elif dtype == torch.bool:
        x = torch.tensor([True, False])
    elif dtype.is_floating_point:
        x = torch.tensor([0.0, -0.0, 1.0, -1.0, INF, -INF, NAN], dtype=dtype)
    else:
        x = torch.tensor([0, 1, -1, 5, -7], dtype=dtype)
    _check(torch.angle, x)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_edges(name, dtype):
    fn = getattr(torch, name)
    a = torch.tensor([0.0, 0.0, 0.0, 1.0, INF, INF, 1.0, -1.0, 1.0, NAN, 1.0, NAN, 0.5, 1e-3, 3.0, 50.0, 100.0,
                      1e-3, 0.1, 2.5, 30.0, 1e3], dtype=dtype)
    x = torch.tensor([1.0, 0.0, NAN, 0.0, 1.0, INF, INF, 1.0, -1.0, 0.0, NAN, 1.0, 0.5, 1e-3, 0.1, 45.0, 130.0,
                      20.0, 1.2, 2.5, 29.0, 1010.0], dtype=dtype)
    _check(fn, a, x)
    g = torch.Generator().manual_seed(0)
    a2 = (torch.rand(300, generator=g, dtype=torch.float64) * 20).to(dtype)
    x2 = (torch.rand(300, generator=g, dtype=torch.float64) * 25).to(dtype)
    _check(fn, a2, x2)


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
def test_scalar_overloads_run_on_tpu(dtype):
    """The Scalar overloads of xlog1py and zeta are CompositeExplicitAutograd
    upstream (a wrapped scalar, then the Tensor overload): no entry, no
    fallback (Python's torch.special.* never calls them: they are reached
    through aten directly)."""
    aten = torch.ops.aten
    x = torch.rand(16, dtype=dtype) * 4 + 1
    _check(lambda t: aten.special_xlog1py.self_scalar(2.5, t), x)
    _check(lambda t: aten.special_xlog1py.other_scalar(t, 2.5), x)
    _check(lambda t: aten.special_zeta.self_scalar(3.0, t), x)
    _check(lambda t: aten.special_zeta.other_scalar(t, 2.0), x)


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_edges(name, dtype):
    """Both ends of the interval (x = +-1, and 0, 1 for the shifted ones),
    degrees around CPU's switch to the trigonometric forms (4, 6, 8) and the
    Hermite limits (128, 512), negative, NaN and infinite n, NaN and infinite x."""
    fn = getattr(torch.special, name)
    xs = torch.tensor([-1.0, 1.0, 0.0, 0.5, -0.5, 0.999, -0.999, 0.25, 2.0, -3.0, INF, -INF, NAN], dtype=torch.float64)
    ns = torch.tensor([-1.0, 0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 12.5, 30.0, 128.0, 129.0, 512.0, 513.0,
                       NAN, INF, -INF, 1e30], dtype=torch.float64)
    x, n = torch.meshgrid(xs, ns, indexing="ij")
    _check(fn, x.reshape(-1).to(dtype), n.reshape(-1).to(dtype))


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
def test_spherical_bessel_j0_edges(dtype):
    x = _values(dtype, [0.0, -0.0, 0.4999, 0.5, -0.5, 1e-20, 3.14159, 1e30, INF, -INF, NAN], scale=5.0)
    _check(torch.special.spherical_bessel_j0, x)


# Each function's branch points (J/Y: 1e-5 and 5; K: 2; I: 8 and e^x's
# overflow; Ai: +-2.09, 8.3203353, 103.892), zeros of J0, J1, Y0, Y1, tiny and
# subnormal arguments, negative ones (NaN for Y and K), and large ones where
# x^2 or x^(3/2) overflows and the phase x - pi/4 is all rounding.
BESSEL_JY_EDGES = [0.0, -0.0, 1e-30, -1e-30, 1e-45, 1e-310, 9.9e-6, 1e-5, 1.1e-5, 0.8935769662791675,
                   2.197141326031017, 2.404825557695773, 3.8317059702075125, 4.999999, 5.0, 5.000001, -5.0,
                   -5.000001, 1e3, 1e5, 1e10, 1e15, 1e20, 1e30, 1e38, 1e300, -1e300, INF, -INF, NAN]
BESSEL_K_EDGES = [0.0, -0.0, 1e-45, 1e-310, 1e-30, 1e-8, 1.4, 1.9999999, 2.0, 2.0000001, 50.0, 88.0, 89.0,
                  103.0, 104.0, 700.0, 708.0, 710.0, 750.0, 1e10, 1e38, 1e300, -1.0, -1e-30, INF, -INF, NAN]
BESSEL_I_EDGES = [0.0, -0.0, 1e-45, -1e-45, 1e-310, 1e-30, 7.9, 8.0, 8.1, 21.0, 88.7, 88.72, 88.8, -88.8,
                  89.0, 709.7, 709.7827, 709.79, 713.0, -713.0, 1e10, INF, -INF, NAN]
AIRY_EDGES = [0.0, -0.0, 1e-30, -2.08999, -2.09, -2.0900001, 2.0899999, 2.09, 8.32033, 8.3203353, 8.32034,
              103.89, 103.892, 103.9, 1e3, -1e3, -1e10, -1e20, -1e30, -1e38, -1e300, 1e300, INF, -INF, NAN]
BESSEL_FUNCTIONS = {
    "bessel_j0": BESSEL_JY_EDGES, "bessel_j1": BESSEL_JY_EDGES, "bessel_y0": BESSEL_JY_EDGES,
    "bessel_y1": BESSEL_JY_EDGES, "modified_bessel_i0": BESSEL_I_EDGES, "modified_bessel_i1": BESSEL_I_EDGES,
    "modified_bessel_k0": BESSEL_K_EDGES, "modified_bessel_k1": BESSEL_K_EDGES,
    "scaled_modified_bessel_k0": BESSEL_K_EDGES, "scaled_modified_bessel_k1": BESSEL_K_EDGES,
    "airy_ai": AIRY_EDGES,
}


@pytest.mark.parametrize("dtype", FLOAT_DOUBLE, ids=str)
@pytest.mark.parametrize("name", list(BESSEL_FUNCTIONS))
def test_bessel_and_airy_edges(name, dtype):
    """op_db's samples stay within a few tens of 0: add the edges above and
    a sweep of |x| up to 1e20 of both signs."""
    g = torch.Generator().manual_seed(0)
    sweep = 10 ** (torch.rand(100, generator=g, dtype=torch.float64) * 20)
    sign = torch.where(torch.rand(100, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
    x = torch.cat([torch.tensor(BESSEL_FUNCTIONS[name], dtype=torch.float64),
                   torch.randn(100, generator=g, dtype=torch.float64) * 10, sweep * sign]).to(dtype)
    _check(getattr(torch.special, name), x)
