"""Indexed writes with duplicate indices under
torch.use_deterministic_algorithms(True): the last write in index order wins,
as CPU's serial loop and CUDA's sorted put do (PyTorch's device-generic
test_index_copy_deterministic / test_index_put_non_accumulate_deterministic).
The reference is a Python loop over the indices in order, and CPU. Sizes
large enough that the device splits the work over its cores, and the index
full of duplicates, so a parallel put would let an earlier duplicate win.
(scatter_ and index_add_ already write in index order, and put_ refuses the
flag without accumulate, as CPU does.)"""

from __future__ import annotations

import pytest
import torch

import torch_tpu

M, ELEMS, ROW = 15, 25000, 40   # M slots written ELEMS times


@pytest.fixture
def deterministic():
    saved = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(saved)


def _data(seed):
    g = torch.Generator().manual_seed(seed)
    index = torch.randint(M, (ELEMS,), generator=g)
    src = torch.rand(ELEMS, ROW, generator=g)
    x = torch.rand(M, ROW, generator=g)
    return x, index, src


def _last_wins(x, dim, index, src):
    ref = x.clone()
    for i, k in enumerate(index.tolist()):
        ref.select(dim, k).copy_(src.select(dim, i))
    return ref


@pytest.mark.parametrize("dim", [0, 1])
def test_index_copy_last_index_wins(deterministic, dim):
    x, index, src = _data(0)
    if dim == 1:
        x, src = x.t().contiguous(), src.t().contiguous()
    expected = _last_wins(x, dim, index, src)
    with torch_tpu.no_fallback():
        got = x.to("tpu").index_copy_(dim, index.to("tpu"), src.to("tpu")).cpu()
    assert torch.equal(got, expected)
    assert torch.equal(got, x.clone().index_copy_(dim, index, src))  # CPU agrees


def test_index_put_without_accumulate_last_index_wins(deterministic):
    x, index, src = _data(1)
    expected = _last_wins(x, 0, index, src)
    with torch_tpu.no_fallback():
        got = x.to("tpu").index_put_((index.to("tpu"),), src.to("tpu"), accumulate=False).cpu()
        vector = x[:, 0].to("tpu").index_put((index.to("tpu"),), src[:, 0].to("tpu")).cpu()
    assert torch.equal(got, expected)
    assert torch.equal(vector, expected[:, 0])
