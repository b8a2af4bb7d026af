"""Weight normalization on tpu (_weight_norm_interface and its backward):
forward and gradients against a float64 computation, in the first and last
dim, through torch._weight_norm and nn.utils.parametrizations.weight_norm,
and CPU's error for another dim."""

import pytest
import torch

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _inputs(shape, dim, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    v = torch.randn(shape, generator=g, dtype=torch.float64)
    gshape = [1] * len(shape)
    gshape[dim] = shape[dim]
    gain = torch.rand(gshape, generator=g, dtype=torch.float64) + 0.5
    return v.to(dtype), gain.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,dim", [((6, 5), 0), ((6, 5), 1), ((4, 3, 3, 3), 0), ((4, 3, 7), 2)])
def test_weight_norm_forward_and_backward_match_float64(shape, dim, dtype):
    v, g = _inputs(shape, dim, dtype)
    grad = torch.randn(shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64).to(dtype)
    results = {}
    for device, d in (("tpu", dtype), ("cpu", torch.float64)):
        vv = v.to(device, d).requires_grad_()
        gg = g.to(device, d).requires_grad_()
        w = torch._weight_norm(vv, gg, dim)
        w.backward(grad.to(device, d))
        results[device] = (w, vv.grad, gg.grad)
    for name, a, e in zip(("w", "grad_v", "grad_g"), results["tpu"], results["cpu"]):
        assert a.dtype == dtype and a.device.type == "tpu", name
        # float16 takes _weight_norm's decomposition on every device (ATen
        # fuses other dtypes only): a few float16 roundings of values up to
        # max|e|, each half an ulp.
        atol = 4 * torch.finfo(dtype).eps * float(e.abs().max()) if dtype == torch.float16 else None
        torch.testing.assert_close(a.cpu(), e.to(dtype), atol=atol, rtol=None if atol is None else 1e-3, msg=name)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_interface_returns_cpus_norms(dtype):
    v, g = _inputs((5, 4), 0, dtype)
    w, norms = torch._weight_norm_interface(v.to("tpu"), g.to("tpu"), 0)
    _, norms_cpu = torch._weight_norm_interface(v, g, 0)
    assert norms.dtype == norms_cpu.dtype and norms.shape == norms_cpu.shape
    expected = v.double().norm(dim=1, keepdim=True)
    torch.testing.assert_close(norms.cpu(), expected.to(norms_cpu.dtype))
    torch.testing.assert_close(w.cpu(), (v.double() * g.double() / expected).to(dtype))


def test_parametrized_conv_trains_like_cpu():
    torch.manual_seed(0)
    cpu = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv2d(3, 4, 3))
    tpu = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv2d(3, 4, 3))
    tpu.load_state_dict(cpu.state_dict())
    tpu.to("tpu")
    x = torch.randn(2, 3, 8, 8)
    for m, dev in ((cpu, "cpu"), (tpu, "tpu")):
        m(x.to(dev)).square().sum().backward()
    for (name, a), (_, e) in zip(tpu.named_parameters(), cpu.named_parameters()):
        torch.testing.assert_close(a.grad.cpu(), e.grad, rtol=1e-4, atol=1e-5, msg=name)


def test_other_dims_raise_cpus_error():
    v, g = _inputs((4, 3, 5), 1, torch.float32)
    with pytest.raises(RuntimeError, match="fused kernels can only be computed for first or last dim"):
        torch._weight_norm_interface(v.to("tpu"), g.to("tpu"), 1)
    # torch._weight_norm decomposes for a middle dim on every device.
    torch.testing.assert_close(torch._weight_norm(v.to("tpu"), g.to("tpu"), 1).cpu(),
                               torch._weight_norm(v, g, 1))
