"""F.grid_sample on tpu against CPU eager, forward and backward (grad of the
input and of the grid): every interpolation and padding mode, align_corners,
grid points inside, on the border of and outside the image, 2-d and 3-d."""

import itertools

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float64: dict(atol=1e-10, rtol=1e-10)}
MODES_2D = list(itertools.product(["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"],
                                  [False, True]))


def _grid(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    grid = torch.rand(shape, generator=g, dtype=torch.float64) * 2.6 - 1.3  # some points outside
    grid.view(-1)[:4] = torch.tensor([-1.0, 1.0, 0.0, 0.5], dtype=torch.float64)
    return grid.to(dtype)


def _check(x, grid, dtype, **kw):
    xc, gc = x.clone().requires_grad_(), grid.clone().requires_grad_()
    xt, gt = x.to("tpu").requires_grad_(), grid.to("tpu").requires_grad_()
    y_cpu = F.grid_sample(xc, gc, **kw)
    with torch_tpu.no_fallback():
        y = F.grid_sample(xt, gt, **kw)
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach(), **TOL[dtype])
    gy = torch.randn(y_cpu.shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64).to(dtype)
    gx_cpu, gg_cpu = torch.autograd.grad(y_cpu, (xc, gc), gy)
    with torch_tpu.no_fallback():
        gx, gg = torch.autograd.grad(y, (xt, gt), gy.to("tpu"))
    torch.testing.assert_close(gx.cpu(), gx_cpu, **TOL[dtype])
    torch.testing.assert_close(gg.cpu(), gg_cpu, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("mode,padding,align", MODES_2D, ids=[f"{m}-{p}-{a}" for m, p, a in MODES_2D])
def test_grid_sample_2d_matches_cpu(mode, padding, align, dtype):
    x = torch.randn(2, 3, 5, 7, generator=torch.Generator().manual_seed(0), dtype=torch.float64).to(dtype)
    _check(x, _grid((2, 4, 6, 2), dtype, 1), dtype, mode=mode, padding_mode=padding, align_corners=align)


def test_grid_sample_2d_input_without_grad():
    x = torch.randn(1, 2, 4, 4)
    grid = _grid((1, 3, 3, 2), torch.float32, 2)
    gc = grid.clone().requires_grad_()
    gt = grid.to("tpu").requires_grad_()
    F.grid_sample(x, gc, align_corners=False).sum().backward()
    with torch_tpu.no_fallback():
        F.grid_sample(x.to("tpu"), gt, align_corners=False).sum().backward()
    torch.testing.assert_close(gt.grad.cpu(), gc.grad)


MODES_3D = list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"], [False, True]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("mode,padding,align", MODES_3D, ids=[f"{m}-{p}-{a}" for m, p, a in MODES_3D])
def test_grid_sample_3d_matches_cpu(mode, padding, align, dtype):
    x = torch.randn(2, 3, 4, 5, 6, generator=torch.Generator().manual_seed(0), dtype=torch.float64).to(dtype)
    _check(x, _grid((2, 3, 4, 5, 3), dtype, 1), dtype, mode=mode, padding_mode=padding, align_corners=align)


def test_grid_sample_3d_bicubic_raises_cpu_error():
    x, grid = torch.randn(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3)
    with pytest.raises(RuntimeError) as cpu_err:
        F.grid_sample(x, grid, mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError) as tpu_err:
        F.grid_sample(x.to("tpu"), grid.to("tpu"), mode="bicubic", align_corners=False)
    assert str(tpu_err.value) == str(cpu_err.value)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sample_half_precision_matches_cpu_float32(dims, dtype):
    """float16/bfloat16: computed in float and rounded once, so the
    reference is CPU's float32 result of the same rounded values, forward
    and backward (CPU's own half kernel rounds every intermediate)."""
    g = torch.Generator().manual_seed(7)
    shape = (2, 3, 5, 6) if dims == 2 else (2, 3, 4, 5, 6)
    x = torch.randn(shape, generator=g).to(dtype)
    grid = _grid((2, 4, 5, 2) if dims == 2 else (2, 3, 4, 5, 3), dtype, 8)
    mode = "bicubic" if dims == 2 else "bilinear"
    kw = dict(mode=mode, padding_mode="reflection", align_corners=False)
    xc, gc = x.float().requires_grad_(), grid.float().requires_grad_()
    xt, gt = x.to("tpu").requires_grad_(), grid.to("tpu").requires_grad_()
    y_ref = F.grid_sample(xc, gc, **kw)
    with torch_tpu.no_fallback():
        y = F.grid_sample(xt, gt, **kw)
    assert y.dtype == dtype
    tol = dict(atol=1e-2, rtol=1e-2) if dtype == torch.float16 else dict(atol=5e-2, rtol=2e-2)
    torch.testing.assert_close(y.detach().cpu(), y_ref.detach().to(dtype), **tol)
    gy = torch.randn(y_ref.shape, generator=g).to(dtype)
    gx_ref, gg_ref = torch.autograd.grad(y_ref, (xc, gc), gy.float())
    with torch_tpu.no_fallback():
        gx, gg = torch.autograd.grad(y, (xt, gt), gy.to("tpu"))
    assert gx.dtype == dtype and gg.dtype == dtype
    torch.testing.assert_close(gx.cpu(), gx_ref.to(dtype), **tol)
    torch.testing.assert_close(gg.cpu(), gg_ref.to(dtype), **tol)
