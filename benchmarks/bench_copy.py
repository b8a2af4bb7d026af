"""Copy bandwidth: H2D, D2H (pageable and pinned host memory) and D2D, from
4 KiB to 256 MiB, against a host memcpy of the same size (CPU copy_) as the
ceiling. ratio = tpu time / host memcpy time (1.0 = as fast as memcpy)."""

from __future__ import annotations

import torch

from common import fmt_bytes, print_table, save, timeit, tpu_sync

SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]


def run() -> list:
    rows = []
    for size in SIZES:
        cpu_a = torch.empty(size, dtype=torch.uint8).fill_(1)
        cpu_b = torch.empty(size, dtype=torch.uint8)
        pin_a = cpu_a.pin_memory()
        pin_b = torch.empty(size, dtype=torch.uint8).pin_memory()
        dev_a = cpu_a.to("tpu")
        dev_b = torch.empty(size, dtype=torch.uint8, device="tpu")
        ceiling = timeit(lambda: cpu_b.copy_(cpu_a))
        cases = {
            "h2d pageable": lambda: dev_b.copy_(cpu_a),
            "h2d pinned": lambda: dev_b.copy_(pin_a, non_blocking=True),
            "d2h pageable": lambda: cpu_b.copy_(dev_a),
            "d2h pinned": lambda: pin_b.copy_(dev_a, non_blocking=True),
            "d2d": lambda: dev_b.copy_(dev_a),
        }
        for name, fn in cases.items():
            t = timeit(fn, tpu_sync)
            rows.append({"copy": name, "size": fmt_bytes(size), "GB/s": size / t / 1e9,
                         "memcpy GB/s": size / ceiling / 1e9, "ratio": t / ceiling})
        del dev_a, dev_b
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("Copy bandwidth (ratio = tpu time / host memcpy time)", rows)
    save("copy", rows)
