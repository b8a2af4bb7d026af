"""Binary/ternary elementwise throughput on 16M float32 (64 MiB per operand):
add, mul, addcmul, where, and a few more of the family, tpu against CPU
eager in the same process. ratio = tpu time / CPU time (target: <= 1.1 for
add and mul). Out-of-place, so both sides allocate their result (from warm
caches)."""

from __future__ import annotations

import torch

import torch_tpu  # noqa: F401
from common import compare, print_table, save

N = 16 * 1024 * 1024


def run(n: int = N) -> list:
    g = torch.Generator().manual_seed(0)
    a_cpu, b_cpu, c_cpu = (torch.randn(n, generator=g) for _ in range(3))
    cond_cpu = a_cpu > 0
    a, b, c, cond = (t.to("tpu") for t in (a_cpu, b_cpu, c_cpu, cond_cpu))
    cases = [
        ("add", lambda x, y, z, k: x + y),
        ("mul", lambda x, y, z, k: x * y),
        ("addcmul", lambda x, y, z, k: torch.addcmul(x, y, z, value=0.5)),
        ("where", lambda x, y, z, k: torch.where(k, x, y)),
        ("gt", lambda x, y, z, k: x > y),
        ("maximum", lambda x, y, z, k: torch.maximum(x, y)),
        ("clamp(-1, 1)", lambda x, y, z, k: torch.clamp(x, -1, 1)),
        ("lerp(0.1)", lambda x, y, z, k: torch.lerp(x, y, 0.1)),
        ("addcdiv", lambda x, y, z, k: torch.addcdiv(x, y, z, value=0.5)),
        ("pow(2)", lambda x, y, z, k: torch.pow(x, 2)),
    ]
    rows = []
    for name, fn in cases:
        t_tpu, t_cpu = compare(lambda: fn(a, b, c, cond), lambda: fn(a_cpu, b_cpu, c_cpu, cond_cpu), repeat=3)
        rows.append({"op (16M float32)": name, "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3,
                     "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("Binary elementwise, 16M float32 (ratio = tpu / cpu)", rows)
    save("binary", rows)
