"""Nearest and bilinear upsampling on tpu against CPU eager: sizes that are,
and are not, integer multiples, explicit scale factors, align_corners,
downsampling, every floating dtype, channels-last input, and the backwards
through autograd."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: dict(atol=1e-12, rtol=1e-12),
       torch.float16: dict(atol=5e-3, rtol=5e-3), torch.bfloat16: dict(atol=5e-2, rtol=2e-2)}
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
CALLS = [
    ("nearest x2", lambda t: F.interpolate(t, scale_factor=2, mode="nearest")),
    ("nearest size", lambda t: F.interpolate(t, size=(7, 11), mode="nearest")),
    ("nearest down", lambda t: F.interpolate(t, size=(3, 2), mode="nearest")),
    ("nearest scale 1.7", lambda t: F.interpolate(t, scale_factor=1.7, mode="nearest", recompute_scale_factor=False)),
    ("bilinear x2", lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")),
    ("bilinear size", lambda t: F.interpolate(t, size=(9, 4), mode="bilinear")),
    ("bilinear align", lambda t: F.interpolate(t, size=(9, 13), mode="bilinear", align_corners=True)),
    ("bilinear down", lambda t: F.interpolate(t, size=(2, 3), mode="bilinear", align_corners=True)),
    ("bilinear scale", lambda t: F.interpolate(t, scale_factor=(1.5, 2.3), mode="bilinear",
                                               recompute_scale_factor=False)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name,fn", CALLS, ids=[c[0] for c in CALLS])
def test_forward_and_backward_match_cpu(name, fn, dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 5, 6, generator=g, dtype=torch.float64).to(dtype)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    y_cpu = fn(xc)
    with torch_tpu.no_fallback():
        y = fn(xt)
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach(), **TOL[dtype])
    gy = torch.randn(y_cpu.shape, generator=g, dtype=torch.float64).to(dtype)
    (gc,) = torch.autograd.grad(y_cpu, xc, gy)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(y, xt, gy.to("tpu"))
    torch.testing.assert_close(gt.cpu(), gc, **TOL[dtype])


def test_channels_last_keeps_layout():
    x = torch.randn(2, 3, 5, 6).contiguous(memory_format=torch.channels_last)
    for mode in ("nearest", "bilinear"):
        y_cpu = F.interpolate(x, scale_factor=2, mode=mode)
        y = F.interpolate(x.to("tpu"), scale_factor=2, mode=mode)
        assert y.stride() == y_cpu.stride()
        torch.testing.assert_close(y.cpu(), y_cpu)
