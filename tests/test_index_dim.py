"""The index_* family and take/put_ beyond OpInfo's samples: CPU's error type
and message for an index out of range (found on the device, raised at the
next synchronisation), CPU's per-step rounding of index_add with alpha in
float16, strided self for take/put_, and put_'s deterministic accumulation."""

import pytest
import torch

import torch_tpu  # noqa: F401


def _run(fn, device):
    out = fn(device)
    return out.cpu() if device == "tpu" else out  # .cpu() synchronises: device errors surface here


def _same_error(fn):
    with pytest.raises(Exception) as cpu_error:
        _run(fn, "cpu")
    with pytest.raises(Exception) as tpu_error:
        _run(fn, "tpu")
    assert type(tpu_error.value) is type(cpu_error.value)
    assert str(cpu_error.value).splitlines()[0] in str(tpu_error.value)
    # The stream keeps working after the error.
    assert torch.ones(3, device="tpu").sum().item() == 3


@pytest.mark.parametrize(
    "name, fn",
    [
        ("index_add 2-d", lambda d: torch.zeros(3, 4, device=d).index_add_(1, torch.tensor([4], device=d),
                                                                           torch.ones(3, 1, device=d))),
        ("index_add 2-d negative", lambda d: torch.zeros(3, 4, device=d).index_add_(
            1, torch.tensor([-1], device=d), torch.ones(3, 1, device=d))),
        ("index_add 1-d", lambda d: torch.zeros(4, device=d).index_add_(0, torch.tensor([4], device=d),
                                                                        torch.ones(1, device=d))),
        ("index_copy", lambda d: torch.zeros(3, 4, device=d).index_copy_(1, torch.tensor([5], device=d),
                                                                         torch.ones(3, 1, device=d))),
        ("index_copy negative", lambda d: torch.zeros(3, 4, device=d).index_copy_(
            1, torch.tensor([-1], device=d), torch.ones(3, 1, device=d))),
        ("index_fill", lambda d: torch.zeros(3, 4, device=d).index_fill_(1, torch.tensor([-5], device=d), 1.0)),
        ("index_reduce", lambda d: torch.zeros(3, 4, device=d).index_reduce_(
            1, torch.tensor([4], device=d), torch.ones(3, 1, device=d), "prod")),
        ("take", lambda d: torch.zeros(3, 4, device=d).take(torch.tensor([12], device=d))),
        ("take negative", lambda d: torch.zeros(3, 4, device=d).take(torch.tensor([-13], device=d))),
        ("put_", lambda d: torch.zeros(3, 4, device=d).put_(torch.tensor([12], device=d), torch.ones(1, device=d))),
    ],
)
@pytest.mark.filterwarnings("ignore:index_reduce")
def test_out_of_range_errors_match_cpu(name, fn):
    _same_error(fn)


def test_negative_indices_wrap_where_cpu_wraps():
    for d in ("cpu", "tpu"):
        x = torch.zeros(3, 4, device=d)
        x.index_fill_(1, torch.tensor([-1], device=d), 2.0)
        y = torch.zeros(3, 4, device=d).put_(torch.tensor([-1, -12], device=d), torch.tensor([5.0, 6.0], device=d))
        t = torch.arange(12.0, device=d).view(3, 4).take(torch.tensor([[-1, 0], [5, -6]], device=d))
        if d == "cpu":
            expected = (x, y, t)
    torch.testing.assert_close((x.cpu(), y.cpu(), t.cpu()), expected, rtol=0, atol=0)


def test_index_add_alpha_rounds_per_step_in_float16():
    # 1000 additions of 3 * 0.1 onto one row: CPU scales and adds in float and
    # rounds to float16 after every step (274.25, not 299.75).
    src = torch.full((1000, 4), 0.1, dtype=torch.float16)
    index = torch.zeros(1000, dtype=torch.long)
    expected = torch.zeros(2, 4, dtype=torch.float16).index_add(0, index, src, alpha=3)
    got = torch.zeros(2, 4, dtype=torch.float16, device="tpu").index_add(0, index.to("tpu"), src.to("tpu"), alpha=3)
    torch.testing.assert_close(got.cpu(), expected, rtol=0, atol=0)


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_index_add_rows_and_columns(dim, dtype):
    # Duplicated indices along each dim of a non-contiguous self.
    self_cpu = torch.arange(4 * 5 * 6).to(dtype).reshape(6, 5, 4).permute(2, 1, 0)
    index = torch.tensor([0, 2, 2, 1, 0, 3])[: self_cpu.shape[dim]] % self_cpu.shape[dim]
    shape = list(self_cpu.shape)
    shape[dim] = index.numel()
    source = torch.arange(torch.Size(shape).numel()).to(dtype).reshape(shape)
    expected = self_cpu.index_add(dim, index, source, alpha=2)
    got = self_cpu.to("tpu").index_add(dim, index.to("tpu"), source.to("tpu"), alpha=2)
    torch.testing.assert_close(got.cpu(), expected, rtol=0, atol=0)


def test_take_and_put_on_strided_self():
    base = torch.arange(24.0).view(4, 6)
    index = torch.tensor([[0, 5], [11, 7]])
    for d in ("cpu", "tpu"):
        x = base.to(d).t()  # non-contiguous: flat indices follow the view's row-major order
        taken = x.take(index.to(d))
        y = base.clone().to(d).t()
        y.put_(index.to(d), torch.tensor([[-1.0, -2.0], [-3.0, -4.0]], device=d))
        if d == "cpu":
            expected = (taken, y)
    torch.testing.assert_close((taken.cpu(), y.cpu()), expected, rtol=0, atol=0)


def test_put_accumulate_sums_duplicates_deterministically():
    index = torch.tensor([1, 1, 1, 3, 1])
    source = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5], dtype=torch.float16)
    expected = torch.zeros(5, dtype=torch.float16).put_(index, source, accumulate=True)
    got = torch.zeros(5, dtype=torch.float16, device="tpu").put_(index.to("tpu"), source.to("tpu"), accumulate=True)
    torch.testing.assert_close(got.cpu(), expected, rtol=0, atol=0)


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_integer_and_nan(reduce, include_self):
    index = torch.tensor([0, 2, 0, 2, 1])
    ints = torch.arange(15).reshape(5, 3) - 7
    floats = torch.randn(5, 3)
    floats[1, 1] = float("nan")
    for source in (ints, floats):
        self_cpu = torch.full((3, 3), 2).to(source.dtype)
        expected = self_cpu.index_reduce(0, index, source, reduce, include_self=include_self)
        got = self_cpu.to("tpu").index_reduce(0, index.to("tpu"), source.to("tpu"), reduce, include_self=include_self)
        torch.testing.assert_close(got.cpu(), expected, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float32, torch.complex64])
@pytest.mark.parametrize("size", [0, 1, 3, 10])
def test_nonzero_static_values_match_cpu_without_a_sync(dtype, size):
    x = (torch.arange(24).reshape(2, 3, 4) % 5 == 0).to(dtype)
    expected = torch.nonzero_static(x, size=size, fill_value=-7)
    torch_tpu.reset_stats()
    actual = torch.nonzero_static(x.to("tpu"), size=size, fill_value=-7)
    assert torch_tpu.stats()["syncs"].get("nonzero", 0) == 0
    assert actual.stride() == (1, size)  # column-major, as FakeTensor predicts for tpu
    assert torch.equal(actual.cpu(), expected)
    out = torch.empty(0, dtype=torch.long, device="tpu")
    torch.nonzero_static(x.to("tpu"), size=size, fill_value=-7, out=out)
    assert torch.equal(out.cpu(), expected)
