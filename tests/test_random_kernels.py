"""Random kernels on the tpu generator (Philox, counter based): seeding,
replay through get/set_rng_state, per-device and explicit generators,
offsets that advance, independence from the device's core count, and the
distributions themselves (moments and ranges, with fixed seeds; bit
equality with CPU is not expected)."""

import math
import os
import subprocess
import sys

import pytest
import torch

import torch_tpu

FLOATING = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def draw(fn, *, seed=None):
    if seed is not None:
        torch.manual_seed(seed)
    with torch_tpu.no_fallback():
        return fn().cpu()


# ---- generator semantics ---------------------------------------------------------


def test_same_seed_same_results_and_offsets_advance():
    a = draw(lambda: torch.rand(1000, device="tpu"), seed=3)
    b = draw(lambda: torch.rand(1000, device="tpu"), seed=3)
    c = draw(lambda: torch.rand(1000, device="tpu"))
    assert torch.equal(a, b)
    assert not torch.equal(b, c)
    torch.tpu.manual_seed(3)
    assert torch.equal(draw(lambda: torch.rand(1000, device="tpu")), a)
    gen = torch.tpu.default_generators[0]
    assert gen.get_offset() == 1000 * 4


def test_rng_state_replays():
    torch.tpu.manual_seed(11)
    torch.rand(17, device="tpu")
    state = torch.tpu.get_rng_state()
    x = draw(lambda: torch.randn(500, device="tpu"))
    y = draw(lambda: torch.empty(300, device="tpu").uniform_(-2, 2))
    torch.tpu.set_rng_state(state)
    assert torch.equal(draw(lambda: torch.randn(500, device="tpu")), x)
    assert torch.equal(draw(lambda: torch.empty(300, device="tpu").uniform_(-2, 2)), y)


def test_explicit_generator_and_per_device_generators():
    g = torch.Generator(device="tpu").manual_seed(5)
    a = torch.rand(100, device="tpu", generator=g).cpu()
    g.manual_seed(5)
    assert torch.equal(torch.rand(100, device="tpu", generator=g).cpu(), a)
    # The default generator is untouched by explicit-generator draws.
    torch.tpu.manual_seed(5)
    off = torch.tpu.default_generators[0].get_offset()
    torch.rand(100, device="tpu", generator=g)
    assert torch.tpu.default_generators[0].get_offset() == off
    # Device 1 has its own generator: seeding it does not change device 0.
    torch.tpu.manual_seed_all(9)
    d0 = torch.rand(50, device="tpu:0").cpu()
    d1 = torch.rand(50, device="tpu:1").cpu()
    assert torch.equal(d0, d1)  # same seed, same offset, same stream of numbers
    torch.tpu.default_generators[1].manual_seed(10)
    torch.tpu.default_generators[0].manual_seed(9)
    assert torch.equal(torch.rand(50, device="tpu:0").cpu(), d0)
    assert not torch.equal(torch.rand(50, device="tpu:1").cpu(), d1)
    assert torch.tpu.default_generators[1].get_offset() == 200


def test_fork_rng_restores_and_replays():
    torch.tpu.manual_seed(1)
    with torch.random.fork_rng(devices=[0], device_type="tpu"):
        a = torch.randn(64, device="tpu").cpu()
    b = torch.randn(64, device="tpu").cpu()
    assert torch.equal(a, b)


def test_results_do_not_depend_on_core_count():
    code = ("import torch, torch_tpu; torch.manual_seed(123);"
            "x = torch.randn(100000, device='tpu'); y = torch.rand(3, 50001, device='tpu');"
            "z = torch.native_dropout(torch.ones(70000, device='tpu'), 0.4, True)[1];"
            "import hashlib; print(*[hashlib.sha1(t.cpu().numpy().tobytes()).hexdigest() for t in (x, y, z)])")
    outs = []
    for cores in ("1", "3"):
        env = dict(os.environ, TORCH_TPU_CORES=cores)
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                   text=True, check=True).stdout.split())
    assert outs[0] == outs[1]


# ---- distributions ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATING)
def test_uniform(dtype):
    x = draw(lambda: torch.empty(200000, device="tpu", dtype=dtype).uniform_(-1.5, 2.5), seed=0).double()
    assert x.min() >= -1.5 and x.max() < 2.5
    assert abs(x.mean() - 0.5) < 0.02
    assert abs(x.var() - 16 / 12) < 0.03
    u = draw(lambda: torch.rand(100000, device="tpu", dtype=dtype)).double()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    # Every decile is about equally full.
    counts = torch.histc(u, bins=10, min=0, max=1)
    assert (counts - 10000).abs().max() < 600


