"""The elementwise stub kernels (csrc/aten/native/elementwise/) end to end:
add/sub/mul/div/neg/abs on tpu against CPU eager, bit for bit, over dtypes,
broadcasts, strides, Python and CPU scalars, type promotion, alpha, out= and
in-place forms. Skipped until ops.yaml registers the ops on the stub route.

The CPU reference is computed on contiguous, broadcast-materialized inputs:
where CPU's strided loops give other bits than its vectorized ones (float16
add with alpha, complex neg of zeros), the kernels follow the vectorized
ones (see csrc/kernels/elementwise/ops.h)."""

import contextlib
import math

import pytest
import torch

from conftest import ALL_DTYPES, make_tensor, stream_gate
from cuda_dtype_reference import abs_on_cpu_as_cuda

import torch_tpu  # noqa: F401  (a missing backend fails the module; it never skips it)

OPS = ["aten::add.out", "aten::sub.out", "aten::mul.out", "aten::div.out", "aten::neg.out", "aten::abs.out"]

# abs of a complex tensor computes complex -> complex, then takes the real
# part with at::real (view_as_real); without that view on tpu, test the
# kernel through abs(z, out=complex).
HAS_VIEW_AS_REAL = torch._C._dispatch_has_kernel_for_dispatch_key("aten::view_as_real", "PrivateUse1")
FLOATING = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
COMPLEX = [torch.complex64, torch.complex128]
INT_BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
            torch.float64: torch.int64}


@contextlib.contextmanager
def no_fallback():
    with torch_tpu.no_fallback():
        yield


def special_values(dtype, n=64, seed=0):
    """n values of dtype: zeros of both signs, infinities, NaN, extremes,
    values that wrap or round, and ordinary numbers."""
    if dtype == torch.bool:
        return torch.tensor([(i * 7 + seed) % 3 == 0 for i in range(n)])
    if dtype.is_floating_point or dtype.is_complex:
        base = [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 2.5, -3.75, 65504.0, 70000.0, 1e-3, 6e-8, 1e-30, 3e38,
                -3e38, float("inf"), float("-inf"), float("nan"), 7.0, -12345.678, 1e300, 0.5]
        g = torch.Generator().manual_seed(seed)
        extra = (torch.randn(n, generator=g, dtype=torch.float64) * 100).tolist()
        vals = (base + extra)[:n]
        t = torch.tensor(vals, dtype=torch.float64)
        if dtype.is_complex:
            im = torch.tensor(vals[7:] + vals[:7], dtype=torch.float64)
            return torch.complex(t, im).to(dtype)
        return t.to(dtype)
    info = torch.iinfo(dtype)
    base = [0, 1, -1, 2, 3, 7, 100, -100, 127, -128, 255, 1000, -1000, 32767, -32768, 65535, 2**31 - 1,
            -(2**31), 2**40 + 3, info.max, info.min, info.max - 1]
    g = torch.Generator().manual_seed(seed)
    extra = torch.randint(-1000, 1000, (n,), generator=g).tolist()
    return torch.tensor([v & 0xFFFFFFFFFFFFFFFF if v < 0 and dtype == torch.uint64 else v
                         for v in (base + extra)[:n]], dtype=torch.int64 if dtype != torch.uint64 else
                        torch.uint64).to(dtype)


def assert_same(actual, expected):
    """Same dtype, shape and bits; NaNs equal to NaNs (payloads not compared)."""
    assert actual.device.type == "tpu", actual.device
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    a, e = actual, expected
    if a.dtype.is_complex:
        a, e = torch.view_as_real(a.contiguous()), torch.view_as_real(e.contiguous())
    if a.dtype.is_floating_point:
        nan_a, nan_e = torch.isnan(a), torch.isnan(e)
        assert torch.equal(nan_a, nan_e), (actual, expected)
        bits = INT_BITS[a.dtype]
        a = torch.where(nan_a, torch.zeros_like(a), a).contiguous().view(bits)
        e = torch.where(nan_e, torch.zeros_like(e), e).contiguous().view(bits)
    if not torch.equal(a, e):
        bad = (a != e).nonzero()[:5].tolist()
        raise AssertionError(f"differ at {bad}:\n{actual}\nvs CPU\n{expected}")


