"""The binary/ternary elementwise stub kernels (csrc/aten/native/elementwise/{compare,
minmax,divpow,pointwise}.cpp) end to end against CPU eager: comparisons,
logical and bitwise ops, maximum/minimum/fmax/fmin, clamp in all its forms,
where, division with rounding, remainder, fmod, pow, atan2, hypot, lerp,
addcmul, addcdiv; over every dtype, broadcasts, strides, Python and CPU
scalars, type promotion, out= (also of another dtype) and in-place forms;
and dtype casts through _to_copy.

Exact ops are compared bit for bit with CPU's vectorized path (see
test_elementwise_stub_kernels.reference); pow/atan2/hypot, which CPU computes
with SLEEF, within 1-2 ulp."""

import pytest
import torch

from conftest import ALL_DTYPES, make_tensor
from test_elementwise_stub_kernels import assert_same, reference, same_error, special_values

import torch_tpu  # noqa: F401  (a missing backend fails the module; it never skips it)


ERRORS = (RuntimeError, NotImplementedError, TypeError)

# name -> fn(a, b) of two tensors; exact on CPU's vector path.
EXACT_BINARY = {
    "div_trunc": lambda a, b, **k: torch.div(a, b, rounding_mode="trunc", **k),
    "div_floor": lambda a, b, **k: torch.div(a, b, rounding_mode="floor", **k),
    "floor_divide": torch.floor_divide,
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "fmax": torch.fmax,
    "fmin": torch.fmin,
    "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge,
    "logical_and": torch.logical_and,
    "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor,
    "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor,
    "lshift": torch.bitwise_left_shift,
    "rshift": torch.bitwise_right_shift,
    "clamp_min_t": torch.clamp_min,
    "clamp_max_t": torch.clamp_max,
    "lerp_s": lambda a, b, **k: torch.lerp(a, b, 0.3, **k),
    "lerp_s_big": lambda a, b, **k: torch.lerp(a, b, 0.75, **k),
    "addcdiv": lambda a, b, **k: torch.addcdiv(a, b, a, value=0.7, **k),
    "addcmul": lambda a, b, **k: torch.addcmul(a, a, b, value=0.3 if a.is_floating_point() or a.is_complex()
                                               else 3, **k),
    "pow_sq": lambda a, b, **k: torch.pow(a, 2, **k),
    "pow_cube": lambda a, b, **k: torch.pow(a, 3, **k),
}
# Computed with transcendental functions: tolerances.
APPROX_BINARY = {
    "pow": torch.pow,
    "pow_s": lambda a, b, **k: torch.pow(a, 2.5, **k),
    "atan2": torch.atan2,
    "hypot": torch.hypot,
}
UNARY = {
    "logical_not": torch.logical_not,
    "bitwise_not": torch.bitwise_not,
    "clamp_s": lambda a, **k: torch.clamp(a, -1, 5, **k),
    "clamp_min_s": lambda a, **k: torch.clamp_min(a, 2, **k),
    "clamp_max_s": lambda a, **k: torch.clamp_max(a, 3, **k),
    "clamp_min_only": lambda a, **k: torch.clamp(a, min=0, **k),
    "pow_half": lambda a, **k: torch.pow(a, 0.5, **k),
    "pow_rsqrt": lambda a, **k: torch.pow(a, -0.5, **k),
    "pow_recip": lambda a, **k: torch.pow(a, -1, **k),
    "pow_inv_sq": lambda a, **k: torch.pow(a, -2, **k),
    "pow_int": lambda a, **k: torch.pow(a, 5, **k),
}
TERNARY = {
    "where": lambda a, b, c, **k: torch.where(c.bool() if c.dtype != torch.bool else c, a, b, **k),
    "clamp_t": lambda a, b, c, **k: torch.clamp(a, b, c, **k),
    "lerp_t": lambda a, b, c, **k: torch.lerp(a, b, c, **k),
    "addcmul3": lambda a, b, c, **k: torch.addcmul(a, b, c, **k),
    "addcdiv3": lambda a, b, c, **k: torch.addcdiv(a, b, c, value=-2, **k),
}
APPROX_UNARY = {"pow_half", "pow_rsqrt"}


