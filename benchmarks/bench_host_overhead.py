"""Host-side costs: enqueueing an empty kernel, torch.empty on tpu against
torch.empty on CPU, and a warm-cache allocate/free cycle of the caching
allocator. ratio = tpu time / CPU time (where a CPU counterpart exists)."""

from __future__ import annotations

import torch

import torch_tpu
from common import compare, print_table, save, timeit


def run() -> list:
    rows = []
    host, total = torch_tpu._C._bench_empty_launches(200_000)
    rows.append({"what": "empty kernel launch (host enqueue)", "tpu us": host * 1e6,
                 "cpu us": float("nan"), "ratio": float("nan")})
    rows.append({"what": "empty kernel launch (host + device)", "tpu us": total * 1e6,
                 "cpu us": float("nan"), "ratio": float("nan")})
    for n in (1, 1024, 1 << 20):
        t_tpu, t_cpu = compare(lambda: torch.empty(n, device="tpu"), lambda: torch.empty(n))
        rows.append({"what": f"torch.empty({n})", "tpu us": t_tpu * 1e6, "cpu us": t_cpu * 1e6,
                     "ratio": t_tpu / t_cpu})

    def alloc_free(device):
        x = torch.empty(4096, device=device)
        del x

    t_tpu = timeit(lambda: alloc_free("tpu"))
    t_cpu = timeit(lambda: alloc_free("cpu"))
    rows.append({"what": "allocate+free 16 KiB (warm cache)", "tpu us": t_tpu * 1e6,
                 "cpu us": t_cpu * 1e6, "ratio": t_tpu / t_cpu})
    x_cpu = torch.ones(1024)
    x_tpu = x_cpu.to("tpu")
    t_tpu, t_cpu = compare(lambda: x_tpu.zero_(), lambda: x_cpu.zero_())
    rows.append({"what": "zero_ of 1K floats (small op)", "tpu us": t_tpu * 1e6,
                 "cpu us": t_cpu * 1e6, "ratio": t_tpu / t_cpu})
    y_cpu = torch.ones(1024)
    y_tpu = y_cpu.to("tpu")
    t_tpu, t_cpu = compare(lambda: x_tpu + y_tpu, lambda: x_cpu + y_cpu)
    rows.append({"what": "add of two 1K float tensors (small op)", "tpu us": t_tpu * 1e6,
                 "cpu us": t_cpu * 1e6, "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("Host-side overhead (ratio = tpu / cpu)", rows)
    save("host_overhead", rows)