def reference(fn, *args, **kwargs):
    """fn on CPU as its vectorized loops compute it: tensor arguments (other
    than 0-dim ones) broadcast to the result shape, made contiguous and
    flattened, padded to a multiple of 128 elements (CPU's scalar loops for
    the last elements and for strided inputs round float16 add with alpha
    twice)."""
    tensors = [x for x in list(args) + list(kwargs.values()) if isinstance(x, torch.Tensor)]
    shape = torch.broadcast_shapes(*[x.shape for x in tensors if x.dim() > 0]) if any(
        x.dim() > 0 for x in tensors) else None
    n = math.prod(shape) if shape is not None else 0

    def prep(x):
        if not isinstance(x, torch.Tensor):
            return x
        x = x.cpu()
        if x.dim() == 0 or n == 0:
            return x
        flat = x.expand(shape).contiguous().flatten()
        pad = -n % 128
        return torch.cat([flat, flat[:1].expand(pad)]) if pad else flat

    r = fn(*[prep(a) for a in args], **{k: prep(v) for k, v in kwargs.items()})
    return r if shape is None or n == 0 else r[:n].reshape(shape)


def same_error(fn_cpu, fn_tpu):
    """Both raise the same exception type and message (tpu may add ' on tpu')."""
    with pytest.raises(Exception) as cpu_err:
        fn_cpu()
    with pytest.raises(Exception) as tpu_err:
        fn_tpu()
    assert type(tpu_err.value) is type(cpu_err.value), (cpu_err.value, tpu_err.value)
    cpu_msg = str(cpu_err.value).split("\n")[0]
    tpu_msg = str(tpu_err.value).split("\n")[0]
    if "not implemented for" in cpu_msg:
        assert cpu_msg.split("not implemented for")[1] in tpu_msg, (cpu_msg, tpu_msg)
    else:
        assert cpu_msg == tpu_msg, (cpu_msg, tpu_msg)


def _alpha(dtype, integral, floating):
    return integral if not (dtype.is_floating_point or dtype.is_complex) else floating


# name: (torch function, keyword arguments for an input dtype)
BINARY_FORMS = {
    "add": (torch.add, lambda dt: {}),
    "add_alpha": (torch.add, lambda dt: {"alpha": _alpha(dt, 3, 0.1)}),
    "sub": (torch.sub, lambda dt: {}),
    "sub_alpha": (torch.sub, lambda dt: {"alpha": _alpha(dt, 2, 2.5)}),
    "mul": (torch.mul, lambda dt: {}),
    "div": (torch.div, lambda dt: {}),
}
BINARY = {name: (lambda f, kw: lambda a, b, **extra: f(a, b, **kw(a.dtype), **extra))(f, kw)
          for name, (f, kw) in BINARY_FORMS.items()}
def _abs(x, **kw):
    if x.is_complex() and x.device.type == "tpu" and not HAS_VIEW_AS_REAL and "out" not in kw:
        return torch.abs(x, out=torch.empty_like(x))
    if x.is_complex() and x.device.type == "cpu" and not HAS_VIEW_AS_REAL and "out" not in kw:
        return torch.abs(x, out=torch.empty_like(x))
    return torch.abs(x, **kw)


UNARY = {"neg": torch.neg, "abs": _abs}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_every_dtype_matches_cpu(name, dtype):
    fn = BINARY[name]
    a = special_values(dtype, seed=1).repeat_interleave(8)[:500]
    b = special_values(dtype, seed=2).repeat(8)[:500]
    try:
        expected = reference(fn, a, b)
    except (RuntimeError, NotImplementedError):
        same_error(lambda: fn(a, b), lambda: fn(a.tpu(), b.tpu()))
        return
    with no_fallback():
        assert_same(fn(a.tpu(), b.tpu()), expected)


