"""Indexing, shape and range kernels (csrc/kernels/index/, shape/;
glue csrc/aten/native/index/index.cpp, aten/native/shape/shape.cpp, aten/native/index/scatter_gather.cpp) against
CPU eager: negative indices, broadcast indices, bool masks, non-contiguous
inputs and outputs, out=, in place, empty tensors, and the errors - including
an index out of range found on the device and raised, with CPU's type and
message, at the next synchronisation."""

import pytest
import torch

from conftest import make_tensor

import torch_tpu  # noqa: F401  (a missing backend fails the module; it never skips it)


DEV = "tpu"
DTYPES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
          torch.float64, torch.complex64]


def tpu(t):
    return t.to(DEV)


def same(actual, expected, **kw):
    torch.testing.assert_close(actual.cpu(), expected, rtol=0, atol=0, equal_nan=True, **kw)


def noncontig(t):
    """The same values, laid out with a gap on every dim (tpu tensor)."""
    big = torch.zeros([2 * s for s in t.shape], dtype=t.dtype, device=DEV)
    view = big[tuple(slice(None, None, 2) for _ in t.shape)] if t.dim() else big
    view.copy_(tpu(t))
    return view


# ---- index_select (embedding) ---------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_values(dtype, dim):
    x = make_tensor((5, 6, 7), dtype)
    idx = torch.tensor([4, 0, 0, 3, 1])
    with torch_tpu.no_fallback():
        out = torch.index_select(tpu(x), dim, tpu(idx))
    same(out, torch.index_select(x, dim, idx))


def test_index_select_noncontiguous_int32_index_and_out():
    x = make_tensor((6, 9), torch.float32)
    idx = torch.tensor([5, 2, 2, 0], dtype=torch.int32)
    expected = x.t().index_select(0, idx)
    out = torch.empty(4, 12, device=DEV)[:, ::2]
    with torch_tpu.no_fallback():
        torch.index_select(noncontig(x).t(), 0, tpu(idx), out=out)
    same(out, expected)
    assert out.stride() == (12, 2)


def test_index_select_scalar_and_empty():
    x = torch.tensor(3.5)
    same(torch.index_select(tpu(x), 0, tpu(torch.tensor([0]))), torch.index_select(x, 0, torch.tensor([0])))
    y = make_tensor((4, 3), torch.float32)
    empty = torch.tensor([], dtype=torch.int64)
    same(torch.index_select(tpu(y), 0, tpu(empty)), torch.index_select(y, 0, empty))


def test_index_select_errors_like_cpu():
    x = tpu(torch.ones(3, 4))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        torch.index_select(x, 0, tpu(torch.zeros(2, 2, dtype=torch.int64)))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        torch.index_select(x, 0, tpu(torch.zeros(2)))
    with pytest.raises(RuntimeError, match="self and result must have the same scalar type"):
        torch.index_select(x, 0, tpu(torch.tensor([0])), out=torch.empty(0, dtype=torch.float64, device=DEV))


def test_index_out_of_range_raises_at_next_sync():
    """The device finds the bad index; the next synchronisation raises CPU's
    IndexError, and the stream is usable afterwards."""
    x = tpu(torch.arange(12.0).reshape(3, 4))
    out = torch.index_select(x, 0, tpu(torch.tensor([0, 3])))  # enqueued, no error yet
    with pytest.raises(IndexError, match="index out of range in self"):
        out.cpu()
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.index_select(x, 0, tpu(torch.tensor([-1]))).cpu()
    same(torch.index_select(x, 0, tpu(torch.tensor([2]))), torch.arange(8.0, 12.0).reshape(1, 4))


def test_embedding_forward_and_backward():
    emb_cpu = torch.nn.Embedding(50, 8)
    emb = torch.nn.Embedding(50, 8).to(DEV)
    emb.load_state_dict(emb_cpu.state_dict())
    ids = torch.tensor([[1, 4, 4, 49], [0, 2, 3, 1]])
    same(emb(tpu(ids)), emb_cpu(ids))


# ---- gather / scatter -----------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_gather(dtype):
    x = make_tensor((4, 5), dtype)
    idx = torch.tensor([[3, 0, 1], [2, 2, 0]])
    with torch_tpu.no_fallback():
        same(torch.gather(tpu(x), 1, tpu(idx)), torch.gather(x, 1, idx))
        same(torch.gather(noncontig(x), 0, noncontig(idx)), torch.gather(x, 0, idx))


