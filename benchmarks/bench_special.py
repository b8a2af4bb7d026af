"""The special functions of kernels/elementwise/special_functions*.cpp and
special_bessel.cpp on 16M float32 elements, tpu against CPU eager in one
process. Ratio = tpu time / CPU time (target: at most 1.2 for xlog1py, entr,
i0e, erfcx, ndtri). Indicative only on a shared machine."""

from __future__ import annotations

import sys

import torch

from common import compare, print_table, save

N = 16 * 1024 * 1024
TITLE = "special functions, 16M float32 (ratio = tpu / cpu)"

# name, fn, input: "randn" (x 3), "unit" (uniform on (0, 1)), "pos" (|randn| x 3)
UNARY = [
    ("special.entr", torch.special.entr, "pos"),
    ("special.i0e", torch.special.i0e, "randn"),
    ("i0", torch.i0, "randn"),
    ("special.i1e", torch.special.i1e, "randn"),
    ("special.erfcx", torch.special.erfcx, "randn"),
    ("special.ndtri", torch.special.ndtri, "unit"),
    ("special.log_ndtr", torch.special.log_ndtr, "randn"),
    ("polygamma(1)", lambda x: torch.polygamma(1, x), "pos"),
    # Y and K are NaN below 0 (a shortcut): measured on |x|
    ("special.bessel_j0", torch.special.bessel_j0, "randn"),
    ("special.bessel_j1", torch.special.bessel_j1, "randn"),
    ("special.bessel_y0", torch.special.bessel_y0, "pos"),
    ("special.bessel_y1", torch.special.bessel_y1, "pos"),
    ("special.modified_bessel_i0", torch.special.modified_bessel_i0, "randn"),
    ("special.modified_bessel_i1", torch.special.modified_bessel_i1, "randn"),
    ("special.modified_bessel_k0", torch.special.modified_bessel_k0, "pos"),
    ("special.modified_bessel_k1", torch.special.modified_bessel_k1, "pos"),
    ("special.scaled_modified_bessel_k0", torch.special.scaled_modified_bessel_k0, "pos"),
    ("special.scaled_modified_bessel_k1", torch.special.scaled_modified_bessel_k1, "pos"),
    ("special.airy_ai", torch.special.airy_ai, "randn"),
]

BINARY = [
    ("special.xlog1py", torch.special.xlog1py, "randn", "pos"),
    ("nextafter", torch.nextafter, "randn", "randn"),
]


def run(only=()):
    """only: case names to run (all when empty)."""
    rows = []
    g = torch.Generator().manual_seed(0)
    inputs = {
        "randn": torch.randn(N, generator=g) * 3,
        "unit": torch.rand(N, generator=g).clamp_min(1e-7),
        "pos": torch.randn(N, generator=g).abs() * 3,
    }
    on_tpu = {k: v.to("tpu") for k, v in inputs.items()}
    for name, fn, kind in UNARY:
        if only and name not in only:
            continue
        x_cpu, x_tpu = inputs[kind], on_tpu[kind]
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu))
        rows.append({"op": name, "numel": N, "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu/cpu": t_tpu / t_cpu})
    for name, fn, ka, kb in BINARY:
        if only and name not in only:
            continue
        a_cpu, b_cpu, a_tpu, b_tpu = inputs[ka], inputs[kb], on_tpu[ka], on_tpu[kb]
        t_tpu, t_cpu = compare(lambda: fn(a_tpu, b_tpu), lambda: fn(a_cpu, b_cpu))
        rows.append({"op": name, "numel": N, "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu/cpu": t_tpu / t_cpu})
    return rows


def main() -> None:
    # e.g. `python benchmarks/bench_special.py special.i1e i0`: those cases only (not saved)
    only = sys.argv[1:]
    rows = run(only)
    print_table(TITLE, rows)
    if not only:
        save("special", rows)


if __name__ == "__main__":
    main()
