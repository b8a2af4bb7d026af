"""The pointwise nn ops, losses and special functions
(kernels/elementwise/nn_pointwise.cpp, special_math.cpp, special_vec.cpp)
on 16M float32 elements, tpu against CPU eager in one process. Ratio = tpu time / CPU time
(the target: at most 1.2). Losses use reduction="none", so the
elementwise kernel is what is measured. Indicative only on a shared machine."""

from __future__ import annotations

import sys

import torch
import torch.nn.functional as F

from common import compare, print_table, save

N = 16 * 1024 * 1024

UNARY = [
    ("hardswish", F.hardswish),
    ("hardsigmoid", F.hardsigmoid),
    ("softplus", F.softplus),
    ("mish", F.mish),
    ("elu", F.elu),
    ("leaky_relu", F.leaky_relu),
    ("logsigmoid", F.logsigmoid),
    ("softshrink", F.softshrink),
    ("lgamma", torch.lgamma),
    ("digamma", torch.digamma),
    ("erfinv", lambda x: torch.erfinv(x / 10)),
]

BINARY = [
    ("mse_loss", lambda x, y: F.mse_loss(x, y, reduction="none")),
    ("smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, reduction="none")),
    ("huber_loss", lambda x, y: F.huber_loss(x, y, reduction="none")),
    ("xlogy", lambda x, y: torch.xlogy(x, y.abs())),
    ("logaddexp", torch.logaddexp),
]


def run(only=()):
    """only: case names to run (all when empty)."""
    rows = []
    g = torch.Generator().manual_seed(0)
    x_cpu = torch.randn(N, generator=g) * 3
    y_cpu = torch.randn(N, generator=g) * 3
    x_tpu, y_tpu = x_cpu.to("tpu"), y_cpu.to("tpu")
    for name, fn in UNARY:
        if only and name not in only:
            continue
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu))
        rows.append({"op": name, "numel": N, "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu/cpu": t_tpu / t_cpu})
    for name, fn in BINARY:
        if only and name not in only:
            continue
        t_tpu, t_cpu = compare(lambda: fn(x_tpu, y_tpu), lambda: fn(x_cpu, y_cpu))
        rows.append({"op": name, "numel": N, "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu/cpu": t_tpu / t_cpu})
    return rows


def main() -> None:
    # e.g. `python benchmarks/bench_nn_pointwise.py lgamma erfinv`: those cases only (not saved)
    only = sys.argv[1:]
    rows = run(only)
    print_table("pointwise nn ops and losses, 16M float32 (ratio = tpu / cpu)", rows)
    if not only:
        save("nn_pointwise", rows)


if __name__ == "__main__":
    main()