def test_uniform_complex_and_noncontiguous():
    z = draw(lambda: torch.empty(50000, device="tpu", dtype=torch.complex64).uniform_(0, 1), seed=1)
    assert 0 <= z.real.min() and z.real.max() < 1 and abs(z.imag.mean() - 0.5) < 0.02
    base = torch.zeros(100, 60, device="tpu")
    view = base.t()[::2]
    torch.manual_seed(2)
    view.uniform_(1, 2)
    b = base.cpu()
    assert bool((b[:, ::2] >= 1).all()) and bool((b[:, 1::2] == 0).all())


@pytest.mark.parametrize("dtype", FLOATING)
def test_normal(dtype):
    x = draw(lambda: torch.empty(200000, device="tpu", dtype=dtype).normal_(3.0, 2.0), seed=0).double()
    assert abs(x.mean() - 3.0) < 0.03
    assert abs(x.std() - 2.0) < 0.03
    # Tails of a normal: P(|z| > 2) = 4.55%.
    tail = ((x - 3).abs() > 4).double().mean()
    assert abs(tail - 0.0455) < 0.004
    r = draw(lambda: torch.randn(100000, device="tpu", dtype=dtype)).double()
    assert abs(r.mean()) < 0.02 and abs(r.std() - 1) < 0.02
    with pytest.raises(RuntimeError, match="std"):
        torch.empty(3, device="tpu").normal_(0, -1)


def test_normal_complex():
    z = draw(lambda: torch.randn(100000, device="tpu", dtype=torch.complex64), seed=4)
    assert abs(z.real.std() - 1 / math.sqrt(2)) < 0.01 and abs(z.imag.mean()) < 0.01


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_exponential(dtype):
    x = draw(lambda: torch.empty(200000, device="tpu", dtype=dtype).exponential_(2.0), seed=0).double()
    assert x.min() > 0
    assert abs(x.mean() - 0.5) < 0.01
    assert abs(x.var() - 0.25) < 0.01


@pytest.mark.parametrize("dtype", FLOATING)
def test_log_normal(dtype):
    x = draw(lambda: torch.empty(200000, device="tpu", dtype=dtype).log_normal_(0.5, 0.25), seed=0).double()
    assert x.min() > 0
    lx = x.log()
    assert abs(lx.mean() - 0.5) < 0.01
    assert abs(lx.std() - 0.25) < 0.01
    with pytest.raises(RuntimeError, match="std"):
        torch.empty(3, device="tpu").log_normal_(0, -1)


@pytest.mark.parametrize("dtype", FLOATING)
def test_cauchy(dtype):
    x = draw(lambda: torch.empty(200000, device="tpu", dtype=dtype).cauchy_(1.0, 2.0), seed=0).double()
    # No mean; median 1 and quartiles 1 -+ 2.
    q = torch.quantile(x[:100000], torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64))
    assert torch.allclose(q, torch.tensor([-1.0, 1.0, 3.0], dtype=torch.float64), atol=0.06)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int32, torch.int64])
def test_geometric(dtype):
    x = draw(lambda: torch.empty(200000, device="tpu", dtype=dtype).geometric_(0.25), seed=0)
    assert x.dtype == dtype
    v = x.double()
    assert v.min() >= 1 and bool((v == v.round()).all())
    assert abs(v.mean() - 4.0) < 0.05          # 1 / p
    assert abs(v.var() - 12.0) < 0.5           # (1 - p) / p^2
    assert abs((v == 1).double().mean() - 0.25) < 0.01
    with pytest.raises(RuntimeError, match="geometric_ expects p to be in"):
        torch.empty(3, device="tpu").geometric_(1.5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_normal_with_tensor_mean_and_std(dtype):
    n = 100000
    mean = torch.tensor([-3.0, 0.0, 5.0], dtype=dtype).repeat(n)
    std = torch.tensor([0.5, 1.0, 2.0], dtype=dtype).repeat(n)
    centres = torch.tensor([-3.0, 0.0, 5.0], dtype=torch.float64)
    for fn, want in ((lambda m, s: torch.normal(m, s), centres), (lambda m, s: torch.normal(m, 2.0), centres),
                     (lambda m, s: torch.normal(1.0, s), torch.ones(3, dtype=torch.float64))):
        got = draw(lambda: fn(mean.to("tpu"), std.to("tpu")), seed=1)
        assert got.dtype == dtype and got.shape == fn(mean, std).shape
        assert torch.allclose(got.double().view(n, 3).mean(0), want, atol=0.05)
    s = draw(lambda: torch.normal(mean.to("tpu"), std.to("tpu")), seed=1).double().view(n, 3).std(0)
    assert torch.allclose(s, torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64), atol=0.03)
    out = torch.empty(3 * n, device="tpu", dtype=dtype)
    torch.normal(mean.to("tpu"), std.to("tpu"), out=out)
    assert abs(out.cpu().double().view(n, 3).mean(0)[2].item() - 5.0) < 0.05
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        torch.normal(mean.to("tpu"), -std.to("tpu"))


