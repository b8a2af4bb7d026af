"""Train the GPT example compiled with torch.compile on tpu, against CPU eager.

    python examples/compile_gpt.py [--steps N] [--mode default|reduce-overhead]

The forward and backward are compiled by Inductor (AOTAutograd): its
generated kernels run as tpu device work on the current stream; matmuls and
attention call the tpu aten kernels. With --mode reduce-overhead each
compiled graph is captured once and replayed (torch_tpu/_compile/graphs.py).
Prints each step's loss on both, the graph breaks (expected: none) and the
host fallbacks (expected: none)."""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time

import torch
from torch._dynamo.utils import counters

import torch_tpu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_gpt import GPT, train  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--mode", default="default", choices=["default", "reduce-overhead", "max-autotune-no-cudagraphs"])
    args = p.parse_args(argv)

    torch.manual_seed(0)
    reference = GPT()
    model = copy.deepcopy(reference)
    cpu_losses = train(reference, "cpu", args.steps)

    counters.clear()
    torch_tpu.reset_stats()
    t0 = time.perf_counter()
    with torch_tpu.no_fallback():  # any op on the host raises
        tpu_losses = train(torch.compile(model, mode=args.mode), "tpu", args.steps)
    seconds = time.perf_counter() - t0

    for i, (c, t) in enumerate(zip(cpu_losses, tpu_losses)):
        print(f"step {i:2d}  cpu {c:.5f}  tpu compiled {t:.5f}  diff {abs(c - t):.2e}")
    breaks = sum(counters["graph_break"].values())
    print(f"{args.steps} compiled steps in {seconds:.1f} s (first compile included); "
          f"graph breaks: {breaks}; launches: {torch_tpu.stats()['launches']}")
    ok = breaks == 0 and all(abs(c - t) < 1e-3 for c, t in zip(cpu_losses, tpu_losses))
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