def test_gather_out_of_bounds_runtime_error():
    x = tpu(torch.ones(3, 3))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        torch.gather(x, 0, tpu(torch.tensor([[3]]))).cpu()
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1 with size 3"):
        torch.gather(x, 1, tpu(torch.tensor([[-1]]))).cpu()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool, torch.complex64])
def test_scatter_variants(dtype):
    x = make_tensor((4, 5), dtype)
    src = make_tensor((2, 5), dtype, seed=1)
    idx = torch.tensor([[3, 0, 1, 1, 2], [0, 1, 2, 3, 0]])
    with torch_tpu.no_fallback():
        same(tpu(x).scatter(0, tpu(idx), tpu(src)), x.scatter(0, idx, src))
        same(tpu(x).scatter(0, tpu(idx), 1), x.scatter(0, idx, 1))
        same(tpu(x).scatter_add(0, tpu(idx), tpu(src)), x.scatter_add(0, idx, src))
        y = noncontig(x)
        y.scatter_(1, tpu(idx), tpu(src))
        same(y, x.clone().scatter_(1, idx, src))
        if dtype != torch.bool:
            same(tpu(x).scatter(0, tpu(idx), tpu(src), reduce="multiply"), x.scatter(0, idx, src, reduce="multiply"))
            same(tpu(x).scatter(0, tpu(idx), 2, reduce="add"), x.scatter(0, idx, 2, reduce="add"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bfloat16])
