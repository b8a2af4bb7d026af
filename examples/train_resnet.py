"""A small ResNet-style convolutional network trained on the simulated TPU,
checked against the same network trained on CPU eager.

    python examples/train_resnet.py [--steps 20] [--allow-fallback]

A 3x3 stem convolution with batch norm, ReLU and max pooling, two residual
basic blocks (the second strided, with a 1x1 projection shortcut), adaptive
average pooling, a linear classifier, cross-entropy and SGD with momentum,
on a fixed synthetic image dataset. By default every operator must run on
the device: a host fallback raises. With --allow-fallback the run lists the
operators that fell back instead.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_tpu


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, classes: int = 10, width: int = 16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.layer1 = BasicBlock(width, width, 1)
        self.layer2 = BasicBlock(width, 2 * width, 2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(2 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def batches(steps: int, batch: int, size: int = 16, classes: int = 10, seed: int = 0):
    """Fixed synthetic images: a class-dependent pattern plus noise."""
    g = torch.Generator().manual_seed(seed)
    patterns = torch.randn(classes, 3, size, size, generator=g)
    for _ in range(steps):
        y = torch.randint(0, classes, (batch,), generator=g)
        x = patterns[y] + 0.5 * torch.randn(batch, 3, size, size, generator=g)
        yield x, y


def train(model: nn.Module, device: str, steps: int, batch: int = 16) -> list[float]:
    model = model.to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4, foreach=True)
    losses = []
    for x, y in batches(steps, batch):
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--allow-fallback", action="store_true")
    args = p.parse_args(argv)

    torch.manual_seed(0)
    reference = ResNet()
    model = copy.deepcopy(reference)
    cpu_losses = train(reference, "cpu", args.steps)
    if args.allow_fallback:
        torch_tpu.set_fallback_policy("allow")
    torch_tpu.reset_stats()
    tpu_losses = train(model, "tpu", args.steps)
    stats = torch_tpu.stats()

    for i, (c, t) in enumerate(zip(cpu_losses, tpu_losses)):
        print(f"step {i:2d}  cpu {c:.5f}  tpu {t:.5f}  diff {abs(c - t):.2e}")
    fallbacks = {op: r["fallback"] for op, r in stats["ops"].items() if "fallback" in r}
    if fallbacks:
        print("host fallbacks:")
        for op, n in sorted(fallbacks.items()):
            print(f"  {op}: {n}")
        return 1
    worst = max(abs(c - t) / max(abs(c), 1e-6) for c, t in zip(cpu_losses, tpu_losses))
    print(f"zero host fallbacks; worst relative loss difference {worst:.2e}")
    if not math.isfinite(worst) or worst > 1e-3:
        print("losses diverge from CPU", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
