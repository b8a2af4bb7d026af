"""item(), fill_ and zero_ on tpu tensors."""

import pytest
import torch

from conftest import ALL_DTYPES, make_tensor


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_item_matches_cpu(dtype):
    x = make_tensor((5,), dtype, seed=7)
    t = x.to("tpu")
    for i in range(5):
        assert t[i].item() == x[i].item()
        assert type(t[i].item()) is type(x[i].item())


def test_item_counts_a_sync():
    t = torch.tensor([3.5], device="tpu")
    torch_tpu = pytest.importorskip("torch_tpu")
    torch_tpu.reset_stats()
    assert t.item() == 3.5
    assert torch_tpu.stats()["syncs"].get("item") == 1


def test_item_errors():
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        torch.zeros(2, device="tpu").item()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fill_and_zero(dtype):
    value = True if dtype == torch.bool else (3 + 2j if dtype.is_complex else 7)
    for shape, view in [((4, 6), lambda t: t), ((4, 6), lambda t: t.t()[1:, ::2]),
                        ((1,), lambda t: t.expand(5)), ((0,), lambda t: t)]:
        cpu = make_tensor(shape, dtype)
        tpu = cpu.to("tpu")
        view(cpu).fill_(value)
        view(tpu).fill_(value)
        assert torch.equal(tpu.cpu(), cpu)
        view(cpu).zero_()
        view(tpu).zero_()
        assert torch.equal(tpu.cpu(), cpu)


def test_fill_tensor_value():
    t = torch.zeros(3, 4, device="tpu")
    t.fill_(torch.tensor(2.5))                      # value on the host
    assert torch.equal(t.cpu(), torch.full((3, 4), 2.5))
    t.fill_(torch.tensor(-1.0, device="tpu"))       # value on the device
    assert torch.equal(t.cpu(), torch.full((3, 4), -1.0))
    t[0, 0] = 9.0
    t.fill_(t[0, 0])                                # value aliases self
    assert torch.equal(t.cpu(), torch.full((3, 4), 9.0))
    with pytest.raises(RuntimeError, match="only supports 0-dimension value tensor"):
        t.fill_(torch.ones(2, device="tpu"))


def test_fill_overflow_error_matches_cpu():
    for device in ("cpu", "tpu"):
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t"):
            torch.zeros(2, dtype=torch.uint8, device=device).fill_(300)
