"""nn ops of kernels wave 3 beyond OpInfo's samples, against CPU: the training
batch norm export graphs call (_batch_norm_with_update + batch_norm_backward),
rrelu's in-place/out= forms and its training noise, and the margin losses'
backwards over their reductions, weights and p."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401

aten = torch.ops.aten


def _tpu(*tensors):
    return [t.to("tpu") if isinstance(t, torch.Tensor) else t for t in tensors]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_norm_with_update_and_backward_match_cpu(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, 5, 5, generator=g, dtype=dtype)
    w, b = torch.randn(3, generator=g, dtype=dtype), torch.randn(3, generator=g, dtype=dtype)
    grad = torch.randn(4, 3, 5, 5, generator=g, dtype=dtype)
    results = {}
    for device in ("cpu", "tpu"):
        xd, wd, bd, gd = (t.to(device) for t in (x, w, b, grad))
        rm, rv = torch.zeros(3, dtype=dtype, device=device), torch.ones(3, dtype=dtype, device=device)
        out, mean, invstd, reserve = aten._batch_norm_with_update(xd, wd, bd, rm, rv, 0.1, 1e-5)
        grads = aten.batch_norm_backward(gd, xd, wd, rm, rv, mean, invstd, True, 1e-5, [True, True, True], reserve)
        results[device] = [out, mean, invstd, rm, rv, *grads]
    for cpu, tpu in zip(results["cpu"], results["tpu"]):
        torch.testing.assert_close(tpu.cpu(), cpu)


def test_rrelu_eval_in_place_and_out_match_cpu():
    x = torch.randn(64)
    expected = F.rrelu(x, 0.1, 0.3, training=False)
    y = x.to("tpu")
    F.rrelu(y, 0.1, 0.3, training=False, inplace=True)
    torch.testing.assert_close(y.cpu(), expected)
    noise = torch.empty(64, device="tpu")
    out = torch.empty(64, device="tpu")
    aten.rrelu_with_noise.out(x.to("tpu"), noise, 0.1, 0.3, False, out=out)
    torch.testing.assert_close(out.cpu(), expected)


def test_rrelu_training_draws_slopes_in_range():
    x = torch.randn(10000, device="tpu")
    noise = torch.empty_like(x)
    out = aten.rrelu_with_noise(x, noise, 0.1, 0.3, True)
    x, noise, out = x.cpu(), noise.cpu(), out.cpu()
    negative = x <= 0
    assert torch.all(noise[~negative] == 1)
    slopes = noise[negative]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert 0.19 < slopes.mean() < 0.21  # uniform on [0.1, 0.3]
    torch.testing.assert_close(out, x * noise)
    # The backward multiplies by the recorded slopes.
    xg = x.to("tpu").requires_grad_()
    y = F.rrelu(xg, 0.1, 0.3, training=True)
    y.sum().backward()
    slope = (y.detach().cpu() / x).where(x != 0, torch.ones(()))
    torch.testing.assert_close(xg.grad.cpu(), slope)


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


def test_batch_norm_with_update_out_matches_functional():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(4, 3, 6, generator=g).to("tpu")
    w, b = torch.randn(3, generator=g).to("tpu"), torch.randn(3, generator=g).to("tpu")
    rm, rv = torch.zeros(3, device="tpu"), torch.ones(3, device="tpu")
    expected = aten._batch_norm_with_update(x, w, b, rm.clone(), rv.clone(), 0.1, 1e-5)
    outs = [torch.empty(0, device="tpu") for _ in range(3)] + [torch.empty(0, dtype=torch.uint8, device="tpu")]
    result = aten._batch_norm_with_update.out(x, w, b, rm, rv, 0.1, 1e-5, out=outs[0], save_mean=outs[1],
                                               save_invstd=outs[2], reserve=outs[3])
    for r, o, e in zip(result, outs, expected):
        assert r is o
        torch.testing.assert_close(o.cpu(), e.cpu())
    # The running statistics were updated in place, as by the functional form.
    torch.testing.assert_close(rm.cpu(), x.cpu().mean((0, 2)) * 0.1)
