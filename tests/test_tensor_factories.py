"""Factories no OpInfo covers in full, on tpu: triu_indices / tril_indices
(computed on the host, one copy) and autograd's memory-free zero tensor
(_efficientzerotensor)."""

import torch

import torch_tpu

aten = torch.ops.aten


def test_triu_tril_indices_on_tpu():
    for fn in (torch.triu_indices, torch.tril_indices):
        for args in [(4, 4), (3, 5, 1), (5, 3, -2), (0, 3)]:
            actual = fn(*args, device="tpu")
            assert actual.device.type == "tpu"
            assert torch.equal(actual.cpu(), fn(*args))
        assert fn(3, 3, dtype=torch.int32, device="tpu").dtype == torch.int32


def test_efficient_zero_tensor_has_no_memory_and_acts_as_zeros():
    with torch_tpu.no_fallback():
        before = torch.tpu.memory_allocated()
        z = aten._efficientzerotensor([256, 256], dtype=torch.float32, device="tpu")
        assert z._is_zerotensor() and z.device.type == "tpu" and z.shape == (256, 256)
        assert torch.tpu.memory_allocated() == before  # no storage
        ones = torch.ones(256, 256, device="tpu")
        assert torch.equal((z + ones).cpu(), torch.ones(256, 256))
        assert torch.equal((z * ones).cpu(), torch.zeros(256, 256))
        # sgn's gradient for real input is such a zero tensor; it accumulates as zeros.
        x = torch.randn(5, device="tpu", requires_grad=True)
        (torch.sgn(x) * 2 + x).sum().backward()
        assert torch.equal(x.grad.cpu(), torch.ones(5))
