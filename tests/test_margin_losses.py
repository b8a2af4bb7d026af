"""The margin losses (multi_margin_loss, multilabel_margin_loss) and their
backwards over reductions, weights and p, against CPU, and their errors."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401

aten = torch.ops.aten


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss_and_grad_match_cpu(reduction, p, weighted):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 5, generator=g, dtype=torch.float64)
    target = torch.randint(0, 5, (6,), generator=g)
    weight = torch.rand(5, generator=g, dtype=torch.float64) if weighted else None
    grads = {}
    for device in ("cpu", "tpu"):
        xd = x.to(device).detach().requires_grad_()
        wd = weight.to(device) if weighted else None
        loss = F.multi_margin_loss(xd, target.to(device), p=p, margin=0.7, weight=wd, reduction=reduction)
        loss.backward(torch.linspace(0.5, 1.5, loss.numel(), dtype=torch.float64).reshape(loss.shape).to(device))
        grads[device] = (loss.detach().cpu(), xd.grad.cpu())
    torch.testing.assert_close(grads["tpu"], grads["cpu"])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss_and_grad_match_cpu(reduction):
    x = torch.randn(4, 5, dtype=torch.float64)
    # Labels before the first -1; duplicated labels count twice, as on CPU.
    target = torch.tensor([[3, 0, -1, 1, 2], [1, 1, 4, -1, 0], [-1, 2, 3, 4, 0], [0, 1, 2, 3, 4]])
    grads = {}
    for device in ("cpu", "tpu"):
        xd = x.to(device).detach().requires_grad_()
        loss = F.multilabel_margin_loss(xd, target.to(device), reduction=reduction)
        loss.backward(torch.ones_like(loss))
        grads[device] = (loss.detach().cpu(), xd.grad.cpu())
    torch.testing.assert_close(grads["tpu"], grads["cpu"])


@pytest.mark.parametrize("fn", [
    lambda d: F.multi_margin_loss(torch.randn(3, 4, device=d), torch.tensor([0, 4, 1], device=d)),
    lambda d: F.multilabel_margin_loss(torch.randn(2, 3, device=d), torch.tensor([[0, 3, -1], [1, -1, 0]], device=d)),
    lambda d: F.multi_margin_loss(torch.randn(3, 4, device=d), torch.tensor([0, 1], device=d)),
])
def test_margin_loss_errors_match_cpu(fn):
    with pytest.raises(Exception) as cpu_error:
        fn("cpu")
    with pytest.raises(Exception) as tpu_error:
        fn("tpu")
    assert type(tpu_error.value) is type(cpu_error.value)
    assert str(tpu_error.value) == str(cpu_error.value)