def test_same_seed_same_draws_for_new_distributions():
    for fn in (lambda t: t.log_normal_(), lambda t: t.cauchy_(), lambda t: t.geometric_(0.3)):
        a = draw(lambda: fn(torch.empty(1000, device="tpu")), seed=5)
        b = draw(lambda: fn(torch.empty(1000, device="tpu")), seed=5)
        assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16,
                                   torch.float32, torch.float64])
def test_bernoulli_scalar(dtype):
    x = draw(lambda: torch.empty(100000, device="tpu", dtype=dtype).bernoulli_(0.25), seed=0)
    assert x.dtype == dtype
    v = x.double()
    assert set(v.unique().tolist()) <= {0.0, 1.0}
    assert abs(v.mean() - 0.25) < 0.01
    with pytest.raises(RuntimeError):
        torch.empty(3, device="tpu").bernoulli_(1.5)


def test_bernoulli_tensor_p():
    p = torch.linspace(0, 1, 11, dtype=torch.float64)
    probs = p.repeat(20000, 1)
    x = draw(lambda: torch.bernoulli(probs.to("tpu")), seed=0)
    freq = x.double().mean(0)
    assert torch.allclose(freq, p, atol=0.015)
    assert freq[0] == 0 and freq[-1] == 1
    # p broadcast to self, self of another dtype
    out = torch.empty(5000, 4, device="tpu", dtype=torch.int64)
    out.bernoulli_(torch.tensor([0.0, 0.5, 0.9, 1.0], device="tpu"))
    m = out.cpu().double().mean(0)
    assert m[0] == 0 and m[3] == 1 and abs(m[1] - 0.5) < 0.03 and abs(m[2] - 0.9) < 0.03


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float32, torch.float64, torch.float16, torch.bfloat16,
                                   torch.bool])
def test_random_overloads(dtype):
    x = draw(lambda: torch.empty(50000, device="tpu", dtype=dtype).random_(), seed=0)
    if dtype == torch.bool:
        assert abs(x.double().mean() - 0.5) < 0.02
    elif dtype.is_floating_point:
        top = 2 ** {torch.float32: 24, torch.float64: 53, torch.float16: 11, torch.bfloat16: 8}[dtype]
        assert x.min() >= 0 and x.double().max() <= top
        assert (x == x.round()).all()
    else:
        assert x.min() >= 0 and x.max() <= torch.iinfo(dtype).max
        assert x.double().mean() > torch.iinfo(dtype).max * 0.4
    if dtype == torch.bool:
        return
    y = draw(lambda: torch.empty(50000, device="tpu", dtype=dtype).random_(3, 10))
    assert y.min() == 3 and y.max() == 9
    counts = torch.bincount(y.long() - 3, minlength=7).double()
    assert (counts / 50000 - 1 / 7).abs().max() < 0.01
    z = draw(lambda: torch.empty(50000, device="tpu", dtype=dtype).random_(5))
    assert z.min() == 0 and z.max() == 4


