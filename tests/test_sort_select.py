"""Sorting and selection ops against CPU, beyond the OpInfo samples: the
index chosen among equal values (median, nanmedian, kthvalue, mode), all-NaN
rows, empty inputs, and the Scalar overloads Python reaches directly
(bucketize.Scalar; op_db's samples pass tensors only)."""

import pytest
import torch

import torch_tpu

SELECT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int8,
                 torch.uint8]


def assert_same(actual, expected):
    actual = actual if isinstance(actual, tuple) else (actual,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for a, e in zip(actual, expected):
        assert a.device.type == "tpu"
        torch.testing.assert_close(a.cpu(), e, equal_nan=True, atol=0, rtol=0)


def tied(shape, dtype, nan_fraction=0.2):
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 5, shape, generator=g).to(dtype)
    if dtype.is_floating_point:
        x[torch.rand(shape, generator=g) < nan_fraction] = float("nan")
    return x


@pytest.mark.parametrize("dtype", SELECT_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(7, 50), (3, 200), (5, 1), (1000,)], ids=str)
def test_selection_ties_and_nan_match_cpu(dtype, shape):
    x = tied(shape, dtype)
    t = x.to("tpu")
    with torch_tpu.no_fallback():
        for d in range(len(shape)):
            assert_same(torch.median(t, d), torch.median(x, d))
            assert_same(torch.nanmedian(t, d), torch.nanmedian(x, d))
            assert_same(torch.mode(t, d), torch.mode(x, d))
            for k in sorted({1, min(2, shape[d]), shape[d]}):
                assert_same(torch.kthvalue(t, k, d), torch.kthvalue(x, k, d))
        assert_same(torch.median(t), torch.median(x))
        assert_same(torch.nanmedian(t), torch.nanmedian(x))


def test_nanmedian_all_nan_rows_pick_cpus_index():
    x = torch.full((40, 7), float("nan"))
    assert_same(torch.nanmedian(x.to("tpu"), 0), torch.nanmedian(x, 0))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.float16],
                         ids=str)
def test_median_of_empty_is_nan_converted(dtype):
    assert_same(torch.median(torch.empty(0, dtype=dtype, device="tpu")), torch.median(torch.empty(0, dtype=dtype)))


def test_mode_bool():
    x = torch.randint(0, 2, (2000,), generator=torch.Generator().manual_seed(1)).bool()
    assert_same(torch.mode(x.to("tpu")), torch.mode(x))


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("value", [3, 2.5, -1, True])
@pytest.mark.parametrize("right", [False, True])
def test_bucketize_scalar(dtype, value, right):
    boundaries = torch.tensor([1, 2, 2, 3, 5, 8]).to(dtype)
    expected = torch.bucketize(value, boundaries, right=right)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        actual = torch.bucketize(value, boundaries.to("tpu"), right=right)
    assert "direct" in torch_tpu.stats()["ops"].get("aten::bucketize.Scalar", {})
    assert actual.dtype == expected.dtype
    assert_same(actual, expected)


def test_searchsorted_nan_and_sorter_match_cpu():
    seq = torch.tensor([[3.0, float("nan"), 1.0, 2.0], [0.5, 0.25, 4.0, float("nan")]])
    sorter = seq.argsort(dim=-1)
    values = torch.tensor([[float("nan"), 1.0, 2.5], [0.25, 5.0, float("nan")]])
    for side in ("left", "right"):
        assert_same(torch.searchsorted(seq.to("tpu"), values.to("tpu"), side=side, sorter=sorter.to("tpu")),
                    torch.searchsorted(seq, values, side=side, sorter=sorter))
    bad = torch.tensor([[0, 1, 2, 4], [0, 1, 2, 3]])
    with pytest.raises(RuntimeError, match="sorter index out of range"):
        torch.searchsorted(seq.to("tpu"), values.to("tpu"), sorter=bad.to("tpu"))


def test_unique_nan_entries_and_dims_match_cpu():
    x = torch.tensor([2.0, float("nan"), 1.0, float("nan"), 2.0, 0.0, float("nan")])
    kw = dict(return_inverse=True, return_counts=True)
    with torch_tpu.no_fallback():
        assert_same(torch.unique(x.to("tpu"), **kw), torch.unique(x, **kw))
        assert_same(torch.unique_consecutive(x.to("tpu"), **kw), torch.unique_consecutive(x, **kw))
        m = torch.randint(0, 3, (50, 3), generator=torch.Generator().manual_seed(2)).float()
        m[3, 1] = m[7, 1] = float("nan")
        for d in (0, 1):
            assert_same(torch.unique(m.to("tpu"), dim=d, **kw), torch.unique(m, dim=d, **kw))
            assert_same(torch.unique_consecutive(m.to("tpu"), dim=d, **kw), torch.unique_consecutive(m, dim=d, **kw))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool], ids=str)
def test_cummax_cummin_ties_and_nan_take_latest_index(dtype):
    x = tied((6, 40), dtype) if dtype != torch.bool else tied((6, 40), torch.int64) > 2
    t = x.to("tpu")
    with torch_tpu.no_fallback():
        for d in (0, 1):
            assert_same(torch.cummax(t, d), torch.cummax(x, d))
            assert_same(torch.cummin(t, d), torch.cummin(x, d))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64], ids=str)