def close(actual, expected, dtype):
    assert actual.device.type == "tpu"
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    tol = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 1e-5, torch.float64: 1e-12,
           torch.complex64: 1e-5, torch.complex128: 1e-12}.get(expected.dtype)
    if tol is None:
        assert torch.equal(actual, expected), (actual, expected)
    else:
        torch.testing.assert_close(actual, expected, rtol=tol, atol=tol, equal_nan=True)


def raises_as_on_cpu(cpu_error, tpu_call):
    """Where CPU raises, tpu raises the same exception type (what a bare
    `continue` after CPU's error would never check)."""
    with pytest.raises(Exception) as tpu_error:
        tpu_call()
        torch.tpu.synchronize()  # a kernel's error (integer division by zero) shows at the next sync
    assert type(tpu_error.value) is type(cpu_error), (cpu_error, tpu_error.value)


def check(fn, cpu_args, tpu_args, approx=False):
    """fn on tpu equals fn on CPU (its vector path), or raises the same error."""
    try:
        expected = reference(fn, *cpu_args)
    except ERRORS:
        same_error(lambda: fn(*cpu_args), lambda: fn(*tpu_args))
        return
    with torch_tpu.no_fallback():
        actual = fn(*tpu_args)
    if approx:
        close(actual, expected, expected.dtype)
    else:
        assert_same(actual, expected)


def divisors(dtype, seed):
    """Special values without integer zeros (CPU raises ZeroDivisionError)."""
    b = special_values(dtype, seed=seed).repeat(8)[:500]
    if not (dtype.is_floating_point or dtype.is_complex or dtype == torch.bool):
        b = torch.where(b == 0, torch.ones_like(b), b)
    return b


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(EXACT_BINARY) + list(APPROX_BINARY))
def test_binary_every_dtype_matches_cpu(name, dtype):
    fn = EXACT_BINARY.get(name) or APPROX_BINARY[name]
    a = special_values(dtype, seed=1).repeat_interleave(8)[:500]
    b = divisors(dtype, seed=2)
    if name in ("lshift", "rshift") and dtype != torch.bool:
        b = torch.arange(-3, 497).remainder(80).to(dtype) if dtype.is_signed else torch.arange(500).remainder(80).to(
            dtype)
    if name in ("pow",) and not (dtype.is_floating_point or dtype.is_complex) and dtype != torch.bool:
        b = torch.arange(500).remainder(9).to(dtype)  # integer powers that do not all overflow
    if name == "pow" and dtype in (torch.float32, torch.float64):
        a = a.abs()  # negative bases to non-integer powers: NaN either way, keep the finite checks meaningful
    check(fn, (a, b), (a.tpu(), b.tpu()), approx=name in APPROX_BINARY or (name.startswith("pow") and
                                                                          dtype.is_complex))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_forms_every_dtype_matches_cpu(name, dtype):
    fn = UNARY[name]
    a = special_values(dtype, n=300, seed=3)
    if name == "pow_int" and not (dtype.is_floating_point or dtype.is_complex):
        a = torch.arange(-150, 150).remainder(7).to(dtype)
    # pow(x, +-0.5) is CPU's sqrt/rsqrt kernel, which computes float/double
    # with MKL's VML (not always correctly rounded); tpu's sqrt is IEEE.
    approx = name in APPROX_UNARY or (name == "pow_int" and (dtype.is_floating_point or dtype.is_complex))
    check(fn, (a,), (a.tpu(),), approx=approx)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(TERNARY))
