"""Sorting and selection on tpu against CPU eager in the same process:
median / nanmedian (all elements and along rows), kthvalue along rows, mode
along rows, searchsorted of 16M values in 1M sorted boundaries, bucketize,
unique of 1M elements (sorted, with inverse and counts; includes the one
synchronisation that reads the unique count), histogram and histogramdd
(the data's range read with one synchronisation).
ratio = tpu time / CPU time (lower is better; 1.0 = as fast as CPU)."""

from __future__ import annotations

import sys

import torch

import torch_tpu  # noqa: F401
from common import compare, print_table, save

M16 = 1 << 24
ROWS = (4096, 4096)  # 16M float32 as rows

CASES = [
    ("median 16M", lambda: torch.randn(M16), lambda t: t.median()),
    ("nanmedian 16M", lambda: torch.randn(M16), lambda t: t.nanmedian()),
    ("median 4096x4096 dim=-1", lambda: torch.randn(ROWS), lambda t: t.median(-1)),
    ("median 4096x4096 dim=0", lambda: torch.randn(ROWS), lambda t: t.median(0)),
    ("kthvalue k=100 4096x4096 dim=-1", lambda: torch.randn(ROWS), lambda t: t.kthvalue(100, -1)),
    ("mode 4096x4096 ints dim=-1", lambda: torch.randint(0, 100, ROWS).float(), lambda t: t.mode(-1)),
    ("searchsorted 16M in 1M", lambda: (torch.randn(1 << 20).sort()[0], torch.randn(M16)),
     lambda a: torch.searchsorted(a[0], a[1])),
    ("bucketize 16M in 1K", lambda: (torch.randn(M16), torch.randn(1024).sort()[0]),
     lambda a: torch.bucketize(a[0], a[1])),
    ("unique 1M (inverse, counts)", lambda: torch.randint(0, 1 << 18, (1 << 20,)).float(),
     lambda t: torch.unique(t, return_inverse=True, return_counts=True)),
    ("unique 1M sorted values", lambda: torch.randn(1 << 20), lambda t: torch.unique(t)),
    ("histogram 16M 100 bins (data range)", lambda: torch.randn(M16), lambda t: torch.histogram(t, 100)),
    ("histogramdd 4M x 2, 32x32 bins", lambda: torch.randn(1 << 22, 2), lambda t: torch.histogramdd(t, [32, 32])),
]


def _to_tpu(x):
    return tuple(t.to("tpu") for t in x) if isinstance(x, tuple) else x.to("tpu")


def run(quick: bool = False) -> list:
    rows = []
    torch.manual_seed(0)
    for name, make, fn in CASES:
        x_cpu = make()
        x_tpu = _to_tpu(x_cpu)
        kw = dict(min_time=0.05, repeat=3) if quick else {}
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu), **kw)
        rows.append({"what": name, "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3, "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run(quick="--quick" in sys.argv)
    print_table("Sorting and selection (ratio = tpu / cpu)", rows)
    save("sort_select", rows)
