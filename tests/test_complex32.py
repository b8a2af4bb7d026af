"""complex32 (torch.chalf) on tpu, against CPU: storage and copies (host and
device, strided, peer), the conversions to and from every other dtype, fill,
cat, torch.complex of float16 parts, view_as_real / view_as_complex, item(),
and the elementwise ops CPU computes in complex32 (in complex64, rounded), with
complex32 operands of ops computing in other dtypes. Results are compared bit
for bit: each is CPU's own rounding of the same value."""

import math
import warnings

import pytest
import torch

import torch_tpu
from conftest import ALL_DTYPES

warnings.filterwarnings("ignore", "ComplexHalf support is experimental")

CHALF = torch.complex32
ALL_BITS = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16)  # every float16


def chalf_of_bits(re_bits: torch.Tensor, im_bits: torch.Tensor) -> torch.Tensor:
    return torch.view_as_complex(torch.stack([re_bits.view(torch.float16), im_bits.view(torch.float16)], -1))


def every_half_value() -> torch.Tensor:
    """All 65536 float16 patterns as real parts, against a shuffled copy as imaginary parts."""
    g = torch.Generator().manual_seed(0)
    return chalf_of_bits(ALL_BITS, ALL_BITS[torch.randperm(ALL_BITS.numel(), generator=g)])


def bits(t: torch.Tensor) -> torch.Tensor:
    """The stored bits of a CPU tensor, as integers (bool as bytes)."""
    t = t.cpu()
    if t.dtype == CHALF:
        return torch.view_as_real(t).view(torch.int16)
    if t.dtype.is_complex:
        t = torch.view_as_real(t)
    if t.dtype == torch.bool:
        return t.view(torch.uint8)
    size = t.element_size()
    signed = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    return t.view(signed) if t.is_floating_point() or not t.dtype.is_signed else t


def assert_bits(actual: torch.Tensor, expected: torch.Tensor):
    assert actual.device.type == "tpu"
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    a, e = bits(actual), bits(expected)
    diff = (a != e).nonzero()
    assert diff.numel() == 0, f"{diff.shape[0]} elements differ, first at {diff[0].tolist()}: " \
        f"tpu {actual.cpu()[tuple(diff[0][:actual.dim()])]}, CPU {expected[tuple(diff[0][:actual.dim()])]}"


def assert_values(actual: torch.Tensor, expected: torch.Tensor):
    """Equal values (NaN where CPU has NaN, any payload or sign of it)."""
    assert actual.device.type == "tpu" and actual.dtype == expected.dtype
    torch.testing.assert_close(actual.cpu(), expected, rtol=0, atol=0, equal_nan=True)


def special_values(dtype: torch.dtype) -> torch.Tensor:
    """Values of `dtype` that make conversions to complex32 round, overflow,
    truncate or wrap differently if done another way."""
    if dtype == torch.bool:
        return torch.tensor([True, False, True])
    if dtype.is_floating_point or dtype.is_complex:
        vals = [0.0, -0.0, 1.0, -1.5, 2049.0, 65504.0, 65519.9, 65520.0, -1e6, 1e-8, 6e-8, 2.98e-8, 3e-8,
                1 + 2 ** -11, 1 + 2 ** -11 + 2 ** -30, 1 + 3 * 2 ** -12, float("inf"), -float("inf"), float("nan")]
        g = torch.Generator().manual_seed(1)
        t = torch.cat([torch.tensor(vals, dtype=torch.float64),
                       torch.randn(500, generator=g, dtype=torch.float64) * 300])
        if dtype.is_complex:
            return torch.complex(t, t.flip(0)).to(dtype)
        return t.to(dtype)
    info = torch.iinfo(dtype)
    vals = [0, 1, 2049, 2051, 65504, 65520, 70000, info.max, info.min, info.max - 1, -1, -2049]
    return torch.tensor([v for v in vals if info.min <= v <= info.max], dtype=dtype)


# ---- storage, copies, conversions ------------------------------------------


def test_host_round_trip_keeps_every_bit():
    x = every_half_value()
    t = x.to("tpu")
    assert t.dtype == CHALF
    assert_bits(t, x)
    assert_bits(t.clone(), x)  # device to device, bytes
    assert_bits(t[::3].contiguous(), x[::3])  # the device's strided copy


def test_strided_copies_and_layouts():
    x = every_half_value()[:4096].reshape(64, 64)
    t = x.to("tpu")
    assert_bits(t.t().contiguous(), x.t().contiguous())  # the transpose (tiled) path
    assert_bits(t.t(), x.t())  # device to host of a strided view
    dst = torch.zeros(64, 128, dtype=CHALF, device="tpu")
    dst[:, ::2] = t  # into a strided destination
    assert_bits(dst[:, ::2].contiguous(), x)
    assert_bits(t[:1].expand(5, 64).contiguous(), x[:1].expand(5, 64).contiguous())  # broadcast source
    host = torch.zeros(64, 64, dtype=CHALF)
    host.t().copy_(t)  # device to a strided host destination
    assert_bits(host.to("tpu"), x.t().contiguous())


