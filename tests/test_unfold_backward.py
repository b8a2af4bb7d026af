"""unfold's backward (aten::unfold_backward, no OpInfo reaches it) against CPU:
every dtype and window overlap, and unfold's gradient through autograd."""

import pytest
import torch

import torch_tpu  # noqa: F401

aten = torch.ops.aten


def _sample(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_complex or dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=dtype)
    return torch.randint(0, 100, shape, generator=g).to(dtype)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int64, torch.float16, torch.float32,
                                   torch.complex64])
@pytest.mark.parametrize("shape,dim,size,step", [
    ((7, 5), 0, 3, 1),    # overlapping windows
    ((7, 5), 1, 2, 2),    # disjoint windows
    ((4, 9, 3), 1, 3, 4),  # gaps between windows
    ((10,), 0, 4, 3),
    ((), 0, 1, 1),        # a 0-dim input: one window of one element
    ((0, 4), 1, 2, 1),    # empty
])
def test_unfold_backward_matches_cpu(dtype, shape, dim, size, step):
    windows = torch.empty(shape).unfold(dim, size, step).shape
    grad = _sample(windows, dtype, 1)  # bool: overlapping windows add as logical or
    expected = aten.unfold_backward(grad, list(shape), dim, size, step)
    actual = aten.unfold_backward(grad.to("tpu"), list(shape), dim, size, step)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    torch.testing.assert_close(actual.cpu(), expected)


def test_unfold_grad_matches_cpu():
    x = torch.randn(6, 8, dtype=torch.float64)
    grads = []
    for device in ("cpu", "tpu"):
        xd = x.to(device).detach().requires_grad_()
        y = xd.unfold(1, 3, 2)
        y.backward(torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape).to(device))
        grads.append(xd.grad.cpu())
    torch.testing.assert_close(grads[1], grads[0])