def test_ternary_every_dtype_matches_cpu(name, dtype):
    fn = TERNARY[name]
    a = special_values(dtype, seed=4).repeat_interleave(8)[:500]
    b = divisors(dtype, seed=5)
    c = special_values(dtype, n=500, seed=6)
    if name == "lerp_t" and (dtype.is_floating_point or dtype.is_complex):
        # Weights on both sides of 0.5, equal in pairs: CPU's AVX-512 complex64
        # lerp picks element 2k+1's formula by element 2k's weight (its blendv
        # reads the mask of the pair's first element), tpu by its own weight.
        c = (torch.arange(500) // 2 % 11 / 5 - 0.5).to(dtype)
    if name == "clamp_t" and dtype in (torch.uint16, torch.uint32, torch.uint64):
        pass  # CPU's minimum (used to order the bounds) rejects them; clamp raises too
    elif name == "clamp_t" and dtype != torch.bool and not dtype.is_complex:
        b = torch.minimum(b, c)
    if name == "addcdiv3":
        c = divisors(dtype, seed=7)
    check(fn, (a, b, c), (a.tpu(), b.tpu(), c.tpu()))


LAYOUTS = [
    ((4, 5), (4, 5), (4, 5)),
    ((3, 1, 5), (1, 4, 5), (5,)),
    ((6, 7), (7,), (6, 1)),
    ((1,), (3, 4), ()),
]


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64, torch.complex64], ids=str)
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_broadcasts_and_strides(layout, dtype):
    sa, sb, sc = LAYOUTS[layout]
    a, b, c = (make_tensor(s, dtype, seed=10 + i) for i, s in enumerate((sa, sb, sc)))
    b = torch.where(b == 0, torch.ones_like(b), b) if dtype != torch.bool else b
    for name, fn in {**EXACT_BINARY, **APPROX_BINARY}.items():
        if name in ("pow_sq", "pow_cube", "pow_s"):
            continue  # unary: the reference would broadcast a to b's shape
        check(fn, (a, b), (a.tpu(), b.tpu()), approx=name in APPROX_BINARY or name.startswith("pow"))
    for name, fn in TERNARY.items():
        check(fn, (a, b, c), (a.tpu(), b.tpu(), c.tpu()))
    # Transposed and strided views.
    big_a, big_b = make_tensor((9, 8), dtype, seed=20), make_tensor((9, 8), dtype, seed=21)
    big_b = torch.where(big_b == 0, torch.ones_like(big_b), big_b) if dtype != torch.bool else big_b
    for view in (lambda t: t.t(), lambda t: t[::2, 1::3], lambda t: t[:, :1].expand(9, 5)):
        for name, fn in EXACT_BINARY.items():
            check(fn, (view(big_a), view(big_b)), (view(big_a.tpu()), view(big_b.tpu())))
        for name, fn in UNARY.items():
            check(fn, (view(big_a),), (view(big_a.tpu()),), approx=name in APPROX_UNARY or name == "pow_int")


SCALARS = [2, -3, 0.1, 2.5, True, False, 1 + 2j]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_python_and_cpu_scalars(dtype):
    """Python numbers and CPU 0-dim tensors on either side; promotion as CPU."""
    x = make_tensor((33,), dtype, seed=30)
    t = x.tpu()
    ops = [torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge, torch.maximum, torch.minimum,
           torch.remainder, torch.fmod, torch.logical_and, torch.logical_or, torch.bitwise_and, torch.bitwise_xor,
           lambda a, b: torch.div(a, b, rounding_mode="floor"), lambda a, b: torch.div(a, b, rounding_mode="trunc"),
           torch.clamp_min, torch.clamp_max]
    for s in SCALARS:  # float16 and a complex number compute in complex32
        for scalar in (s, torch.tensor(s)):
            for fn in ops:
                if isinstance(scalar, torch.Tensor) and fn in (torch.clamp_min, torch.clamp_max):
                    # clamp_min.Tensor checks devices first (no CPU-scalar exception), as on CUDA
                    with pytest.raises(RuntimeError, match="same device"):
                        fn(t, scalar)
                    continue
                try:
                    expected = reference(fn, x, scalar)
                except ERRORS as e:
                    raises_as_on_cpu(e, lambda: fn(t, scalar))
                    continue
                with torch_tpu.no_fallback():
                    assert_same(fn(t, scalar), expected)
            for op in (lambda a, b: a == b, lambda a, b: a < b, lambda a, b: b > a, lambda a, b: a // b,
                       lambda a, b: a % b, lambda a, b: a & b, lambda a, b: torch.where(a != 0, a, b),
                       lambda a, b: torch.where(a != 0, b, a)) + (
                       () if isinstance(scalar, torch.Tensor) else  # clamp.Tensor checks devices
                       (lambda a, b: torch.clamp(a, b), lambda a, b: torch.clamp(a, max=b))):
                try:
                    expected = reference(op, x, scalar)
                except ERRORS as e:
                    raises_as_on_cpu(e, lambda: op(t, scalar))
                    continue
                assert_same(op(t, scalar), expected)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_reduced_division_rounding_paths(dtype):
    """CPU divides float16/bfloat16 by a tensor with every step rounded to the
    dtype, and by a scalar in float with the scalar unrounded."""
    a = torch.linspace(-3000, 3000, 4001).to(dtype)
    b = torch.linspace(0.3, 7.9, 4001).to(dtype).flip(0)
    for mode in ("trunc", "floor"):
        assert_same(torch.div(a.tpu(), b.tpu(), rounding_mode=mode), reference(
            lambda p, q: torch.div(p, q, rounding_mode=mode), a, b))
        for s in (0.1, 1 / 3, 7, torch.tensor(0.3), torch.tensor(0.3, dtype=torch.float64)):
            assert_same(torch.div(a.tpu(), s, rounding_mode=mode), reference(
                lambda p: torch.div(p, s, rounding_mode=mode), a))
        assert_same(torch.div(a.tpu(), torch.tensor(0.3).tpu(), rounding_mode=mode),
                    reference(lambda p: torch.div(p, torch.tensor(0.3), rounding_mode=mode), a))