@pytest.mark.skipif(torch.tpu.device_count() < 2, reason="needs two tpu devices")
def test_peer_copy():
    x = every_half_value()
    t = x.to("tpu:0")
    assert_bits(t.to("tpu:1"), x)
    assert_bits(t[::2].to("tpu:1"), x[::2])
    assert_bits(t.to("tpu:1", torch.complex64), x.to(torch.complex64))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_conversion_from_complex32(dtype):
    """Every float16 value as the real part, on the device, to every dtype."""
    x = every_half_value()
    t = x.to("tpu")
    assert_bits(t.to(dtype), x.to(dtype))
    assert_bits(t[1::2].to(dtype), x[1::2].to(dtype))  # strided source


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_conversion_to_complex32(dtype):
    x = special_values(dtype)
    t = x.to("tpu")
    assert_bits(t.to(CHALF), x.to(CHALF))
    assert_bits(t[1::2].to(CHALF), x[1::2].to(CHALF))  # strided source
    assert_bits(x.to("tpu", CHALF), x.to(CHALF))  # host to device, converted on the host as CPU does


def test_item_of_a_device_result():
    t = torch.tensor([1.5 - 2.25j], dtype=CHALF, device="tpu")
    assert (t * 2).item() == 3 - 4.5j
    assert torch.tensor(3 + 4j, dtype=torch.complex64, device="tpu").to(CHALF).item() == 3 + 4j


# ---- fill, cat, views, torch.complex ---------------------------------------------


@pytest.mark.parametrize("value", [0, 1, -2.5, 1.5 - 0.25j, 65519.0, 70000.0, float("nan")], ids=str)
def test_fill(value):
    expected = torch.full((3, 5), value, dtype=CHALF)
    assert_bits(torch.full((3, 5), value, dtype=CHALF, device="tpu"), expected)
    t = torch.ones(3, 10, dtype=CHALF, device="tpu")
    t[:, ::2].fill_(value)
    e = torch.ones(3, 10, dtype=CHALF)
    e[:, ::2].fill_(value)
    assert_bits(t, e)
    assert_bits(torch.zeros_like(t), torch.zeros_like(e))


def test_cat_and_stack():
    x = every_half_value()[:600].reshape(20, 30)
    t = x.to("tpu")
    assert_bits(torch.cat([t, t[:, ::2].t().contiguous().t()[:, :10]], 1), torch.cat([x, x[:, ::2][:, :10]], 1))
    assert_bits(torch.stack([t, t.flip(0).contiguous()]), torch.stack([x, x.flip(0)]))


def test_view_as_real_and_complex():
    x = every_half_value()[:1000]
    t = x.to("tpu")
    r = torch.view_as_real(t)
    assert r.dtype == torch.float16 and r.device.type == "tpu"
    assert_bits(r.contiguous(), torch.view_as_real(x).contiguous())
    assert_bits(torch.view_as_complex(r), x)
    assert_bits(torch.view_as_complex(r[::2]).contiguous(), x[::2])  # a strided complex32 view
    assert_bits(t.real.contiguous(), x.real.contiguous())
    assert_bits(t.imag.contiguous(), x.imag.contiguous())


def test_complex_of_float16_parts():
    g = torch.Generator().manual_seed(2)
    re = (torch.randn(7, 9, generator=g) * 100).half()
    im = (torch.randn(9, generator=g) * 100).half()
    with torch_tpu.no_fallback():
        out = torch.complex(re.to("tpu"), im.to("tpu"))  # broadcast
    assert_bits(out, torch.complex(re, im))


# ---- elementwise ops computing in complex32 ----------------------------------------


