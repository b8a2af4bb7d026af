"""The GPT example's training step (forward, backward, clip, AdamW) on tpu
and on CPU eager, same model and batch: ratio tpu time / CPU time."""

from __future__ import annotations

import copy
import os
import sys

import torch

from common import compare

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_gpt  # noqa: E402


def _step_fn(model, device, batch):
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, foreach=True)
    x, y = next(iter(train_gpt.batches(1, batch, 32, 96)))
    x, y = x.to(device), y.to(device)

    def step():
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
    return step


def run():
    rows = []
    for batch in (8, 32):
        torch.manual_seed(0)
        ref = train_gpt.GPT()
        tpu, cpu = compare(_step_fn(copy.deepcopy(ref), "tpu", batch), _step_fn(ref, "cpu", batch))
        rows.append({"what": f"GPT train step, batch {batch} x 32 tokens", "tpu us": round(tpu * 1e6, 1),
                     "cpu us": round(cpu * 1e6, 1), "ratio": round(tpu / cpu, 2)})
    return rows


if __name__ == "__main__":
    from common import print_table, save

    rows = run()
    print_table("GPT training step (ratio = tpu / cpu)", rows)
    save("train_gpt", rows)