def test_type_promotion_and_out_dtypes():
    i = make_tensor((4, 5), torch.int32, seed=40)
    f = make_tensor((4, 5), torch.float32, seed=41)
    h = make_tensor((4, 5), torch.float16, seed=42)
    bo = make_tensor((4, 5), torch.bool, seed=43)
    u = make_tensor((4, 5), torch.uint8, seed=44)
    pairs = [(i, f), (f, i), (i, h), (h, f), (bo, i), (bo, f), (u, i), (u, bo), (h, torch.tensor(3))]
    for a, b in pairs:
        for name, fn in EXACT_BINARY.items():
            bb = torch.where(b == 0, torch.ones_like(b), b) if b.dtype != torch.bool else b
            if b.dim() == 0 and name in ("clamp_min_t", "clamp_max_t", "addcdiv", "addcmul", "lerp_s",
                                         "lerp_s_big"):
                continue  # these check devices (no CPU-scalar exception for that operand), as on CUDA
            if b.dtype == torch.bool and not a.is_floating_point() and name.split("_")[0] in (
                    "div", "floor", "remainder", "fmod"):
                continue  # integer division by False: ZeroDivisionError, raised on tpu at the next sync
            check(fn, (a, bb), (a.tpu(), bb.tpu() if bb.dim() else bb))
    # Comparisons and logical ops into out= tensors of other dtypes: 0/1 cast.
    for fn in (torch.eq, torch.lt, torch.ge, torch.logical_and, torch.logical_xor):
        for out_dtype in (torch.float32, torch.int64, torch.uint8, torch.bool):
            out = torch.empty(4, 5, dtype=out_dtype, device="tpu")
            fn(i.tpu(), f.tpu(), out=out)
            assert_same(out, fn(i, f, out=torch.empty(4, 5, dtype=out_dtype)))
    out = torch.empty(4, 5, dtype=torch.float64, device="tpu")
    torch.logical_not(h.tpu(), out=out)
    assert_same(out, torch.logical_not(h, out=torch.empty(4, 5, dtype=torch.float64)))
    # maximum into a wider out=.
    out = torch.empty(4, 5, dtype=torch.float64, device="tpu")
    torch.maximum(i.tpu(), h.tpu(), out=out)
    assert_same(out, torch.maximum(i, h).double())


