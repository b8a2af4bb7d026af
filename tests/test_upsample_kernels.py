"""Every upsample mode on tpu against CPU eager, forward and backward through
autograd: 1-d, 2-d and 3-d inputs, sizes that are and are not integer
multiples, explicit scale factors (recompute_scale_factor=False), align_corners,
downsampling, antialiasing, every dtype CPU computes, channels_last inputs with
few and many channels (CPU takes another kernel for them), and outputs large
enough for CPU's generic kernel (2-d: H + W > 128), which stores float16/bfloat16
weights in the dtype."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: dict(atol=1e-12, rtol=1e-12),
       torch.float16: dict(atol=5e-3, rtol=5e-3), torch.bfloat16: dict(atol=5e-2, rtol=2e-2),
       torch.uint8: dict(atol=0, rtol=0)}
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def interp(**kw):
    return lambda t: F.interpolate(t, **kw)


# (name, spatial input shape, call, dtypes)
CASES = [
    ("nearest1d x2", (9,), interp(scale_factor=2, mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest1d size", (9,), interp(size=13, mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest1d scale", (9,), interp(scale_factor=1.7, mode="nearest", recompute_scale_factor=False), FLOATS),
    ("nearest-exact1d", (9,), interp(size=14, mode="nearest-exact"), FLOATS + [torch.uint8]),
    ("nearest-exact1d down", (9,), interp(size=4, mode="nearest-exact"), FLOATS),
    ("linear1d", (9,), interp(size=14, mode="linear"), FLOATS),
    ("linear1d align", (9,), interp(size=14, mode="linear", align_corners=True), FLOATS),
    ("linear1d down", (9,), interp(size=5, mode="linear"), FLOATS),
    ("linear1d scale", (9,), interp(scale_factor=2.3, mode="linear", recompute_scale_factor=False), FLOATS),
    ("linear1d long", (50,), interp(size=300, mode="linear"), FLOATS),
    ("nearest2d x2", (5, 6), interp(scale_factor=2, mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest2d size", (5, 6), interp(size=(7, 11), mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest2d down", (5, 6), interp(size=(3, 2), mode="nearest"), FLOATS),
    ("nearest2d scale", (5, 6), interp(scale_factor=1.7, mode="nearest", recompute_scale_factor=False), FLOATS),
    ("nearest2d large", (14, 10), interp(size=(70, 80), mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest-exact2d", (5, 6), interp(size=(7, 11), mode="nearest-exact"), FLOATS + [torch.uint8]),
    ("nearest-exact2d large", (14, 10), interp(size=(70, 80), mode="nearest-exact"), FLOATS),
    ("bilinear x2", (5, 6), interp(scale_factor=2, mode="bilinear"), FLOATS),
    ("bilinear size", (5, 6), interp(size=(9, 4), mode="bilinear"), FLOATS),
    ("bilinear align", (5, 6), interp(size=(9, 13), mode="bilinear", align_corners=True), FLOATS),
    ("bilinear down", (5, 6), interp(size=(2, 3), mode="bilinear", align_corners=True), FLOATS),
    ("bilinear scale", (5, 6), interp(scale_factor=(1.5, 2.3), mode="bilinear", recompute_scale_factor=False),
     FLOATS),
    ("bilinear large", (14, 10), interp(size=(70, 80), mode="bilinear"), FLOATS),
    ("bicubic x2", (5, 6), interp(scale_factor=2, mode="bicubic"), FLOATS),
    ("bicubic size", (5, 6), interp(size=(9, 4), mode="bicubic"), FLOATS),
    ("bicubic align", (5, 6), interp(size=(9, 13), mode="bicubic", align_corners=True), FLOATS),
    ("bicubic down", (8, 9), interp(size=(3, 4), mode="bicubic"), FLOATS),
    ("bicubic scale", (5, 6), interp(scale_factor=(1.5, 2.3), mode="bicubic", recompute_scale_factor=False),
     FLOATS),
    ("bicubic large", (14, 10), interp(size=(70, 80), mode="bicubic"), FLOATS),
    ("bilinear aa down", (17, 19), interp(size=(5, 7), mode="bilinear", antialias=True), FLOATS),
    ("bilinear aa up", (5, 6), interp(size=(9, 13), mode="bilinear", antialias=True), FLOATS),
    ("bilinear aa align", (17, 19), interp(size=(6, 25), mode="bilinear", antialias=True, align_corners=True),
     FLOATS),
    ("bilinear aa one axis", (17, 19), interp(size=(17, 7), mode="bilinear", antialias=True), FLOATS),
    ("bicubic aa down", (17, 19), interp(size=(5, 7), mode="bicubic", antialias=True), FLOATS),
    ("bicubic aa up", (5, 6), interp(size=(9, 13), mode="bicubic", antialias=True), FLOATS),
    ("bicubic aa scale", (17, 19), interp(scale_factor=0.3, mode="bicubic", antialias=True,
                                          recompute_scale_factor=False), FLOATS),
    ("nearest3d x2", (3, 4, 5), interp(scale_factor=2, mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest3d size", (3, 4, 5), interp(size=(5, 3, 7), mode="nearest"), FLOATS + [torch.uint8]),
    ("nearest-exact3d", (3, 4, 5), interp(size=(5, 3, 7), mode="nearest-exact"), FLOATS + [torch.uint8]),
    ("trilinear", (3, 4, 5), interp(size=(5, 3, 7), mode="trilinear"), FLOATS),
    ("trilinear align", (3, 4, 5), interp(size=(5, 6, 7), mode="trilinear", align_corners=True), FLOATS),
    ("trilinear scale", (3, 4, 5), interp(scale_factor=(1.5, 2.0, 0.7), mode="trilinear",
                                          recompute_scale_factor=False), FLOATS),
]


def _input(spatial, dtype, channels=3, channels_last=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    shape = (2, channels) + tuple(spatial)
    if dtype == torch.uint8:
        x = torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)
    else:
        x = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last if len(spatial) == 2 else torch.channels_last_3d)
    return x


def _check(fn, x, dtype, widen=False):
    """tpu against CPU; widen: CPU lacks the dtype (antialiased float16/
    bfloat16, CUDA's), so it computes in float32 and rounds once."""
    differentiable = dtype.is_floating_point
    xc = (x.float() if widen else x.clone()).requires_grad_(differentiable)
    xt = x.to("tpu").requires_grad_(differentiable)
    y_cpu = fn(xc)
    with torch_tpu.no_fallback():
        y = fn(xt)
    assert y.stride() == y_cpu.stride() and y.dtype == dtype
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach().to(dtype), **TOL[dtype])
    if not differentiable:
        return
    g = torch.Generator().manual_seed(1)
    gy = torch.randn(y_cpu.shape, generator=g, dtype=torch.float64).to(dtype)
    (gc,) = torch.autograd.grad(y_cpu, xc, gy.to(xc.dtype))
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(y, xt, gy.to("tpu"))
    torch.testing.assert_close(gt.cpu(), gc.to(dtype), **TOL[dtype])


