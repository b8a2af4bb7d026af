"""Unary elementwise ops on tpu against CPU eager, side by side in one
process: gelu (tanh approximation and exact), exp, sqrt, tanh on 16M float32
elements (and gelu in bfloat16); exp, log, sin, sqrt on 4M complex64
elements (one libm call per element on both sides). Ratio = tpu time / CPU time (lower is
better). Indicative only on a shared machine."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from common import compare, print_table, save

N = 16 * 1024 * 1024
N_COMPLEX = 4 * 1024 * 1024

CASES = [
    ("gelu tanh", torch.float32, lambda x: F.gelu(x, approximate="tanh")),
    ("gelu", torch.float32, F.gelu),
    ("exp", torch.float32, torch.exp),
    ("sqrt", torch.float32, torch.sqrt),
    ("tanh", torch.float32, torch.tanh),
    ("log", torch.float32, torch.log),
    ("gelu tanh", torch.bfloat16, lambda x: F.gelu(x, approximate="tanh")),
]

COMPLEX_CASES = [
    ("exp", torch.exp),
    ("log", torch.log),
    ("sin", torch.sin),
    ("sqrt", torch.sqrt),
]

OUT_CASES = [
    ("gelu tanh", lambda x, o: torch._C._nn.gelu(x, approximate="tanh", out=o)),
    ("gelu", lambda x, o: torch._C._nn.gelu(x, out=o)),
    ("exp", lambda x, o: torch.exp(x, out=o)),
    ("sqrt", lambda x, o: torch.sqrt(x, out=o)),
]


def run():
    rows = []
    g = torch.Generator().manual_seed(0)
    for name, dtype, fn in CASES:
        x_cpu = (torch.randn(N, generator=g) * 3).abs().to(dtype) if name in ("sqrt", "log") else \
            (torch.randn(N, generator=g) * 3).to(dtype)
        x_tpu = x_cpu.to("tpu")
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu))
        rows.append({"op": name, "dtype": str(dtype).replace("torch.", ""), "numel": N,
                     "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3, "tpu/cpu": t_tpu / t_cpu})
    for name, fn in COMPLEX_CASES:
        x_cpu = torch.complex(torch.randn(N_COMPLEX, generator=g), torch.randn(N_COMPLEX, generator=g)) * 3
        x_tpu = x_cpu.to("tpu")
        t_tpu, t_cpu = compare(lambda: fn(x_tpu), lambda: fn(x_cpu))
        rows.append({"op": name, "dtype": "complex64", "numel": N_COMPLEX,
                     "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3, "tpu/cpu": t_tpu / t_cpu})
    # Into preallocated outputs: the compute alone (CPU eager above also pays
    # for fresh 64 MiB outputs, page faults included; tpu's allocator caches).
    for name, fn in OUT_CASES:
        x_cpu = (torch.randn(N, generator=g) * 3).abs()
        x_tpu = x_cpu.to("tpu")
        o_cpu, o_tpu = torch.empty_like(x_cpu), torch.empty_like(x_tpu)
        t_tpu, t_cpu = compare(lambda: fn(x_tpu, o_tpu), lambda: fn(x_cpu, o_cpu))
        rows.append({"op": name + " (out=)", "dtype": "float32", "numel": N,
                     "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3, "tpu/cpu": t_tpu / t_cpu})
    return rows


def main() -> None:
    rows = run()
    print_table("unary elementwise, 16M elements (complex64: 4M) (ratio = tpu / cpu)", rows)
    save("unary", rows)


if __name__ == "__main__":
    main()