@pytest.mark.parametrize("dtype", [torch.int16, torch.float16, torch.float32, torch.float64], ids=str)
def test_out_and_in_place(dtype):
    a, b, c = (make_tensor((6, 7), dtype, seed=50 + k) for k in range(3))
    b = torch.where(b == 0, torch.ones_like(b), b)
    ta, tb, tc = a.tpu(), b.tpu(), c.tpu()
    for name, fn in EXACT_BINARY.items():
        try:
            expected = reference(fn, a, b)
        except ERRORS as e:
            raises_as_on_cpu(e, lambda: fn(ta, tb))
            continue
        for out in (torch.zeros(6, 7, dtype=expected.dtype, device="tpu"),
                    torch.zeros(7, 6, dtype=expected.dtype, device="tpu").t(),
                    torch.zeros(12, 14, dtype=expected.dtype, device="tpu")[::2, 1::2]):
            ptr, strides = out.data_ptr(), out.stride()
            fn(ta, tb, out=out)
            assert (out.data_ptr(), out.stride()) == (ptr, strides)
            assert_same(out, expected)
    inplace = [
        lambda x, y, z: x.clamp_(-3, 4), lambda x, y, z: x.clamp_(min=y), lambda x, y, z: x.clamp_(y, z),
        lambda x, y, z: x.clamp_min_(1), lambda x, y, z: x.clamp_max_(y), lambda x, y, z: x.remainder_(y),
        lambda x, y, z: x.fmod_(y), lambda x, y, z: x.div_(y, rounding_mode="floor"),
        lambda x, y, z: x.floor_divide_(y), lambda x, y, z: x.pow_(2), lambda x, y, z: x.eq_(y),
        lambda x, y, z: x.lt_(1), lambda x, y, z: x.logical_and_(y), lambda x, y, z: x.addcmul_(y, z, value=2),
        lambda x, y, z: x.addcdiv_(y, z.abs() + 1) if x.is_floating_point() else x,
        lambda x, y, z: x.lerp_(y, 0.25) if x.is_floating_point() else x,
        lambda x, y, z: x.lerp_(y, z) if x.is_floating_point() else x,
        lambda x, y, z: x.bitwise_xor_(y) if not x.is_floating_point() else x,
    ]
    for op in inplace:
        x, t = a.clone(), ta.clone()
        op(x[1:, 2:][:5, :4], b[:5, :4], c[:5, :4])
        op(t[1:, 2:][:5, :4], tb[:5, :4], tc[:5, :4])
        assert_same(t, x)


def test_clamp_forms_and_nan_bounds():
    x = special_values(torch.float32, n=200, seed=60)
    t = x.tpu()
    lo, hi = special_values(torch.float32, n=200, seed=61), special_values(torch.float32, n=200, seed=62)
    nan = float("nan")
    cases = [lambda v, p, q: torch.clamp(v, -1.5, 2.0), lambda v, p, q: torch.clamp(v, 2.0, -1.5),
             lambda v, p, q: torch.clamp(v, nan, 1.0), lambda v, p, q: torch.clamp(v, max=nan),
             lambda v, p, q: torch.clamp_min(v, nan), lambda v, p, q: torch.clamp(v, p, q),
             lambda v, p, q: torch.clamp(v, min=p), lambda v, p, q: torch.clamp(v, max=q),
             lambda v, p, q: torch.clamp(v, -0.0, 0.0), lambda v, p, q: torch.clamp(v, p[3], q[2]),
             lambda v, p, q: torch.relu(v) if False else torch.clamp_min(v, 0)]
    # (With both tensor bounds broadcast, CPU takes its scalar loop, whose
    # std::max/min keep -0.0 where the vector maxps/minps give the bound's
    # +0.0; tpu follows the vector loop, so those bounds avoid zeros here.)
    for fn in cases:
        check(fn, (x, lo, hi), (t, lo.tpu(), hi.tpu()))
    i = torch.arange(-20, 20, dtype=torch.int8)
    check(lambda v: torch.clamp(v, -5, 7), (i,), (i.tpu(),))
    same_error(lambda: torch.clamp(i, -500, 7), lambda: torch.clamp(i.tpu(), -500, 7))
    same_error(lambda: torch.clamp(i), lambda: torch.clamp(i.tpu()))


