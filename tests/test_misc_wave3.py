"""Wave-3 ops no OpInfo reaches (or reaches only in part), against CPU:
unfold_backward in every dtype and window overlap, aten::norm's out=
overloads as ATen and TorchScript call them, torch.equal, and addbmm's
in-place form and its errors."""

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


def test_addbmm_in_place_and_errors_match_cpu():
    g = torch.Generator().manual_seed(3)
    s, b1, b2 = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((5, 7), (4, 5, 3), (4, 3, 7)))
    expected = s.clone().addbmm_(b1, b2, beta=0.5, alpha=2)
    actual = s.to("tpu").addbmm_(b1.to("tpu"), b2.to("tpu"), beta=0.5, alpha=2)
    torch.testing.assert_close(actual.cpu(), expected)
    # An empty batch gives beta * self; beta = 0 ignores self's NaN.
    empty1, empty2 = torch.empty(0, 5, 3, dtype=torch.float64), torch.empty(0, 3, 7, dtype=torch.float64)
    torch.testing.assert_close(torch.addbmm(s.to("tpu"), empty1.to("tpu"), empty2.to("tpu"), beta=3).cpu(),
                               torch.addbmm(s, empty1, empty2, beta=3))
    nan = torch.full((5, 7), float("nan"), dtype=torch.float64)
    torch.testing.assert_close(torch.addbmm(nan.to("tpu"), b1.to("tpu"), b2.to("tpu"), beta=0).cpu(),
                               torch.addbmm(nan, b1, b2, beta=0))
    for args in [(s, b1[0], b2), (s, b1, b2[0]), (s, b1[:3], b2), (s, b1[:, :, :2], b2), (s[:4], b1, b2),
                 (s, b1.float(), b2)]:
        with pytest.raises(Exception) as cpu_error:
            torch.addbmm(*args)
        with pytest.raises(Exception) as tpu_error:
            torch.addbmm(*(t.to("tpu") for t in args))
        assert type(tpu_error.value) is type(cpu_error.value)
        assert str(tpu_error.value) == str(cpu_error.value)


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