def test_randint_and_wide_range():
    x = draw(lambda: torch.randint(-5, 5, (40000,), device="tpu"), seed=0)
    assert x.min() == -5 and x.max() == 4
    w = draw(lambda: torch.randint(0, 2 ** 40, (20000,), device="tpu"))
    assert w.max() > 2 ** 39 and w.min() >= 0


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32, torch.float16])
def test_randperm(dtype):
    n = 1000
    p = draw(lambda: torch.randperm(n, device="tpu", dtype=dtype), seed=0)
    assert p.dtype == dtype
    assert torch.equal(p.long().sort().values, torch.arange(n))
    q = draw(lambda: torch.randperm(n, device="tpu", dtype=dtype), seed=0)
    assert torch.equal(p, q)
    r = draw(lambda: torch.randperm(n, device="tpu", dtype=dtype))
    assert not torch.equal(p, r)
    # uniformity: position of element 0 over many small permutations
    firsts = torch.stack([torch.randperm(4, device="tpu").cpu() for _ in range(2000)])[:, 0]
    counts = torch.bincount(firsts, minlength=4).double() / 2000
    assert (counts - 0.25).abs().max() < 0.05
    assert torch.randperm(0, device="tpu").numel() == 0
    out = torch.empty(3, device="tpu", dtype=torch.long)
    torch.randperm(7, out=out)
    assert sorted(out.cpu().tolist()) == list(range(7))
    with pytest.raises(RuntimeError):
        torch.randperm(3000, device="tpu", dtype=torch.float16)


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial(replacement):
    probs = torch.tensor([[0.1, 0.0, 0.3, 0.6], [1.0, 1.0, 1.0, 1.0]])
    n = 4 if not replacement else 20000
    s = draw(lambda: torch.multinomial(probs.to("tpu"), n, replacement), seed=0)
    assert s.shape == (2, n) and s.dtype == torch.int64
    if replacement:
        freq = torch.stack([torch.bincount(r, minlength=4) for r in s]).double() / n
        assert freq[0, 1] == 0
        assert torch.allclose(freq[0], torch.tensor([0.1, 0.0, 0.3, 0.6], dtype=torch.float64), atol=0.015)
        assert torch.allclose(freq[1], torch.full((4,), 0.25, dtype=torch.float64), atol=0.015)
    else:
        for r in s:
            assert sorted(r.tolist()) == [0, 1, 2, 3]
        assert s[0, 3] == 1  # the zero-probability category comes last
        # first draw without replacement follows p
        firsts = torch.stack([torch.multinomial(probs[0].to("tpu"), 2).cpu() for _ in range(3000)])
        f = torch.bincount(firsts[:, 0], minlength=4).double() / 3000
        assert abs(f[3] - 0.6) < 0.04 and f[1] == 0
        assert (firsts[:, 0] != firsts[:, 1]).all()
    t = draw(lambda: torch.multinomial(probs.to("tpu"), n, replacement), seed=0)
    assert torch.equal(s, t)


def test_multinomial_errors():
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
        torch.multinomial(torch.ones(3, device="tpu"), 4)
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        torch.multinomial(torch.ones(2, 2, 2, device="tpu"), 1)
    bad = torch.tensor([0.5, -1.0, 0.5], device="tpu")
    with pytest.raises(RuntimeError, match="probability tensor contains"):
        torch.multinomial(bad, 1).cpu()
    torch.tpu.synchronize()
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        torch.multinomial(torch.zeros(3, device="tpu"), 1, True).cpu()
    torch.tpu.synchronize()


def test_factories_stay_on_device():
    torch.manual_seed(0)
    with torch_tpu.no_fallback():
        for t in (torch.rand(3, 4, device="tpu"), torch.randn(5, device="tpu"),
                  torch.randint(0, 3, (6,), device="tpu"), torch.rand_like(torch.empty(2, device="tpu")),
                  torch.randn_like(torch.empty(2, device="tpu")), torch.bernoulli(torch.full((4,), 0.5, device="tpu"))):
            assert t.device.type == "tpu"


def test_random_full_64_bit_range():
    lo = torch.iinfo(torch.int64).min
    x = draw(lambda: torch.empty(20000, device="tpu", dtype=torch.int64).random_(lo, None), seed=0)
    assert x.min() < -(2 ** 62) and x.max() > 2 ** 62
    assert abs(x.double().mean()) < 2 ** 63 * 0.05


@pytest.mark.parametrize("dist", ["uniform_", "normal_", "exponential_", "bernoulli_"])
def test_lane_parallel_draws_equal_scalar_draws(dist):
    """A contiguous output draws 16 Philox blocks at a time (vectorized, per
    ISA variant); a strided one draws them one by one. Element i gets block
    offset/4 + i either way, so both give the same bits."""
    torch.tpu.manual_seed(123)
    dense = getattr(torch.empty(1000, device="tpu"), dist)().cpu()
    torch.tpu.manual_seed(123)
    strided = torch.empty(2000, device="tpu")[::2]
    getattr(strided, dist)()
    assert torch.equal(dense, strided.cpu())