# Pairs CPU refuses and CUDA computes (tpu takes CUDA's dtypes too), with CUDA's value.
CUDA_ONLY_UNARY = {("abs", torch.bool): abs_on_cpu_as_cuda}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_every_dtype_matches_cpu(name, dtype):
    fn = UNARY[name]
    a = special_values(dtype, n=300, seed=3)
    try:
        expected = reference(fn, a)
    except (RuntimeError, NotImplementedError):
        if (name, dtype) in CUDA_ONLY_UNARY:
            expected = CUDA_ONLY_UNARY[name, dtype](a)
        else:
            same_error(lambda: fn(a), lambda: fn(a.tpu()))
            return
    with no_fallback():
        assert_same(fn(a.tpu()), expected)


LAYOUTS = [
    # (shape of a, shape of b, view applied to both) -- broadcasts and strides
    ((4, 5), (4, 5), lambda t: t),
    ((3, 1, 5), (1, 4, 5), lambda t: t),
    ((6, 7), (7,), lambda t: t),
    ((6, 7), (6, 1), lambda t: t),
    ((5, 6), (5, 6), lambda t: t.t()),
    ((9, 8), (9, 8), lambda t: t[::2, 1::3]),
    ((2, 3, 4), (4, 3, 2), lambda t: t.permute(2, 1, 0) if t.shape == (2, 3, 4) else t),
    ((1,), (3, 4), lambda t: t),
    ((), (3, 4), lambda t: t),  # a 0-dim tpu tensor
]


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64, torch.complex64], ids=str)
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_binary_broadcasts_and_strides(layout, dtype):
    sa, sb, view = LAYOUTS[layout]
    a_cpu, b_cpu = view(make_tensor(sa, dtype, seed=4)), view(make_tensor(sb, dtype, seed=5))
    if layout == 6:
        b_cpu = make_tensor((4, 3, 2), dtype, seed=5)
    a, b = a_cpu.tpu(), b_cpu.tpu()
    if layout == 6:
        a, b = make_tensor(sa, dtype, seed=4).tpu().permute(2, 1, 0), b_cpu.tpu()
    for name, fn in BINARY.items():
        try:
            expected = reference(fn, a_cpu, b_cpu)
        except (RuntimeError, NotImplementedError):
            continue
        with no_fallback():
            assert_same(fn(a, b), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_unary_non_contiguous(dtype):
    base = make_tensor((8, 9), dtype, seed=6)
    for view in (lambda t: t.t(), lambda t: t[1::2, ::3], lambda t: t[:, :1].expand(8, 5)):
        x = view(base)
        for name, fn in UNARY.items():
            try:
                expected = reference(fn, x)
            except (RuntimeError, NotImplementedError):
                continue
            assert_same(fn(view(base.tpu())), expected)


SCALARS = [2, -3, 0.1, 2.5, True, False, 1 + 2j, 2**40]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_python_and_cpu_scalars(dtype):
    """Python numbers and CPU 0-dim tensors arrive as CPU scalars: read on the
    host, by value. Either side; promotion as CPU."""
    x = make_tensor((33,), dtype, seed=8)
    t = x.tpu()
    for s in SCALARS:
        for scalar in (s, torch.tensor(s)):
            for name, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div)]:
                for args_cpu, args_tpu in [((x, scalar), (t, scalar)), ((scalar, x), (scalar, t))]:
                    if not isinstance(args_cpu[0], torch.Tensor):
                        continue  # torch.add(2, t) has no such overload
                    try:
                        expected = reference(fn, *args_cpu)
                    except (RuntimeError, NotImplementedError, TypeError):
                        continue
                    with no_fallback():
                        assert_same(fn(*args_tpu), expected)
            # Operators: x + s, s * x, x / s, s - x.
            for op in (lambda a, b: a + b, lambda a, b: b * a, lambda a, b: a / b, lambda a, b: b - a):
                try:
                    expected = reference(op, x, scalar)
                except (RuntimeError, NotImplementedError, TypeError):
                    continue
                assert_same(op(t, scalar), expected)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_reduced_mul_div_by_scalar_read_as_float(dtype):
    """CPU multiplies/divides float16/bfloat16 by a scalar second operand in
    float, without rounding the scalar first (3 * 0.1 = 0.300048828125 in
    float16, 0.2998046875 with 0.1 rounded first)."""
    x = torch.arange(1, 2000, dtype=torch.float32).to(dtype)
    t = x.tpu()
    for s in (0.1, torch.tensor(0.1), torch.tensor(0.1, dtype=torch.float64), 5001, 1 / 3):
        assert_same(t * s, x * s)
        assert_same(t / s, x / s)
        assert_same(torch.mul(s, t) if isinstance(s, torch.Tensor) else s * t,
                    torch.mul(s, x) if isinstance(s, torch.Tensor) else s * x)
    # A broadcast one-element tpu tensor of another dtype takes the same path.
    for s in (torch.tensor(0.1), torch.tensor(0.1, dtype=torch.float64)):
        assert_same(t * s.tpu(), x * s)
        assert_same(t / s.tpu(), x / s)


