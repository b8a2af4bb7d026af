"""The profiler's cost on the GPT example's training step on tpu: the step
with the profiler off and inside torch.profiler.profile (CPU and
PrivateUse1 activities: host ops, and the device's kernels and copies from
the Kineto child profiler), in alternating rounds, against CPU eager's step
without a profiler. Off, the runtime's trace hook costs one relaxed atomic
load per launch; on, every launch records a device event."""

from __future__ import annotations

import copy
import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

from bench_train_gpt import _step_fn, train_gpt
from common import _calibrate, tpu_sync

TITLE = "Profiler overhead on the GPT training step (batch 8; ratio = tpu / cpu eager without a profiler)"


def _round(step, n, sync) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    sync()
    return (time.perf_counter() - t0) / n


def run(repeat: int = 7):
    torch.manual_seed(0)
    ref = train_gpt.GPT()
    tpu_step = _step_fn(copy.deepcopy(ref), "tpu", 8)
    cpu_step = _step_fn(ref, "cpu", 8)
    n = _calibrate(tpu_step, tpu_sync, 0.3)
    n_cpu = _calibrate(cpu_step, lambda: None, 0.3)
    off, on, cpu, events = [], [], [], 0
    for _ in range(repeat):
        off.append(_round(tpu_step, n, tpu_sync))
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
            on.append(_round(tpu_step, n, tpu_sync))
        events = len(prof.events()) // n
        cpu.append(_round(cpu_step, n_cpu, lambda: None))
    off, on, cpu = (statistics.median(x) for x in (off, on, cpu))
    return [
        {"tpu step": "profiler off", "tpu ms": round(off * 1e3, 2), "cpu ms": round(cpu * 1e3, 2),
         "ratio": round(off / cpu, 2), "vs off": 1.0},
        {"tpu step": f"profiler on ({events} events a step)", "tpu ms": round(on * 1e3, 2),
         "cpu ms": round(cpu * 1e3, 2), "ratio": round(on / cpu, 2), "vs off": round(on / off, 2)},
    ]


if __name__ == "__main__":
    from common import print_table, save

    rows = run()
    print_table(TITLE, rows)
    save("profiler", rows)