def test_where_forms():
    cond = torch.arange(60) % 3 == 0
    for dtype in ALL_DTYPES:
        a, b = make_tensor((60,), dtype, seed=70), make_tensor((60,), dtype, seed=71)
        check(torch.where, (cond, a, b), (cond.tpu(), a.tpu(), b.tpu()))
        # Broadcast condition and values, scalars, mixed dtypes.
        check(torch.where, (cond.view(6, 10)[:, :1], a.view(6, 10), b[:10]),
              (cond.tpu().view(6, 10)[:, :1], a.tpu().view(6, 10), b.tpu()[:10]))
    f = make_tensor((60,), torch.float32, seed=72)
    for other in (0.0, 2, torch.tensor(1.5), make_tensor((60,), torch.int32, seed=73),
                  make_tensor((60,), torch.float16, seed=74)):
        other_tpu = other.tpu() if isinstance(other, torch.Tensor) and other.dim() else other
        check(torch.where, (cond, f, other), (cond.tpu(), f.tpu(), other_tpu))
        check(torch.where, (cond, other, f), (cond.tpu(), other_tpu, f.tpu()))
    same_error(lambda: torch.where(f, f, f), lambda: torch.where(f.tpu(), f.tpu(), f.tpu()))
    u = cond.to(torch.uint8)
    with pytest.warns(UserWarning):
        assert_same(torch.where(u.tpu(), f.tpu(), 0.0), torch.where(u, f, 0.0))


def test_pow_forms():
    f = torch.linspace(-4, 4, 301)
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128):
        x = f.to(dtype)
        for e in (0, 1, 2, 3, -2, 0.5, -0.5, -1, 2.5, -1.25, 2.001, True):
            # +-0.5: CPU's sqrt/rsqrt kernels, float/double through MKL's VML.
            check(lambda v: torch.pow(v, e), (x,), (x.tpu(),),
                  approx=e in (2.5, -1.25, 2.001, 0.5, -0.5) or dtype.is_complex or dtype in (torch.float16,))
        # pow.Scalar: scalar base, tensor exponent.
        check(lambda v: torch.pow(2, v), (x,), (x.tpu(),), approx=True)
        check(lambda v: torch.pow(1, v), (x,), (x.tpu(),))
    i = torch.arange(-10, 10, dtype=torch.int64)
    for e in (0, 1, 2, 3, 7, 40):
        check(lambda v: torch.pow(v, e), (i,), (i.tpu(),))
    check(lambda v: torch.pow(v, 2.5), (i,), (i.tpu(),), approx=True)
    same_error(lambda: torch.pow(i, -2), lambda: torch.pow(i.tpu(), -2))
    i8 = i.to(torch.int8)
    same_error(lambda: torch.pow(i8, 300), lambda: torch.pow(i8.tpu(), 300))
    check(lambda v, w: torch.pow(v, w), (i, i.flip(0)), (i.tpu(), i.flip(0).tpu()))