def test_type_promotion_and_mixed_dtypes():
    i = make_tensor((4, 5), torch.int32, seed=9)
    f = make_tensor((4, 5), torch.float32, seed=10)
    h = make_tensor((4, 5), torch.float16, seed=11)
    bo = make_tensor((4, 5), torch.bool, seed=12)
    u = make_tensor((4, 5), torch.uint8, seed=13)
    c = make_tensor((4, 5), torch.complex64, seed=14)
    pairs = [(i, f), (f, i), (i, h), (h, f), (bo, i), (bo, f), (u, i), (u, bo), (i, i), (bo, bo), (c, f),
             (h, c), (u, h), (i, torch.tensor(2.5, dtype=torch.float64)), (h, torch.tensor(3, dtype=torch.int64))]
    for a, b in pairs:
        for fn in BINARY.values():
            try:
                expected = reference(fn, a, b)
            except (RuntimeError, NotImplementedError):
                continue
            b_tpu = b.tpu() if b.dim() > 0 else b  # CPU 0-dim stays on the host
            with no_fallback():
                assert_same(fn(a.tpu(), b_tpu), expected)
            if b.dim() == 0:
                assert_same(fn(a.tpu(), b.tpu()), expected)  # a 0-dim tpu tensor


def test_alpha_forms_and_errors():
    for dtype, alphas in [(torch.int64, [0, 1, -1, 5, 2**40]), (torch.uint8, [1, 3, 255]),
                          (torch.float32, [1, 0.1, -2.5, 3]), (torch.float16, [0.1, 1 / 3, 7]),
                          (torch.complex64, [1, 0.5, 2 - 1j]), (torch.bool, [True, False])]:
        a, b = make_tensor((40,), dtype, seed=15), make_tensor((40,), dtype, seed=16)
        for alpha in alphas:
            assert_same(torch.add(a.tpu(), b.tpu(), alpha=alpha), reference(torch.add, a, b, alpha=alpha))
            if dtype != torch.bool:
                assert_same(torch.sub(a.tpu(), b.tpu(), alpha=alpha), reference(torch.sub, a, b, alpha=alpha))
    a = make_tensor((4,), torch.uint8)
    same_error(lambda: torch.add(a, a, alpha=300), lambda: torch.add(a.tpu(), a.tpu(), alpha=300))
    same_error(lambda: torch.add(a, a, alpha=0.5), lambda: torch.add(a.tpu(), a.tpu(), alpha=0.5))
    h = make_tensor((4,), torch.float16)
    same_error(lambda: torch.add(h, h, alpha=1e6), lambda: torch.add(h.tpu(), h.tpu(), alpha=1e6))