def _cpu_lacks(name, dtype):
    return "aa" in name and dtype in (torch.float16, torch.bfloat16)


PARAMS = [(name, spatial, fn, dt) for name, spatial, fn, dts in CASES for dt in dts]


@pytest.mark.parametrize("name,spatial,fn,dtype", PARAMS, ids=[f"{p[0]}-{p[3]}" for p in PARAMS])
def test_forward_and_backward_match_cpu(name, spatial, fn, dtype):
    _check(fn, _input(spatial, dtype), dtype, widen=_cpu_lacks(name, dtype))


LAYOUT_CASES = [c for c in CASES if len(c[1]) >= 2]
LAYOUT_PARAMS = [(name, spatial, fn, ch) for name, spatial, fn, _ in LAYOUT_CASES for ch in (3, 5)]


@pytest.mark.parametrize("name,spatial,fn,channels", LAYOUT_PARAMS,
                         ids=[f"{p[0]}-C{p[3]}" for p in LAYOUT_PARAMS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_channels_last_matches_cpu(name, spatial, fn, channels, dtype):
    _check(fn, _input(spatial, dtype, channels=channels, channels_last=True), dtype, widen=_cpu_lacks(name, dtype))


U8_CALLS = [
    ("bilinear", interp(size=(9, 13), mode="bilinear")),
    ("bilinear down", interp(size=(3, 4), mode="bilinear")),
    ("bilinear align", interp(size=(9, 4), mode="bilinear", align_corners=True)),
    ("bilinear one axis", interp(size=(5, 13), mode="bilinear")),
    ("bicubic", interp(size=(9, 13), mode="bicubic")),
    ("bicubic down", interp(size=(3, 4), mode="bicubic")),
    ("bicubic align", interp(size=(11, 3), mode="bicubic", align_corners=True)),
    ("bicubic scale", interp(scale_factor=1.7, mode="bicubic", recompute_scale_factor=False)),
    ("bilinear aa down", interp(size=(3, 4), mode="bilinear", antialias=True)),
    ("bilinear aa up", interp(size=(9, 13), mode="bilinear", antialias=True)),
    ("bicubic aa down", interp(size=(3, 2), mode="bicubic", antialias=True)),
    ("bicubic aa up", interp(size=(9, 13), mode="bicubic", antialias=True)),
    ("same size", interp(size=(5, 6), mode="bicubic")),
]


@pytest.mark.parametrize("channels,channels_last", [(3, False), (4, True), (5, False), (6, True)])
@pytest.mark.parametrize("name,fn", U8_CALLS, ids=[c[0] for c in U8_CALLS])
def test_uint8_fixed_point_matches_cpu(name, fn, channels, channels_last):
    # CPU takes its AVX kernel for <= 4 channels, its generic one otherwise
    _check(fn, _input((5, 6), torch.uint8, channels=channels, channels_last=channels_last), torch.uint8)


def test_non_contiguous_input_and_out():
    x = torch.randn(2, 3, 6, 10)[:, :, :, ::2]
    y_cpu = F.interpolate(x, size=(9, 7), mode="bicubic")
    y = F.interpolate(x.to("tpu"), size=(9, 7), mode="bicubic")
    torch.testing.assert_close(y.cpu(), y_cpu)
    out = torch.empty(2, 3, 7, 9, device="tpu").transpose(2, 3)
    torch.ops.aten.upsample_bilinear2d.out(x.to("tpu"), [9, 7], False, None, None, out=out)
    torch.testing.assert_close(out.cpu(), F.interpolate(x, size=(9, 7), mode="bilinear"))


def test_empty_batch():
    x = torch.randn(0, 3, 4, 5)
    for mode in ("nearest", "bilinear", "bicubic"):
        y = F.interpolate(x.to("tpu"), size=(6, 7), mode=mode)
        assert y.shape == (0, 3, 6, 7)


def test_bad_sizes_raise_cpu_error():
    x = torch.randn(1, 1, 4, 4)
    with pytest.raises(RuntimeError) as cpu_err:
        torch.ops.aten.upsample_bicubic2d(x, [0, 3], False)
    with pytest.raises(RuntimeError) as tpu_err:
        torch.ops.aten.upsample_bicubic2d(x.to("tpu"), [0, 3], False)
    assert str(tpu_err.value) == str(cpu_err.value)
