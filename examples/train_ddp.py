"""Data-parallel training on the simulated TPUs with DistributedDataParallel,
checked against single-process full-batch training on CPU.

    torchrun --nproc-per-node 2 examples/train_ddp.py [--steps 10] [--check]

Each process drives `tpu:LOCAL_RANK` (the simulated host has
`torch.tpu.device_count()` == 2 devices) and joins the group with
`init_process_group(device_id=...)`, which selects torch_tpu's "tccl"
backend. Every rank trains on its slice of each global batch; DDP averages
the gradients, so the model follows full-batch training. Across hosts, run
the same command on each with torchrun's --nnodes/--node-rank/--rdzv-endpoint
(tccl's transport is gloo over c10d's TCP store, so it needs only TCP
between the hosts). With --check, rank 0 also trains the CPU reference and
exits non-zero if a loss or parameter differs.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

import torch_tpu  # noqa: F401  (registers the tpu device and the tccl backend)


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 64), nn.GELU(),
                         nn.Linear(64, 4))


def global_batches(steps: int, batch: int):
    """A fixed synthetic regression task: the same on every rank."""
    g = torch.Generator().manual_seed(1)
    w = torch.randn(16, 4, generator=g)
    for _ in range(steps):
        x = torch.randn(batch, 16, generator=g)
        yield x, torch.tanh(x @ w)


def train_cpu_reference(steps: int, batch: int, lr: float):
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in global_batches(steps, batch):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=32, help="global batch (split over the ranks)")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--check", action="store_true", help="compare with CPU full-batch training")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("tpu", local_rank)
    torch.tpu.set_device(device)
    dist.init_process_group(device_id=device)  # no backend named: tccl is the tpu default
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch % world:
        raise ValueError(f"--batch {args.batch} must be divisible by the world size {world}")
    per_rank = args.batch // world

    model = DDP(make_model().to(device), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    losses = []
    for step, (x, y) in enumerate(global_batches(args.steps, args.batch)):
        x = x[rank * per_rank:(rank + 1) * per_rank].to(device)
        y = y[rank * per_rank:(rank + 1) * per_rank].to(device)
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()  # gradients are averaged over the ranks, bucket by bucket
        opt.step()
        dist.all_reduce(loss.detach(), op=dist.ReduceOp.AVG)  # the global batch's loss
        losses.append(loss.item())
        if rank == 0:
            print(f"step {step:3d}  loss {losses[-1]:.6f}", flush=True)

    status = 0
    if args.check and rank == 0:
        ref_losses, ref_model = train_cpu_reference(args.steps, args.batch, args.lr)
        loss_diff = max(abs(a - b) for a, b in zip(losses, ref_losses))
        param_diff = max((p.detach().cpu() - q.detach()).abs().max().item()
                         for p, q in zip(model.module.parameters(), ref_model.parameters()))
        ok = loss_diff < 1e-4 and param_diff < 1e-4
        print(f"CPU full-batch reference: max loss difference {loss_diff:.2e}, "
              f"max parameter difference {param_diff:.2e}: {'OK' if ok else 'MISMATCH'}", flush=True)
        status = 0 if ok else 1
    dist.destroy_process_group()
    return status


if __name__ == "__main__":
    sys.exit(main())