def test_unsupported_dtypes_raise_like_cpu():
    for dtype in (torch.uint16, torch.uint32, torch.uint64):
        x = make_tensor((3,), dtype)
        for fn in (torch.add, torch.sub, lambda p, q: torch.neg(p), lambda p, q: torch.abs(p)):
            same_error(lambda: fn(x, x), lambda: fn(x.tpu(), x.tpu()))
        same_error(lambda: torch.add(x[:0], x[:0]), lambda: torch.add(x.tpu()[:0], x.tpu()[:0]))
    b = make_tensor((3,), torch.bool)
    same_error(lambda: torch.neg(b), lambda: torch.neg(b.tpu()))
    same_error(lambda: torch.sub(b, b), lambda: torch.sub(b.tpu(), b.tpu()))
    # abs of bool: CPU refuses it, CUDA returns it unchanged; tpu takes CUDA's dtypes.
    assert torch.equal(torch.abs(b.tpu()).cpu(), b)


@pytest.mark.parametrize("dtype", [torch.int16, torch.float16, torch.float32, torch.float64, torch.complex128],
                         ids=str)
def test_out_and_in_place(dtype):
    a, b = make_tensor((6, 7), dtype, seed=17), make_tensor((6, 7), dtype, seed=18)
    ta, tb = a.tpu(), b.tpu()
    for name, fn in BINARY.items():
        try:
            expected = reference(fn, a, b)
        except (RuntimeError, NotImplementedError):
            continue
        # Contiguous, transposed and strided out= tensors are written in place.
        for out in (torch.zeros(6, 7, dtype=expected.dtype, device="tpu"),
                    torch.zeros(7, 6, dtype=expected.dtype, device="tpu").t(),
                    torch.zeros(12, 14, dtype=expected.dtype, device="tpu")[::2, 1::2]):
            ptr, strides = out.data_ptr(), out.stride()
            fn(ta, tb, out=out)
            assert (out.data_ptr(), out.stride()) == (ptr, strides)
            assert_same(out, expected)
    # Empty out= is resized; an out= of a wider dtype gets the result cast.
    out = torch.empty(0, dtype=dtype, device="tpu")
    torch.mul(ta, tb, out=out)
    assert_same(out, reference(torch.mul, a, b))
    if not dtype.is_complex:
        out = torch.empty(6, 7, dtype=torch.float64, device="tpu")
        torch.add(ta, tb, out=out)
        assert_same(out, reference(torch.add, a, b).double())
    # In place, on non-contiguous views, from other views and scalars.
    ops = [lambda x, y: x.add_(y.t()[:4, :5].t()), lambda x, y: x.mul_(2), lambda x, y: x.sub_(y[:5, :4], alpha=2),
           lambda x, y: x.div_(y[:5, :4]) if x.is_floating_point() or x.is_complex() else x, lambda x, y: x.neg_(),
           lambda x, y: x.abs_() if not x.is_complex() else x]
    for op in ops:
        c, t = a.clone(), ta.clone()
        op(c[1:, 2:][:5, :4], b)
        op(t[1:, 2:][:5, :4], tb)
        assert_same(t, c)