def test_integer_division_by_zero_raises_on_sync():
    a = torch.arange(10, dtype=torch.int32).tpu()
    z = torch.zeros(10, dtype=torch.int32).tpu()
    for fn in (lambda: torch.div(a, z, rounding_mode="trunc"), lambda: torch.remainder(a, z),
               lambda: torch.fmod(a, z), lambda: a // 0):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            r = fn()
            torch.tpu.synchronize()
            r.cpu()
    torch.tpu.synchronize()  # the sticky error was reported once; the device works on
    assert_same(a + 1, torch.arange(1, 11, dtype=torch.int32))


def test_large_tensors_split_across_cores():
    a = make_tensor((300, 1001), torch.float32, seed=80)
    b = make_tensor((1001,), torch.float32, seed=81)
    ta, tb = a.tpu(), b.tpu()
    assert_same(torch.addcmul(ta, ta, tb, value=0.5), reference(lambda p, q: torch.addcmul(p, p, q, value=0.5), a,
                                                                b))
    assert_same(torch.where(ta > tb, ta, tb), reference(lambda p, q: torch.where(p > q, p, q), a, b))
    assert_same(torch.lerp(ta, tb, 0.1), reference(lambda p, q: torch.lerp(p, q, 0.1), a, b))
    assert_same(ta.t() < 0, reference(lambda p: p < 0, a.t()))


@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_to_copy_casts_every_dtype_pair(src):
    """x.to(dtype) on tpu (device to device, through copy) against CPU, for
    every pair of dtypes, values in every dtype's range."""
    x = make_tensor((40,), src, seed=90)
    t = x.tpu()
    for dst in ALL_DTYPES:
        with torch_tpu.no_fallback():
            y = t.to(dst)
            z = torch.ops.aten._to_copy(t[::2], dtype=dst)
        assert y.device.type == "tpu" and y.dtype == dst
        assert_same(y, x.to(dst))
        assert_same(z, x[::2].to(dst))


def test_empty_and_zero_dim():
    e = torch.empty(0, 3, device="tpu")
    assert torch.maximum(e, e).shape == (0, 3)
    assert (e < 1).dtype == torch.bool and (e < 1).shape == (0, 3)
    assert torch.where(e > 0, e, 1.0).shape == (0, 3)
    s = torch.tensor(2.5, device="tpu")
    assert_same(torch.clamp(s, 0, 1), torch.tensor(1.0))
    assert_same(s > 1, torch.tensor(True))
    assert_same(torch.lerp(s, s * 2, 0.5), torch.tensor(3.75))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_relu_and_relu_inplace(dtype):
    x = (torch.arange(-12, 12).reshape(4, 6) * 0.75).to(dtype)
    with torch_tpu.no_fallback():
        t = x.to("tpu")
        y = torch.relu(t)
        z = t.t().clone()  # in place on a non-contiguous tensor too
        z.relu_()
        t.relu_()
    assert torch.equal(y.cpu(), torch.relu(x))
    assert torch.equal(t.cpu(), torch.relu(x))
    assert torch.equal(z.cpu(), torch.relu(x.t()))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("scalar", [3, -2.5, True])
def test_remainder_of_a_python_scalar(dtype, scalar):
    """remainder(Scalar, Tensor) (ops.yaml: remainder.Scalar_Tensor, ATen's
    native function wrapping the scalar for remainder.Tensor)."""
    b = make_tensor((7,), dtype, seed=3)
    b = torch.where(b == 0, torch.ones_like(b), b)  # integer remainder by 0 raises
    expected = torch.remainder(scalar, b)
    torch_tpu.reset_stats()
    actual = torch.remainder(scalar, b.to("tpu"))
    assert torch_tpu.stats()["ops"]["aten::remainder.Scalar_Tensor"] == {"direct": 1}
    assert actual.dtype == expected.dtype == torch.result_type(scalar, b)
    torch.testing.assert_close(actual.cpu(), expected, rtol=1e-3 if dtype.itemsize == 2 else 1e-6,
                               atol=1e-3 if dtype.itemsize == 2 else 1e-6)


def test_family_is_registered():
    """A lost registration fails here (and in the tests above), never skips."""
    assert torch._C._dispatch_has_kernel_for_dispatch_key("aten::maximum.out", "PrivateUse1"), "the binary family is not registered for tpu (ops.yaml)"


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64], ids=str)
def test_shift_operators(dtype):
    """x << y, x >> y, x <<= y, x >>= y: their own aten ops (__lshift__,
    __ilshift__, ...) on the shifts' kernels; shift counts past the width
    included (CPU gives 0, or -1 for a negative value shifted right)."""
    a = make_tensor((5, 9), dtype, seed=7)
    b = torch.arange(45, dtype=dtype).reshape(5, 9).remainder(11)
    if dtype.is_signed:
        b = b * 4 - 3  # negative counts and counts past 32
    ta, tb = a.tpu(), b.tpu()
    with torch_tpu.no_fallback():
        for fn in (lambda x, y: x << y, lambda x, y: x >> y, lambda x, y: x << 3, lambda x, y: x >> 2,
                   lambda x, y: 5 << y if not dtype.is_signed else x >> 70):
            assert_same(fn(ta, tb), reference(fn, a, b))
        for fn in (lambda x, y: x.__ilshift__(y), lambda x, y: x.__irshift__(y),
                   lambda x, y: x.__ilshift__(2), lambda x, y: x.__irshift__(1)):
            x, t = a.clone(), ta.clone()
            assert fn(t, tb) is t
            fn(x, b)
            assert_same(t, x)
