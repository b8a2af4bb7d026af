"""FFTs on tpu (kernels/fft/fft.cpp) against CPU eager (MKL) in the same
process: fft, rfft and irfft of 256 lines of 4096 points (a power of two:
Stockham radix 4) and 4099 (a prime: Bluestein), and fft2 of 512x512
complex64, in float32 / complex64; then fft of 3000 points (mixed radix
4, 3, 5) and of 4096 in complex128. ratio = tpu time / CPU time (target:
<= 2)."""

from __future__ import annotations

import torch

import torch_tpu  # noqa: F401
from common import compare, print_table, save


def cases():
    g = torch.Generator().manual_seed(0)
    out = []
    for n in (4096, 4099):
        x = torch.randn(256, n, generator=g)
        spectrum = torch.fft.rfft(x)
        out.append((f"rfft 256x{n}", torch.fft.rfft, x))
        out.append((f"fft 256x{n} (complex64)", torch.fft.fft, x.to(torch.complex64)))
        out.append((f"irfft 256x{n // 2 + 1} -> {n}", lambda s, n=n: torch.fft.irfft(s, n=n), spectrum))
    out.append(("fft2 512x512 (complex64)", torch.fft.fft2, torch.randn(512, 512, dtype=torch.complex64, generator=g)))
    out.append(("fft 256x3000 (complex64)", torch.fft.fft, torch.randn(256, 3000, dtype=torch.complex64, generator=g)))
    out.append(("fft 256x4096 (complex128)", torch.fft.fft, torch.randn(256, 4096, dtype=torch.complex128, generator=g)))
    return out


def run() -> list:
    rows = []
    for name, fn, x in cases():
        xt = x.to("tpu")
        t_tpu, t_cpu = compare(lambda: fn(xt), lambda: fn(x))
        rows.append({"case": name, "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3, "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("FFT (ratio = tpu time / CPU time; target <= 2)", rows)
    save("fft", rows)
