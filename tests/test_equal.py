"""torch.equal on tpu against CPU: values, NaN, promotion, sizes, strides,
and mixed devices (aten/native/reduce/equal.cpp)."""

import pytest
import torch

import torch_tpu  # noqa: F401


@pytest.mark.parametrize("a,b", [
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])),
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 4.0])),
    (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")])),  # NaN != NaN
    (torch.tensor([1, 2, 3]), torch.tensor([1.0, 2.0, 3.0])),                # promoted, as eq
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0])),               # sizes differ
    (torch.ones(2, 3), torch.ones(3, 2)),
    (torch.empty(0, 4), torch.empty(0, 4)),
    (torch.tensor([True, False]), torch.tensor([True, False])),
    (torch.tensor([1 + 1j, 2j]), torch.tensor([1 + 1j, 2j])),
    (torch.ones(4, 4).t(), torch.ones(4, 4)),                                  # strides differ
])
def test_equal_matches_cpu(a, b):
    assert torch.equal(a.to("tpu"), b.to("tpu")) == torch.equal(a, b)


def test_equal_rejects_mixed_devices():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.equal(torch.ones(2, device="tpu"), torch.ones(2))
