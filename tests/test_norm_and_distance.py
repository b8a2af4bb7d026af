"""Vector norms and distances beyond OpInfo's samples, against CPU: aten::norm's
out= overloads as ATen (pairwise_distance, dist) and TorchScript call them,
and the backwards of cdist and pdist (_cdist_backward, _pdist_backward) for
every p, zero distances and several batch dims."""

import pytest
import torch

import torch_tpu  # noqa: F401

aten = torch.ops.aten


def _sample(shape, dtype, seed=0):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64])
@pytest.mark.parametrize("p,dim,keepdim", [(2, [1], False), (1, [0, 2], True), (float("inf"), [2], False),
                                           (3.5, [], False), (None, [1], True), (0, [0], False)])
def test_norm_out_overloads_match_cpu(dtype, p, dim, keepdim):
    x = _sample((3, 4, 5), dtype)
    expected = aten.norm.ScalarOpt_dim(x, p, dim, keepdim)
    out = torch.empty(0, device="tpu", dtype=expected.dtype)
    result = aten.norm.out(x.to("tpu"), p, dim, keepdim, out=out)
    assert result is out
    torch.testing.assert_close(out.cpu(), expected)
    torch.testing.assert_close(aten.norm.ScalarOpt_dim(x.to("tpu"), p, dim, keepdim).cpu(), expected)


def test_norm_dtype_out_matches_cpu():
    x = _sample((3, 4), torch.float32)
    expected = aten.norm.ScalarOpt_dim_dtype(x, 2, [1], False, dtype=torch.float64)
    out = torch.empty(0, device="tpu", dtype=torch.float64)
    aten.norm.dtype_out(x.to("tpu"), 2, [1], False, dtype=torch.float64, out=out)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out.cpu(), expected)
    with pytest.raises(RuntimeError) as cpu_error:
        aten.norm.dtype_out(x, 2, [1], False, dtype=torch.float64, out=torch.empty(0, dtype=torch.float32))
    with pytest.raises(RuntimeError) as tpu_error:
        aten.norm.dtype_out(x.to("tpu"), 2, [1], False, dtype=torch.float64,
                            out=torch.empty(0, device="tpu", dtype=torch.float32))
    assert str(tpu_error.value) == str(cpu_error.value)


def test_pairwise_distance_grad_reaches_norm():
    a, b = torch.randn(4, 6, dtype=torch.float64), torch.randn(4, 6, dtype=torch.float64)
    grads = []
    for device in ("cpu", "tpu"):
        ad = a.to(device).detach().requires_grad_()
        torch.nn.functional.pairwise_distance(ad, b.to(device), p=3).sum().backward()
        grads.append(ad.grad.cpu())
    torch.testing.assert_close(grads[1], grads[0])


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_cdist_and_pdist_backwards_match_cpu(p):
    g = torch.Generator().manual_seed(4)
    x1 = torch.randn(2, 5, 3, generator=g, dtype=torch.float64)
    x2 = torch.randn(2, 4, 3, generator=g, dtype=torch.float64)
    x2[0, 1] = x1[0, 2]          # a zero distance
    x2[1, 0, 1] = x1[1, 3, 1]    # a zero difference in one coordinate
    pts = torch.randn(6, 3, generator=g, dtype=torch.float64)
    pts[4] = pts[1]              # duplicate points in pdist
    results = []
    for device in ("cpu", "tpu"):
        a, b, c = (t.to(device).detach().requires_grad_() for t in (x1, x2, pts))
        # Below 25 rows cdist takes the pairwise kernel (and _cdist_backward) for every p.
        d = torch.cdist(a, b, p=p)
        d.backward(torch.linspace(-1, 1, d.numel(), dtype=torch.float64).reshape(d.shape).to(device))
        e = torch.nn.functional.pdist(c, p=p)
        e.backward(torch.linspace(0.5, 2, e.numel(), dtype=torch.float64).to(device))
        results.append([a.grad.cpu(), b.grad.cpu(), c.grad.cpu()])
    for tpu, cpu in zip(results[1], results[0]):
        torch.testing.assert_close(tpu, cpu)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("shapes", [((2, 2, 3, 2), (2, 2, 4, 2)), ((2, 1, 3, 2), (3, 4, 2))], ids=str)
def test_cdist_backward_with_several_batch_dims(p, shapes):
    # ATen's _cdist_backward expands the batch dims but does not flatten them.
    g = torch.Generator().manual_seed(5)
    x1, x2 = (torch.randn(s, generator=g, dtype=torch.float64) for s in shapes)
    results = []
    for device in ("cpu", "tpu"):
        a, b = (t.to(device).requires_grad_() for t in (x1, x2))
        d = torch.cdist(a, b, p=p)
        results.append([t.cpu() for t in torch.autograd.grad((d * d.detach()).sum(), [a, b])])
    for tpu, cpu in zip(results[1], results[0]):
        torch.testing.assert_close(tpu, cpu)
