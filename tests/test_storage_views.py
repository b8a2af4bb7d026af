"""Views, resize_, set_ and storage operations on tpu tensors behave as on CPU."""

import pytest
import torch

from conftest import make_tensor


def both(fn, base):
    """Runs fn on a CPU tensor and on its tpu copy; returns (cpu, tpu->cpu)."""
    cpu = fn(base.clone())
    tpu = fn(base.to("tpu"))
    return cpu, tpu


def test_view_ops_alias_storage():
    x = torch.arange(24.0).to("tpu")
    ops = {
        "view": lambda t: t.view(4, 6),
        "as_strided": lambda t: t.as_strided((3, 4), (6, 1), 2),
        "reshape": lambda t: t.view(4, 6).t().reshape(6, 4).t(),
        "_reshape_alias": lambda t: torch.ops.aten._reshape_alias(t, (2, 12), (12, 1)),
        "unsqueeze": lambda t: t.unsqueeze(0),
        "narrow": lambda t: t.narrow(0, 3, 5),
        "select": lambda t: t.view(4, 6)[2],
        "diagonal": lambda t: t.view(4, 6).diagonal(),
        "unflatten": lambda t: t.unflatten(0, (2, 3, 4)),
    }
    cpu = torch.arange(24.0)
    for name, op in ops.items():
        v = op(x)
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), name
        assert v.stride() == op(cpu).stride(), name
        assert v.storage_offset() == op(cpu).storage_offset(), name
        assert torch.equal(v.cpu(), op(cpu)), name


def test_writes_through_views_are_visible():
    x = torch.zeros(4, 5, device="tpu")
    x[1].fill_(3.0)
    x.t()[2].fill_(7.0)
    x.view(-1)[::7].zero_()
    ref = torch.zeros(4, 5)
    ref[1].fill_(3.0)
    ref.t()[2].fill_(7.0)
    ref.view(-1)[::7].zero_()
    assert torch.equal(x.cpu(), ref)


def test_view_errors_match_cpu():
    for device in ("cpu", "tpu"):
        t = torch.zeros(4, 6, device=device).t()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            t.view(24)
        with pytest.raises(RuntimeError, match="Negative strides are not supported"):
            torch.zeros(4, device=device).as_strided((2,), (-1,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.complex128, torch.bool])
def test_resize_grows_and_keeps_data(dtype):
    base = make_tensor((2, 3), dtype)
    t = base.to("tpu")
    ptr = t.data_ptr()
    t.resize_(4, 5)
    assert t.shape == (4, 5) and t.is_contiguous()
    assert t.data_ptr() != ptr  # grew: new memory
    assert torch.equal(t.view(-1)[:6].cpu(), base.view(-1))
    t.resize_(2)
    assert t.shape == (2,)
    assert torch.equal(t.cpu(), base.view(-1)[:2])


def test_resize_memory_format_and_errors():
    t = torch.empty(0, device="tpu")
    t.resize_(2, 3, 4, 5, memory_format=torch.channels_last)
    assert t.stride() == torch.empty(2, 3, 4, 5).resize_(
        2, 3, 4, 5, memory_format=torch.channels_last).stride()
    with pytest.raises(RuntimeError, match="Unsupported memory format"):
        t.resize_(2, 3, memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError, match="negative"):
        t.resize_(-1)


def test_untyped_storage_resize():
    t = torch.arange(10, dtype=torch.int32).to("tpu")
    s = t.untyped_storage()
    s.resize_(80)
    assert s.nbytes() == 80
    assert torch.equal(t.cpu(), torch.arange(10, dtype=torch.int32))
    s.resize_(0)
    assert s.nbytes() == 0


def test_set_overloads():
    src = torch.arange(12.0).to("tpu")
    # set_(Storage)
    a = torch.empty(0, device="tpu").set_(src.untyped_storage())
    assert a.shape == (12,) and torch.equal(a.cpu(), torch.arange(12.0))
    # set_(Storage, offset, size, stride)
    b = torch.empty(0, device="tpu").set_(src.untyped_storage(), 2, (2, 3), (3, 1))
    assert torch.equal(b.cpu(), torch.arange(12.0)[2:8].view(2, 3))
    # set_(Tensor)
    c = torch.empty(0, device="tpu").set_(b)
    assert c.storage_offset() == 2 and torch.equal(c.cpu(), b.cpu())
    # set_(): fresh empty storage on the same device
    c.set_()
    assert c.shape == (0,) and c.device == b.device and c.untyped_storage().nbytes() == 0
    # writes through a set_ alias reach the source
    b.fill_(-1.0)
    assert torch.equal(src.cpu()[2:8], torch.full((6,), -1.0))


def test_set_storage_from_other_device_is_rejected():
    a = torch.empty(0, device="tpu:0")
    b = torch.arange(4.0).to("tpu:1")
    with pytest.raises(RuntimeError, match="devices must match"):
        a.set_(b.untyped_storage(), 0, (4,), (1,))


def test_set_grows_storage_when_needed():
    src = torch.arange(4.0).to("tpu")
    t = torch.empty(0, device="tpu").set_(src.untyped_storage(), 0, (4,), (1,))
    t.set_(src.untyped_storage(), 0, (8,), (1,))  # needs 32 bytes, storage has 16
    assert t.untyped_storage().nbytes() >= 32
    assert torch.equal(t[:4].cpu(), torch.arange(4.0))


def test_empty_strided_and_memory_format():
    t = torch.empty_strided((3, 4), (1, 3), device="tpu")
    assert t.stride() == (1, 3)
    cl = torch.empty(2, 3, 4, 5, device="tpu", memory_format=torch.channels_last)
    assert cl.is_contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match="pinned"):
        torch.empty(3, device="tpu", pin_memory=True)