def test_scatter_and_gather_along_dim0_of_wide_rows(dtype):
    """Along dim 0 of row-major tensors the kernel walks tiles of rows with j
    outermost; an index expanded along the rows (whole-row scatter_add, the
    embedding-gradient pattern) takes contiguous runs. Both against CPU,
    with duplicates (accumulated in index order), and wider than one tile."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 37, (300,), generator=g)
    src = make_tensor((300, 200), dtype, seed=2)
    base = make_tensor((37, 200), dtype, seed=3)
    expanded = ids.view(-1, 1).expand(-1, 200)
    scattered = torch.randint(0, 37, (300, 200), generator=g)
    with torch_tpu.no_fallback():
        for idx in (expanded, scattered):
            same(tpu(base).scatter_add(0, tpu(idx), tpu(src)), base.scatter_add(0, idx, src))
            same(tpu(base).scatter(0, tpu(idx), tpu(src), reduce="multiply"),
                 base.scatter(0, idx, src, reduce="multiply"))
            same(torch.gather(tpu(base), 0, tpu(idx)), torch.gather(base, 0, idx))
        # float16/bfloat16 sums and products accumulate in float and round
        # once, as CPU's do.
        for reduce in ("sum", "mean", "prod", "amax"):
            same(tpu(base).scatter_reduce(0, tpu(scattered), tpu(src), reduce),
                 base.scatter_reduce(0, scattered, src, reduce))
    bad = expanded.clone()
    bad[150] = 37
    with pytest.raises(RuntimeError, match="index 37 is out of bounds for dimension 0 with size 37"):
        tpu(base).scatter_add(0, tpu(bad), tpu(src)).cpu()


def test_scatter_add_duplicates_deterministic():
    x = torch.zeros(3, dtype=torch.float64)
    idx = torch.tensor([0, 1, 0, 0, 2, 1] * 100)
    src = torch.arange(600, dtype=torch.float64) / 7
    same(tpu(x).scatter_add(0, tpu(idx), tpu(src)), x.scatter_add(0, idx, src))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bfloat16])
def test_scatter_reduce(reduce, include_self, dtype):
    x = make_tensor((5, 3), dtype)
    src = make_tensor((6, 3), dtype, seed=2)
    idx = torch.tensor([[0, 1, 4], [0, 1, 4], [2, 2, 2], [0, 3, 3], [4, 4, 0], [1, 0, 1]])
    expected = x.scatter_reduce(0, idx, src, reduce, include_self=include_self)
    with torch_tpu.no_fallback():
        actual = tpu(x).scatter_reduce(0, tpu(idx), tpu(src), reduce, include_self=include_self)
    torch.testing.assert_close(actual.cpu(), expected)


def test_scatter_reduce_nan_and_complex_amax():
    x = torch.tensor([1.0, 2.0, float("nan")])
    src = torch.tensor([float("nan"), 5.0, 0.0])
    idx = torch.tensor([0, 1, 2])
    same(tpu(x).scatter_reduce(0, tpu(idx), tpu(src), "amax"), x.scatter_reduce(0, idx, src, "amax"))
    z = tpu(torch.ones(3, dtype=torch.complex64))
    with pytest.raises(NotImplementedError):
        z.scatter_reduce(0, tpu(idx), z, "amax")


# ---- advanced indexing ------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_index_tensor(dtype):
    x = make_tensor((4, 5, 6), dtype)
    i = torch.tensor([[0, -1], [2, 3]])
    j = torch.tensor([1, -5])  # broadcasts against i
    with torch_tpu.no_fallback():
        same(tpu(x)[tpu(i), tpu(j)], x[i, j])
        same(tpu(x)[:, tpu(j)], x[:, j])
        same(tpu(x)[tpu(i), :, tpu(j)], x[i, :, j])
        same(noncontig(x)[tpu(i)], x[i])


def test_index_bool_mask_and_cpu_indices():
    x = make_tensor((4, 5), torch.float32)
    mask = x > 0
    with torch_tpu.no_fallback():
        same(tpu(x)[tpu(mask)], x[mask])
        same(tpu(x)[tpu(mask[:, 0])], x[mask[:, 0]])
        same(tpu(x)[torch.tensor([1, 3])], x[torch.tensor([1, 3])])  # CPU indices move to the device
    empty = torch.zeros(4, 5, dtype=torch.bool)
    same(tpu(x)[tpu(empty)], x[empty])


def test_index_out_of_bounds_index_error():
    x = tpu(torch.ones(3, 4))
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[tpu(torch.tensor([0, 3]))].cpu()
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 0 with size 4"):
        x[:, tpu(torch.tensor([-5]))].cpu()


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool, torch.complex128])
def test_index_put(accumulate, dtype):
    x = make_tensor((5, 4), dtype)
    v = make_tensor((3, 4), dtype, seed=3)
    i = torch.tensor([4, -1, 0]) if not accumulate else torch.tensor([4, -1, 0])  # -1 == 4: duplicates
    if not accumulate:
        i = torch.tensor([4, 1, 0])
    with torch_tpu.no_fallback():
        y = tpu(x)
        y.index_put_((tpu(i),), tpu(v), accumulate=accumulate)
    same(y, x.clone().index_put_((i,), v, accumulate=accumulate))


def test_index_put_scalar_value_mask_and_broadcast():
    x = make_tensor((4, 5), torch.float32)
    mask = x > 0
    y = tpu(x)
    y[tpu(mask)] = 7.0
    e = x.clone()
    e[mask] = 7.0
    same(y, e)
    y = noncontig(x)
    y[tpu(torch.tensor([0, 2]))] = tpu(torch.arange(5.0))
    e = x.clone()
    e[torch.tensor([0, 2])] = torch.arange(5.0)
    same(y, e)


def test_index_put_accumulate_many_duplicates():
    x = torch.zeros(4, dtype=torch.float32)
    i = torch.tensor([0, 1, 2, 3] * 1000 + [0] * 77)
    v = torch.rand(len(i))
    expected = x.index_put((i,), v, accumulate=True)
    actual = tpu(x).index_put((tpu(i),), tpu(v), accumulate=True)
    torch.testing.assert_close(actual.cpu(), expected)


# ---- masked_fill --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_fill(dtype):
    x = make_tensor((4, 6), dtype)
    mask = make_tensor((4, 6), torch.bool, seed=5)
    with torch_tpu.no_fallback():
        same(tpu(x).masked_fill(tpu(mask), 1), x.masked_fill(mask, 1))
        same(tpu(x).masked_fill(tpu(mask[0]), 0), x.masked_fill(mask[0], 0))  # broadcast mask
        y = noncontig(x)
        y.masked_fill_(tpu(mask), True if dtype == torch.bool else 2)
        same(y, x.masked_fill(mask, True if dtype == torch.bool else 2))


def test_masked_fill_causal_and_tensor_value():
    scores = torch.randn(2, 4, 4)
    causal = torch.ones(4, 4).tril() == 0
    expected = scores.masked_fill(causal, float("-inf"))
    with torch_tpu.no_fallback():
        same(tpu(scores).masked_fill(tpu(causal), float("-inf")), expected)
        same(tpu(scores).masked_fill(tpu(causal), torch.tensor(-1.5)), scores.masked_fill(causal, -1.5))
    same(tpu(scores).masked_fill(tpu(causal), tpu(torch.tensor(-2.5))), scores.masked_fill(causal, -2.5))


def test_masked_fill_errors():
    x = tpu(torch.ones(3, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        x.masked_fill_(tpu(torch.ones(3)), 1)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        x.masked_fill_(tpu(torch.ones(3, dtype=torch.bool)), 300)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        x.masked_fill_(tpu(torch.ones(3, dtype=torch.bool)), tpu(torch.ones(2)))


@pytest.mark.parametrize("mask", [True, False])
def test_masked_scatter_and_select_backward_of_a_0dim_tensor(mask):
    # masked_select's backward is masked_scatter_ into a 0-dim zeros for a
    # 0-dim input: a 0-dim mask must not become an index that a 0-dim self rejects.
    results = []
    for device in ("cpu", "tpu"):
        x = torch.tensor(2.5, device=device, requires_grad=True)
        m = torch.tensor(mask, device=device)
        y = torch.masked_select(x, m)
        (y * 3).sum().backward()
        z = torch.zeros((), device=device).masked_scatter_(m, torch.tensor([7.0, 8.0], device=device))
        results.append([t.detach().cpu() for t in (y, x.grad, z)])
    for got, expected in zip(*reversed(results)):
        torch.testing.assert_close(got, expected)


# ---- repeat_interleave ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_repeat_interleave_with_a_repeats_tensor(dtype):
    x = torch.arange(12.0).reshape(4, 3)
    repeats = torch.tensor([2, 0, 3, 1], dtype=dtype)
    for dim in (0, None):
        r = repeats if dim == 0 else repeats.repeat(3)
        same(tpu(x).repeat_interleave(tpu(r), dim=dim), x.repeat_interleave(r, dim=dim))
    same(torch.repeat_interleave(tpu(repeats)), torch.repeat_interleave(repeats))  # the index vector itself
    same(tpu(x).repeat_interleave(tpu(torch.tensor(2, dtype=dtype)), dim=1), x.repeat_interleave(2, dim=1))
    empty = torch.repeat_interleave(tpu(torch.tensor([], dtype=dtype)))
    assert empty.dtype == dtype and empty.shape == (0,)
    # The length is data: one synchronisation, none with output_size.
    torch_tpu.reset_stats()
    torch.repeat_interleave(tpu(repeats))
    assert torch_tpu.stats()["syncs"].get("repeat_interleave") == 1
    torch_tpu.reset_stats()
    got = torch.repeat_interleave(tpu(repeats), output_size=6)
    assert torch_tpu.stats()["syncs"].get("repeat_interleave", 0) == 0
    same(got, torch.repeat_interleave(repeats))


def test_repeat_interleave_errors_like_cpu():
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        torch.repeat_interleave(tpu(torch.tensor([1, -1])))
    with pytest.raises(RuntimeError, match="repeat_interleave only accept 1D vector as repeat"):
        torch.repeat_interleave(tpu(torch.tensor([[1]])))
    with pytest.raises(NotImplementedError, match="Float"):
        torch.repeat_interleave(tpu(torch.tensor([1.0])))
    # With output_size nothing is read back: the device finds a wrong size,
    # the next synchronisation reports it, and the stream goes on.
    wrong = torch.repeat_interleave(tpu(torch.tensor([1, 2])), output_size=4)
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        wrong.cpu()
    same(torch.repeat_interleave(tpu(torch.tensor([1, 2])), output_size=3), torch.tensor([0, 1, 1]))


# ---- cat / stack -------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_dims_and_noncontiguous(dim):
    a = make_tensor((2, 3, 4), torch.float32)
    b = make_tensor((2, 3, 4), torch.float32, seed=1)
    with torch_tpu.no_fallback():
        same(torch.cat([tpu(a), noncontig(b), tpu(a)], dim), torch.cat([a, b, a], dim))
        same(torch.stack([tpu(a), noncontig(b)], dim), torch.stack([a, b], dim))


def test_cat_promotion_empty_and_out():
    a = make_tensor((2, 3), torch.int32)
    b = make_tensor((1, 3), torch.float16)
    legacy_empty = torch.tensor([])
    with torch_tpu.no_fallback():
        r = torch.cat([tpu(a), tpu(b), tpu(legacy_empty)])
        same(r, torch.cat([a, b, legacy_empty]))
        out = torch.empty(3, 6, dtype=torch.float64, device=DEV)[:, ::2]
        torch.cat([tpu(a), tpu(b)], out=out)
    same(out, torch.cat([a, b]).double())
    same(torch.cat([tpu(torch.empty(0, 3)), tpu(a)]), torch.cat([torch.empty(0, 3), a]))


def test_cat_errors():
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        torch.cat([tpu(torch.ones(2, 3)), tpu(torch.ones(2, 4))])
    with pytest.raises(RuntimeError, match="same device"):
        torch.cat([tpu(torch.ones(2)), torch.ones(2)])


# ---- tril / triu ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", [-2, 0, 1, 5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bool, torch.complex64, torch.int8])
def test_tril_triu(k, dtype):
    x = make_tensor((2, 4, 5), dtype)
    with torch_tpu.no_fallback():
        same(torch.tril(tpu(x), k), torch.tril(x, k))
        same(torch.triu(noncontig(x), k), torch.triu(x, k))
        y = tpu(x)
        y.tril_(k)
        same(y, torch.tril(x, k))
        y = noncontig(x).transpose(1, 2)
        y.triu_(k)
        same(y, torch.triu(x.transpose(1, 2), k))
        out = torch.empty(0, dtype=dtype, device=DEV)
        torch.tril(tpu(x), k, out=out)
    same(out, torch.tril(x, k))


def test_tril_errors_and_causal_mask():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        torch.tril(tpu(torch.ones(3)))
    same(torch.ones(5, 5, device=DEV).tril(), torch.ones(5, 5).tril())


# ---- arange / linspace / factories -----------------------------------------------------------

@pytest.mark.parametrize("args", [(10,), (2, 11, 3), (-5, 5, 0.5), (1.0, -2.0, -0.3), (0, 1, 0.1)])
@pytest.mark.parametrize("dtype", [None, torch.float32, torch.float64, torch.int64, torch.int16, torch.bfloat16])
def test_arange(args, dtype):
    try:
        expected = torch.arange(*args, dtype=dtype)
    except (RuntimeError, ValueError) as e:  # e.g. int64 with a step that truncates to 0
        with pytest.raises(type(e), match=str(e).split("\n")[0]):
            torch.arange(*args, dtype=dtype, device=DEV)
        return
    with torch_tpu.no_fallback():
        actual = torch.arange(*args, dtype=dtype, device=DEV)
    torch.testing.assert_close(actual.cpu(), expected, atol=1e-6, rtol=1e-6)


def test_arange_out_and_errors():
    out = torch.empty(8, device=DEV)[::2]
    torch.arange(0, 4, out=out)
    same(out, torch.arange(0, 4).float())
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        torch.arange(0, 4, 0, device=DEV)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        torch.arange(0, 4, -1, device=DEV)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16])
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 100])
def test_linspace(dtype, steps):
    expected = torch.linspace(-3, 5.5, steps, dtype=dtype)
    with torch_tpu.no_fallback():
        actual = torch.linspace(-3, 5.5, steps, dtype=dtype, device=DEV)
    torch.testing.assert_close(actual.cpu(), expected)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 100])
def test_linspace_complex(dtype, steps):
    # c10::complex arithmetic with a real step count: each part is a real linspace.
    for start, end in [(-3 + 2j, 5.5 - 1j), (1.0, 4j), (0.25, -7.5)]:
        expected = torch.linspace(start, end, steps, dtype=dtype)
        with torch_tpu.no_fallback():
            actual = torch.linspace(start, end, steps, dtype=dtype, device=DEV)
            out = torch.empty(2 * steps, dtype=dtype, device=DEV)[::2]
            torch.linspace(start, end, steps, out=out)
        torch.testing.assert_close(actual.cpu(), expected)
        torch.testing.assert_close(out.cpu(), expected)


def test_factories_over_fill():
    with torch_tpu.no_fallback():
        same(torch.zeros(3, 4, device=DEV), torch.zeros(3, 4))
        same(torch.ones(3, dtype=torch.int8, device=DEV), torch.ones(3, dtype=torch.int8))
        same(torch.full((2, 2), 7.5, device=DEV), torch.full((2, 2), 7.5))
        x = tpu(torch.ones(2, 3))
        same(torch.zeros_like(x), torch.zeros(2, 3))
        same(torch.full_like(x, -1), torch.full((2, 3), -1.0))
        assert torch.empty_like(x).shape == (2, 3)


# ---- nonzero ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.bool, torch.float32, torch.int64, torch.complex64])
def test_nonzero(dtype):
    x = make_tensor((3, 70000), dtype) if dtype != torch.bool else torch.rand(3, 70000) > 0.7
    with torch_tpu.no_fallback():
        same(torch.nonzero(tpu(x)), torch.nonzero(x))
        same(torch.nonzero(noncontig(x[:, :50])), torch.nonzero(x[:, :50]))
        same(torch.nonzero(tpu(torch.tensor(3))), torch.nonzero(torch.tensor(3)))
        same(torch.nonzero(tpu(torch.zeros(0, 2))), torch.nonzero(torch.zeros(0, 2)))


def test_family_is_registered():
    """A lost registration fails here (and in the tests above), never skips."""
    assert torch._C._dispatch_has_kernel_for_dispatch_key("aten::index_select", "PrivateUse1"), "indexing ops are not registered for tpu"
