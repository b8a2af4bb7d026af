"""Shared helpers: time a callable on tpu and on CPU side by side, in one
process, and report the ratio (tpu time / CPU time)."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Callable, Dict, List

# The checkout these benchmarks belong to, not whichever torch_tpu is
# installed: comparing two checkouts (before/after a change) must measure
# each one's own build.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import torch_tpu  # noqa: E402,F401  (registers the device)

assert os.path.dirname(os.path.dirname(os.path.abspath(torch_tpu.__file__))) == sys.path[0], \
    f"benchmarks measure {torch_tpu.__file__}, not this checkout's build"

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def timeit(fn: Callable[[], object], sync: Callable[[], None] = lambda: None,
           min_time: float = 0.2, repeat: int = 5) -> float:
    """Median seconds per call over `repeat` rounds of at least `min_time` each."""
    fn()
    sync()
    n = 1
    while True:  # calibrate the inner loop
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt >= min_time / 4 or n >= 1 << 20:
            break
        n *= 2
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        rounds.append((time.perf_counter() - t0) / n)
    return statistics.median(rounds)


def _calibrate(fn: Callable[[], object], sync: Callable[[], None], min_time: float) -> int:
    fn()
    sync()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        if time.perf_counter() - t0 >= min_time / 4 or n >= 1 << 20:
            return n
        n *= 2


def compare(tpu_fn: Callable[[], object], cpu_fn: Callable[[], object],
            min_time: float = 0.2, repeat: int = 5) -> "tuple[float, float]":
    """Median seconds per call of tpu_fn (synchronized) and cpu_fn.

    Rounds alternate tpu, cpu, tpu, ... so that both see the same state of
    the machine: on this shared 2-core VM memory bandwidth drifts by 20-50%
    over seconds, and timing all tpu rounds before all CPU rounds turned that
    drift into the ratio."""
    n_tpu = _calibrate(tpu_fn, tpu_sync, min_time)
    n_cpu = _calibrate(cpu_fn, lambda: None, min_time)
    t_tpu, t_cpu = [], []
    for _ in range(repeat):
        for fn, n, sync, out in ((tpu_fn, n_tpu, tpu_sync, t_tpu), (cpu_fn, n_cpu, lambda: None, t_cpu)):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            sync()
            out.append((time.perf_counter() - t0) / n)
    return statistics.median(t_tpu), statistics.median(t_cpu)


def add_case(rows: List[Dict[str, object]], what: str, tpu_fn: Callable[[], object],
             cpu_fn: Callable[[], object]) -> None:
    """Times tpu_fn against cpu_fn (compare) and appends the table row."""
    t_tpu, t_cpu = compare(tpu_fn, cpu_fn)
    rows.append({"what": what, "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3, "ratio": t_tpu / t_cpu})


def backward_closure(fn: Callable[..., "torch.Tensor"], *inputs: "torch.Tensor") -> Callable[[], None]:
    """A closure running fn's forward and backward on fresh leaves of inputs."""
    leaves = [t.detach().requires_grad_() for t in inputs]
    g = torch.ones_like(fn(*leaves))

    def run() -> None:
        torch.autograd.grad(fn(*leaves), leaves, g)
    return run


def tpu_sync() -> None:
    torch.tpu.synchronize()


def fmt_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}"
        n /= 1024
    return str(n)


def print_table(title: str, rows: List[Dict[str, object]]) -> None:
    if not rows:
        return
    cols = list(dict.fromkeys(c for r in rows for c in r))  # every row's columns, first seen first
    widths = {c: max(len(c), *(len(_cell(r.get(c, ""))) for r in rows)) for c in cols}
    print(f"\n## {title}\n")
    print("| " + " | ".join(c.ljust(widths[c]) for c in cols) + " |")
    print("|" + "|".join("-" * (widths[c] + 2) for c in cols) + "|")
    for r in rows:
        print("| " + " | ".join(_cell(r.get(c, "")).ljust(widths[c]) for c in cols) + " |")


def _cell(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def save(name: str, rows: List[Dict[str, object]]) -> None:
    os.makedirs(RESULTS_DIR, exist_ok=True)
    with open(os.path.join(RESULTS_DIR, f"{name}.json"), "w") as f:
        json.dump(rows, f, indent=1)
