"""Reductions on tpu against CPU eager in the same process: sum, amax and
friends over 16M float32 (a full reduction split over the cores), over the
rows of a 4096x1024 float32 matrix (dim=-1: contiguous inner reduction) and
down its columns (dim=0: the outer, vectorized-across-outputs shape).
ratio = tpu time / CPU time (lower is better; 1.0 = as fast as CPU)."""

from __future__ import annotations

import sys

import torch

import torch_tpu  # noqa: F401
from common import compare, print_table, save

CASES = [
    ("sum 16M", (1 << 24,), lambda t: t.sum()),
    ("amax 16M", (1 << 24,), lambda t: t.amax()),
    ("sum 4096x1024 dim=-1", (4096, 1024), lambda t: t.sum(-1)),
    ("sum 4096x1024 dim=0", (4096, 1024), lambda t: t.sum(0)),
    ("amax 4096x1024 dim=-1", (4096, 1024), lambda t: t.amax(-1)),
    ("amax 4096x1024 dim=0", (4096, 1024), lambda t: t.amax(0)),
    ("mean 4096x1024 dim=-1", (4096, 1024), lambda t: t.mean(-1)),
    ("vector_norm 16M", (1 << 24,), lambda t: torch.linalg.vector_norm(t)),
    ("argmax 4096x1024 dim=-1", (4096, 1024), lambda t: t.argmax(-1)),
    ("var 4096x1024 dim=-1", (4096, 1024), lambda t: t.var(-1)),
    ("all 16M", (1 << 24,), lambda t: t.all()),
    ("sum bf16 4096x1024 dim=0", (4096, 1024), lambda t: t.sum(0)),
]


def run(quick: bool = False) -> list:
    rows = []
    for name, shape, fn in CASES:
        if "bf16" in name:
            x_cpu = torch.randn(shape).bfloat16()
        else:
            x_cpu = torch.randn(shape)
        x_tpu = x_cpu.to("tpu")
        kw = dict(min_time=0.05, repeat=3) if quick else {}
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu), **kw)
        gbs = x_cpu.numel() * x_cpu.element_size() / t_tpu / 1e9
        rows.append({"what": name, "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3, "tpu GB/s": gbs,
                     "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run(quick="--quick" in sys.argv)
    print_table("Reductions (ratio = tpu / cpu)", rows)
    save("reduce", rows)
