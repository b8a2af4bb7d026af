"""Graph capture and replay on tpu: the host time of a training step, eager
against replayed, and the whole step's time, for the GPT and ResNet
examples; plus torch.compile's default and "reduce-overhead" modes on the
GPT step. Host time is the time until step() returns (the device may still
be running); total is per step with a synchronization at the end of each
round. Ratios only, no assertions.

Whole-step capture is the CUDA-graphs pattern: warm up on a side stream,
then capture forward, backward and optimizer.step() into one graph; a step
copies the batch into the static inputs and replays."""

from __future__ import annotations

import copy
import os
import statistics
import sys
import time

import torch

from common import tpu_sync

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_gpt  # noqa: E402
import train_resnet  # noqa: E402


def _gpt(model, batch=8):
    x, y = next(iter(train_gpt.batches(1, batch, 32, 96)))
    return (lambda m, a, b: m(a, b)), x, y


def _resnet(model, batch=16):
    x, y = next(iter(train_resnet.batches(1, batch)))
    return (lambda m, a, b: torch.nn.functional.cross_entropy(m(a), b)), x, y


def eager_step(model, loss_of, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def step():
        loss = loss_of(model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def compiled_step(model, loss_of, x, y, mode):
    fwd = torch.compile(model, mode=mode)
    return eager_step(fwd, loss_of, x, y)


def graphed_step(model, loss_of, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    static_x, static_y = x.clone(), y.clone()
    side = torch.tpu.Stream()
    side.wait_stream(torch.tpu.current_stream())
    with torch.tpu.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            loss_of(model, static_x, static_y).backward()
            opt.step()
    torch.tpu.current_stream().wait_stream(side)
    g = torch.tpu.TPUGraph()
    opt.zero_grad(set_to_none=True)
    with torch.tpu.graph(g):
        static_loss = loss_of(model, static_x, static_y)
        static_loss.backward()
        opt.step()

    def step():
        static_x.copy_(x)
        static_y.copy_(y)
        g.replay()
    step.loss = static_loss
    return step


def measure(step, rounds=5, per_round=5):
    step()
    tpu_sync()
    hosts, totals = [], []
    for _ in range(rounds):
        tpu_sync()
        host = 0.0
        t0 = time.perf_counter()
        for _ in range(per_round):
            h0 = time.perf_counter()
            step()
            host += time.perf_counter() - h0
        tpu_sync()
        totals.append((time.perf_counter() - t0) / per_round)
        hosts.append(host / per_round)
    return statistics.median(hosts), statistics.median(totals)


def run():
    rows = []
    for what, make_model, make_case in (("GPT (examples/train_gpt.py), batch 8 x 32", train_gpt.GPT, _gpt),
                                        ("ResNet (examples/train_resnet.py), batch 16", train_resnet.ResNet,
                                         _resnet)):
        torch.manual_seed(0)
        ref = make_model()
        loss_of, x, y = make_case(ref)
        x, y = x.to("tpu"), y.to("tpu")
        cases = {"eager": eager_step(copy.deepcopy(ref).to("tpu"), loss_of, x, y),
                 "graph replay": graphed_step(copy.deepcopy(ref).to("tpu"), loss_of, x, y)}
        if make_model is train_gpt.GPT:
            torch._dynamo.reset()
            cases["compiled"] = compiled_step(copy.deepcopy(ref).to("tpu"), loss_of, x, y, "default")
            cases["compiled reduce-overhead"] = compiled_step(copy.deepcopy(ref).to("tpu"), loss_of, x, y,
                                                              "reduce-overhead")
        times = {name: measure(step) for name, step in cases.items()}
        eager_host, eager_total = times["eager"]
        for name, (host, total) in times.items():
            rows.append({"what": what, "step": name, "host us": host * 1e6, "total ms": total * 1e3,
                         "host / eager host": host / eager_host, "total / eager total": total / eager_total})
    return rows


if __name__ == "__main__":
    from common import print_table, save

    rows = run()
    print_table("training step: eager enqueue against graph replay (ratios in the same run)", rows)
    save("graphs", rows)