def operands(n=4096, seed=3):
    """Random complex32 values of every magnitude, with zeros, infinities and NaNs."""
    g = torch.Generator().manual_seed(seed)
    mag = torch.exp2(torch.randint(-16, 16, (n, 2), generator=g).double())
    parts = (torch.randn(n, 2, generator=g, dtype=torch.float64) * mag)
    specials = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 65504.0, 6e-8], dtype=torch.float64)
    idx = torch.randint(0, n, (n // 16, 2), generator=g)
    parts[idx[:, 0], idx[:, 1] % 2] = specials[torch.randint(0, 7, (n // 16,), generator=g)]
    return torch.view_as_complex(parts.to(torch.float16).contiguous().view(n, 2))


UNARY = {
    "neg": torch.neg,
    "abs": torch.abs,
    "conj_physical": torch.conj_physical,
    "sgn": torch.sgn,
    "isnan": torch.isnan,
    "isinf": torch.isinf,
    "isfinite": torch.isfinite,
}
BINARY = {
    "add": torch.add,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2.5 - 1.25j),
    "sub": torch.sub,
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=3),
    "mul": torch.mul,
    "eq": torch.eq,
    "ne": torch.ne,
    "where": lambda a, b: torch.where(a.real > b.real, a, b),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    fn = UNARY[name]
    x = operands()
    t = x.to("tpu")
    with torch_tpu.no_fallback():
        assert_values(fn(t), fn(x))
        assert_values(fn(t[::2]), fn(x[::2]))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    fn = BINARY[name]
    a, b = operands(seed=4), operands(seed=5)
    ta, tb = a.to("tpu"), b.to("tpu")
    with torch_tpu.no_fallback():
        assert_values(fn(ta, tb), fn(a, b))
        assert_values(fn(ta[::2], tb[1::2]), fn(a[::2], b[1::2]))  # strided
        assert_values(fn(ta, tb[:1]), fn(a, b[:1]))  # a broadcast operand
        assert_values(fn(ta, tb[3]), fn(a, b[3]))  # a 0-dim operand


def test_add_rounds_the_scaled_operand_first():
    """CPU's complex32 add is a + round(alpha * b): one rounding more than in complex64."""
    a = torch.tensor([1 + 0j], dtype=CHALF)
    b = torch.tensor([1.0009765625 + 0j], dtype=CHALF)  # 1 + 2^-10
    alpha = 1.5  # alpha * b = 1.50146484375: between two float16 values, rounds to even first
    expected = torch.add(a, b, alpha=alpha)
    assert_bits(torch.add(a.to("tpu"), b.to("tpu"), alpha=alpha), expected)


@pytest.mark.parametrize("other", [torch.float16, torch.float32, torch.int64, torch.bool, torch.complex64,
                                   torch.complex128], ids=str)
def test_mixed_dtypes(other):
    """A complex32 operand in another compute dtype, and other operands in complex32."""
    a = operands(seed=6)
    b = special_values(other)
    b = b.repeat(a.numel() // b.numel() + 1)[:a.numel()]
    ta, tb = a.to("tpu"), b.to("tpu")
    with torch_tpu.no_fallback():
        for fn in (torch.add, torch.mul, torch.eq):
            assert_values(fn(ta, tb), fn(a, b))
            assert_values(fn(tb, ta), fn(b, a))


def test_complex32_computation_from_python_scalars():
    """A float16 tensor and a complex Python number compute in complex32."""
    x = (torch.arange(-8, 8) * 0.75).half()
    t = x.to("tpu")
    with torch_tpu.no_fallback():
        for fn in (lambda v: v + (1.5 - 0.5j), lambda v: v * 2j, lambda v: torch.where(v > 0, v, 2j)):
            out = fn(t)
            assert out.dtype == CHALF
            assert_values(out, fn(x))


def test_out_of_complex32():
    """Results of other dtypes written into a complex32 out=, and the other way round."""
    a, b = operands(seed=7).to(torch.complex64), operands(seed=8).to(torch.complex64)
    out = torch.empty(a.shape, dtype=CHALF, device="tpu")
    torch.add(a.to("tpu"), b.to("tpu"), out=out)
    assert_values(out, torch.add(a, b, out=torch.empty(a.shape, dtype=CHALF)))
    c = operands(seed=9)
    out64 = torch.empty(c.shape, dtype=torch.complex64, device="tpu")
    torch.mul(c.to("tpu"), c.to("tpu"), out=out64)
    assert_values(out64, torch.mul(c, c, out=torch.empty(c.shape, dtype=torch.complex64)))


def test_conj_view_resolves_on_the_device():
    x = operands(seed=10)
    t = x.to("tpu")
    assert_values(t.conj().clone(), x.conj().clone())
    assert_values(t.conj(), x.conj().resolve_conj())  # resolved on the way to the host
    assert_values(-t, -x)


def test_random_complex32_draws_its_parts_as_float16():
    """CPU's normal_ and uniform_ of a complex tensor fill view_as_real(self):
    complex32 draws exactly the float16 values of its parts."""
    torch.tpu.manual_seed(7)
    z = torch.randn(4096, dtype=CHALF, device="tpu")
    torch.tpu.manual_seed(7)
    parts = torch.empty(4096, 2, dtype=torch.float16, device="tpu").normal_(0, 1 / math.sqrt(2))  # ATen: std / sqrt(2)
    assert z.dtype == CHALF
    assert_bits(torch.view_as_real(z).contiguous(), parts.cpu())
    torch.tpu.manual_seed(8)
    u = torch.rand(100, dtype=CHALF, device="tpu")
    torch.tpu.manual_seed(8)
    assert_bits(torch.view_as_real(u).contiguous(), torch.rand(100, 2, dtype=torch.float16, device="tpu").cpu())