def test_logcumsumexp_infinities_and_nan(dtype):
    x = torch.tensor([[float("-inf"), float("-inf"), 1.0, float("inf"), float("inf"), 2.0],
                      [0.5, float("nan"), 1.0, -3.0, float("-inf"), 4.0]]).to(dtype)
    with torch_tpu.no_fallback():
        actual = torch.logcumsumexp(x.to("tpu"), 1)
    torch.testing.assert_close(actual.cpu(), torch.logcumsumexp(x, 1), equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64], ids=str)
def test_unique_wide_unsigned(dtype):
    x = torch.tensor([[3, 1], [3, 2], [3, 1]]).to(dtype)
    kw = dict(return_inverse=True, return_counts=True)
    with torch_tpu.no_fallback():
        assert_same(torch.unique(x.to("tpu"), **kw), torch.unique(x, **kw))
        assert_same(torch.unique(x.to("tpu"), dim=0, **kw), torch.unique(x, dim=0, **kw))
        assert_same(torch.unique_consecutive(x.to("tpu"), **kw), torch.unique_consecutive(x, **kw))


@pytest.mark.parametrize("return_inverse", [False, True])
def test_old_unique_overload_matches_cpu(return_inverse):
    # aten::_unique: what index_fill's backward and older callers reach.
    x = torch.tensor([[4, 1, 4], [0, 1, 7]])
    with torch_tpu.no_fallback():
        actual = torch.ops.aten._unique(x.to("tpu"), True, return_inverse)
    assert_same(actual, torch.ops.aten._unique(x, True, return_inverse))


@pytest.mark.parametrize("invert", [False, True])
def test_isin_scalar_overloads_and_special_values_match_cpu(invert):
    x = torch.tensor([[0.0, -0.0, float("nan"), 2.5], [1.0, 2.0, float("inf"), -1.0]])
    test = torch.tensor([0.0, float("nan"), 2.0, float("inf")])
    with torch_tpu.no_fallback():
        assert_same(torch.isin(x.to("tpu"), test.to("tpu"), invert=invert), torch.isin(x, test, invert=invert))
        assert_same(torch.isin(x.to("tpu"), 2.0, invert=invert), torch.isin(x, 2.0, invert=invert))
        ints = torch.tensor([1, 2, 3])
        # A Python float element promotes with int test elements: 2.5 is not 2.
        for element in (2, 2.5):
            assert_same(torch.isin(element, ints.to("tpu"), invert=invert), torch.isin(element, ints, invert=invert))
        assert_same(torch.isin(x.to("tpu"), torch.empty(0, device="tpu"), invert=invert),
                    torch.isin(x, torch.empty(0), invert=invert))


@pytest.mark.parametrize("reduce", ["max", "min", "mean", "sum", "prod"])
@pytest.mark.parametrize("form", ["lengths", "offsets"])
def test_segment_reduce_ties_zeros_initial_and_grads_match_cpu(reduce, form):
    # Ties (max/min split positive gradients), zeros and NaN (prod's explicit
    # exclusive products), an empty segment, an initial value, int32 indices.
    data = torch.tensor([[2.0, 2.0, -1.0, 0.0, 3.0, float("nan"), 1.5],
                         [0.5, 0.5, 0.5, 4.0, 0.0, 0.0, -2.0]], dtype=torch.float64)
    lengths = torch.tensor([[3, 0, 2, 2], [3, 1, 0, 3]], dtype=torch.int32)
    index = dict(lengths=lengths) if form == "lengths" else dict(
        offsets=torch.cat([torch.zeros(2, 1, dtype=torch.int32), lengths.cumsum(1).int()], 1))
    grad_out = torch.tensor([[1.0, -2.0, 0.5, 3.0], [-1.0, 2.0, 1.0, 0.25]], dtype=torch.float64)
    results = []
    for device in ("cpu", "tpu"):
        for initial in (None, 1.5):
            x = data.to(device).detach().requires_grad_()
            with torch_tpu.no_fallback():
                y = torch.segment_reduce(x, reduce, axis=1, initial=initial,
                                         **{k: v.to(device) for k, v in index.items()})
                y.backward(grad_out.to(device))
            results.append((y.detach().cpu(), x.grad.cpu()))
    for tpu, cpu in zip(results[2:], results[:2]):
        torch.testing.assert_close(tpu, cpu, equal_nan=True)


def test_segment_reduce_reduced_precision_matches_cpu():
    data = torch.randn(4, 50, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    lengths = torch.tensor([[10, 20, 0, 20]] * 4)
    for reduce in ("sum", "mean", "max", "prod"):
        expected = torch.segment_reduce(data, reduce, lengths=lengths, axis=1)
        with torch_tpu.no_fallback():
            actual = torch.segment_reduce(data.to("tpu"), reduce, lengths=lengths.to("tpu"), axis=1)
        torch.testing.assert_close(actual.cpu(), expected, equal_nan=True)
