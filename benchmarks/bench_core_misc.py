"""The other heavy Core ATen IR kernels against CPU eager, in one run:
sort and topk along a row, a real FFT (power-of-two and prime lengths),
embedding bags, grid sampling, cdist and F.fold. float32. ratio = tpu / cpu."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401
from common import add_case, print_table, save


def run() -> list:
    rows = []
    torch.manual_seed(0)

    def case(what, fn, *cpu_args):
        tpu_args = [a.to("tpu") if isinstance(a, torch.Tensor) else a for a in cpu_args]
        add_case(rows, what, lambda: fn(*tpu_args), lambda: fn(*cpu_args))

    rows_of = torch.randn(256, 4096)
    case("sort 256 rows x 4096", lambda a: torch.sort(a, dim=1), rows_of)
    case("topk k=16 of 256 rows x 4096", lambda a: torch.topk(a, 16, dim=1), rows_of)
    case("fft.rfft 64 x 4096", lambda a: torch.fft.rfft(a), torch.randn(64, 4096))
    case("fft.rfft 64 x 4099 (prime)", lambda a: torch.fft.rfft(a), torch.randn(64, 4099))
    weight, idx = torch.randn(10000, 128), torch.randint(0, 10000, (4096,))
    offsets = torch.arange(0, 4096, 32)
    case("embedding_bag sum 128 bags x 32 rows of 128", lambda w, i, o: F.embedding_bag(i, w, o), weight, idx, offsets)
    img, grid = torch.randn(8, 32, 64, 64), torch.rand(8, 64, 64, 2) * 2 - 1
    case("grid_sample bilinear 8x32x64x64", lambda a, g: F.grid_sample(a, g, align_corners=False), img, grid)
    case("cdist p=1 1024 x 1024 x 64", lambda a, b: torch.cdist(a, b, p=1), torch.randn(1024, 64), torch.randn(1024, 64))
    cols = torch.randn(8, 64 * 9, 56 * 56)
    case("fold 8x64 3x3 -> 58x58", lambda c: F.fold(c, (58, 58), 3), cols)
    return rows


if __name__ == "__main__":
    rows = run()
    print_table(__doc__.splitlines()[0], rows)
    save("core_misc", rows)
