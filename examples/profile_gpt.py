"""Profiles a few training steps of examples/train_gpt.py's GPT on the
simulated TPU: writes a Chrome/Perfetto trace and a memory snapshot, and
prints the ops that took the most device time.

    python examples/profile_gpt.py [--steps 3] [--out profile_gpt]

Writes <out>.trace.json (open it at https://ui.perfetto.dev or in
chrome://tracing: CPU ops on the host threads, tpu kernels and copies on one
lane per stream under "tpu:0", arrows from each launch to its kernel) and
<out>.memory.pickle (drag it onto https://pytorch.org/memory_viz, or run
`python -m torch.cuda._memory_viz trace_plot <out>.memory.pickle -o mem.html`).
"""

from __future__ import annotations

import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_gpt import GPT, batches  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--out", default="profile_gpt")
    args = p.parse_args(argv)

    torch.manual_seed(0)
    model = GPT().to("tpu")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, foreach=True)
    data = list(batches(args.steps + 1, 8, 32, 96))

    def step(x, y):
        x, y = x.to("tpu"), y.to("tpu")
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    step(*data[0])  # warm-up: the allocator's cache and lazy state are filled
    torch.tpu.memory._record_memory_history(max_entries=100_000, stacks="python")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1],
                 profile_memory=True, record_shapes=True) as prof:
        for x, y in data[1:]:
            step(x, y)
    torch.tpu.memory._dump_snapshot(f"{args.out}.memory.pickle")
    torch.tpu.memory._record_memory_history(enabled=None)
    prof.export_chrome_trace(f"{args.out}.trace.json")

    print(prof.key_averages().table(sort_by="self_device_time_total", row_limit=12))
    print(f"wrote {args.out}.trace.json and {args.out}.memory.pickle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