def test_abs_and_neg_of_complex():
    z = torch.tensor([3 - 4j, complex(float("inf"), float("nan")), complex(float("nan"), 1), 0j, -0.0 - 0j,
                      1e30 + 1e30j] * 11, dtype=torch.complex64)
    for dtype in COMPLEX:
        x = z.to(dtype)
        # The kernel's complex -> complex form: (|z|, +0).
        out = torch.empty_like(x, device="tpu")
        torch.abs(x.tpu(), out=out)
        assert_same(out, reference(lambda v: torch.abs(v, out=torch.empty_like(v)), x))
        assert_same(torch.neg(x.tpu()), reference(torch.neg, x))  # 0 - z: -(0+0j) is +0+0j on CPU's vector path
        if HAS_VIEW_AS_REAL:  # complex -> real, as users call it
            r = torch.abs(x.tpu())
            assert r.dtype == (torch.float32 if dtype == torch.complex64 else torch.float64)
            assert_same(r, reference(torch.abs, x))


def test_complex_mul_div_specials():
    vals = [complex(1, 2), complex(3, -4), complex(1e30, 1e-30), 0j, complex(float("inf"), 1),
            complex(1, float("nan")), complex(-0.0, 0.0), complex(1e-40, 3e-41), complex(7, 7),
            complex(1 + 2**-12, 1)]
    for dtype in COMPLEX:
        a = torch.tensor([x for x in vals for _ in vals] * 2, dtype=dtype)
        b = torch.tensor([y for _ in vals for y in vals] * 2, dtype=dtype)
        assert_same(a.tpu() * b.tpu(), reference(torch.mul, a, b))
        assert_same(a.tpu() / b.tpu(), reference(torch.div, a, b))
        assert_same(torch.add(a.tpu(), b.tpu(), alpha=1), reference(torch.add, a, b, alpha=1))


def test_large_tensors_split_across_cores():
    for dtype in (torch.float32, torch.float16, torch.int64):
        a = make_tensor((300, 1001), dtype, seed=19)
        b = make_tensor((1001,), dtype, seed=20)
        ta, tb = a.tpu(), b.tpu()
        assert_same(ta * tb, a * b)
        assert_same(torch.add(ta, tb, alpha=2), torch.add(a, b, alpha=2))
        assert_same(ta.t() - 1, reference(lambda x: x - 1, a.t()))
        assert_same(torch.neg(ta[:, ::2]), reference(torch.neg, a[:, ::2]))


def test_cpu_scalar_is_read_at_the_call():
    """A CPU 0-dim tensor is read when the op is called, not when the device
    gets to it: changing it afterwards does not change the result."""
    x = torch.arange(10.0).tpu()
    s = torch.tensor(2.0)
    with stream_gate():  # the device has run neither op when s changes
        y = x * s
        z = x + s
        s.fill_(100.0)
    assert_same(y, torch.arange(10.0) * 2)
    assert_same(z, torch.arange(10.0) + 2)


def test_empty_and_zero_dim():
    e = torch.empty(0, 3, device="tpu")
    assert (e + e).shape == (0, 3)
    assert torch.neg(e).shape == (0, 3)
    s = torch.tensor(2.5, device="tpu")
    assert_same(s * s, torch.tensor(6.25))
    assert_same(torch.abs(-s), torch.tensor(2.5))
    assert_same(s / 0, torch.tensor(math.inf))


def test_second_device_and_side_stream():
    if torch.tpu.device_count() < 2:
        pytest.skip("needs two tpu devices")
    x = torch.arange(6.0).to("tpu:1")
    y = x * x + 1
    assert y.device == torch.device("tpu:1")
    assert_same(y, torch.arange(6.0) ** 2 + 1)
    s = torch.tpu.Stream(device="tpu:1")
    s.wait_stream(torch.tpu.current_stream("tpu:1"))
    with torch.tpu.stream(s):
        z = torch.neg(x) - y
    s.synchronize()
    assert_same(z, -torch.arange(6.0) - (torch.arange(6.0) ** 2 + 1))


def test_family_is_registered():
    """A lost registration fails here (and in the tests above), never skips."""
    assert all(torch._C._dispatch_has_kernel_for_dispatch_key(op, "PrivateUse1") for op in OPS), "add/sub/mul/div/neg/abs are not registered for tpu (ops.yaml stub entries)"
