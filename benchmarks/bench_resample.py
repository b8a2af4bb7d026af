"""Resampling on realistic image and volume sizes (kernels/nn/upsample.h,
grid_sample.h), tpu against CPU eager in one process, forward and
forward+backward. Ratio = tpu time / CPU time. Indicative only on a shared
machine."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from common import compare, print_table, save

CASES = [
    # name, input shape, call
    ("bicubic 2x 8x3x224x224", (8, 3, 224, 224), lambda t: F.interpolate(t, scale_factor=2, mode="bicubic")),
    ("bicubic 224->160 8x3x224x224", (8, 3, 224, 224), lambda t: F.interpolate(t, size=(160, 160), mode="bicubic")),
    ("bicubic 2x 4x64x56x56", (4, 64, 56, 56), lambda t: F.interpolate(t, scale_factor=2, mode="bicubic")),
    ("bilinear 2x 8x3x224x224", (8, 3, 224, 224), lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")),
    ("bilinear aa 224->112 8x3x224x224", (8, 3, 224, 224),
     lambda t: F.interpolate(t, size=(112, 112), mode="bilinear", antialias=True)),
    ("nearest 2x 8x64x56x56", (8, 64, 56, 56), lambda t: F.interpolate(t, scale_factor=2, mode="nearest")),
    ("trilinear 2x 2x4x32x32x32", (2, 4, 32, 32, 32), lambda t: F.interpolate(t, scale_factor=2, mode="trilinear")),
    ("trilinear 2x 1x16x48x48x48", (1, 16, 48, 48, 48),
     lambda t: F.interpolate(t, scale_factor=2, mode="trilinear", align_corners=True)),
]


def run():
    rows = []
    g = torch.Generator().manual_seed(0)
    for name, shape, fn in CASES:
        x_cpu = torch.randn(shape, generator=g)
        x_tpu = x_cpu.to("tpu")
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu))
        rows.append({"op": name, "pass": "fwd", "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu/cpu": t_tpu / t_cpu})
        xc, xt = x_cpu.clone().requires_grad_(), x_tpu.clone().requires_grad_()
        gy_cpu = torch.randn(fn(x_cpu).shape, generator=g)
        gy_tpu = gy_cpu.to("tpu")

        def fwd_bwd(x, gy):
            return torch.autograd.grad(fn(x), x, gy)

        t_tpu, t_cpu = compare(lambda: fwd_bwd(xt, gy_tpu), lambda: fwd_bwd(xc, gy_cpu))
        rows.append({"op": name, "pass": "fwd+bwd", "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu/cpu": t_tpu / t_cpu})
    return rows


def main() -> None:
    rows = run()
    print_table("resampling, float32 (ratio = tpu / cpu)", rows)
    save("resample", rows)


if __name__ == "__main__":
    main()
