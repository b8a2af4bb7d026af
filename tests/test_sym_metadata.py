"""The metadata queries of the Core ATen IR (sym_size.int, sym_stride.int,
sym_numel, sym_storage_offset, sym_is_contiguous) on tpu tensors: the same
answers as CPU for contiguous tensors, views with storage offsets,
transposes, expanded and channels-last layouts, with no kernel and no host
fallback; and under torch.compile with dynamic shapes, where they become
symbolic."""

import pytest
import torch

import torch_tpu

aten = torch.ops.aten


def layouts():
    base = torch.arange(120.0).reshape(4, 5, 6)
    yield "contiguous", base
    yield "offset_view", base[1:, 2:, ::2]
    yield "transposed", base.transpose(0, 2)
    yield "expanded", torch.arange(6.0).expand(3, 4, 6)
    yield "channels_last", torch.arange(120.0).reshape(1, 4, 5, 6).contiguous(memory_format=torch.channels_last)
    yield "scalar", torch.tensor(3.0)
    yield "empty", torch.empty(2, 0, 3)


def on_tpu(t):
    """t's exact layout on tpu: its whole storage copied, the same view on top."""
    n = t.untyped_storage().nbytes() // t.element_size()
    flat = torch.as_strided(t, (n,), (1,), 0).to("tpu")
    return torch.as_strided(flat, t.size(), t.stride(), t.storage_offset())


@pytest.mark.parametrize("name,t", list(layouts()), ids=[n for n, _ in layouts()])
def test_answers_match_cpu(name, t):
    x = on_tpu(t)
    assert (x.size(), x.stride(), x.storage_offset()) == (t.size(), t.stride(), t.storage_offset())
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        for d in range(-t.dim(), t.dim()):
            assert aten.sym_size.int(x, d) == aten.sym_size.int(t, d)
            assert aten.sym_stride.int(x, d) == aten.sym_stride.int(t, d)
        assert aten.sym_numel(x) == aten.sym_numel(t)
        assert aten.sym_storage_offset(x) == aten.sym_storage_offset(t)
        formats = [torch.contiguous_format]
        if t.dim() == 4:
            formats.append(torch.channels_last)
        for fmt in formats:
            assert aten.sym_is_contiguous(x, fmt) == aten.sym_is_contiguous(t, fmt)
    assert torch_tpu.stats()["launches"] == 0  # metadata: nothing ran on the device


def test_dim_errors_match_cpu():
    t = torch.ones(2, 3)
    for fn in (aten.sym_size.int, aten.sym_stride.int):
        with pytest.raises(IndexError) as cpu_error:
            fn(t, 2)
        with pytest.raises(type(cpu_error.value), match="Dimension out of range"):
            fn(t.to("tpu"), 2)


def test_symbolic_under_compile():
    # With dynamic shapes the queries trace to symbolic sizes: a graph over a
    # tpu input, then run on two sizes without recompiling its answer away.
    def f(x):
        return x.new_full((aten.sym_size.int(x, 0), aten.sym_numel(x)), aten.sym_stride.int(x, 0))

    compiled = torch.compile(f, backend="aot_eager", dynamic=True)
    for n in (3, 5):
        x = torch.ones(n, 4, device="tpu")
        torch.testing.assert_close(compiled(x).cpu(), f(x.cpu()))
