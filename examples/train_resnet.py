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

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_tpu  # noqa: F401  (the "tpu" device)

import compare_training


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


def model() -> ResNet:
    return ResNet()


def batches(steps: int, batch: int = 16, size: int = 16, classes: int = 10, seed: int = 0):
    """Fixed synthetic images: a class-dependent pattern plus noise."""
    g = torch.Generator().manual_seed(seed)
    patterns = torch.randn(classes, 3, size, size, generator=g)
    for _ in range(steps):
        y = torch.randint(0, classes, (batch,), generator=g)
        x = patterns[y] + 0.5 * torch.randn(batch, 3, size, size, generator=g)
        yield x, y


def optimizer(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4, foreach=True)


def train_step(model: nn.Module, opt: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> float:
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss.item()


def train(model: nn.Module, device: str, steps: int, batch: int = 16) -> list[float]:
    model = model.to(device).train()
    opt = optimizer(model)
    return [train_step(model, opt, x.to(device), y.to(device)) for x, y in batches(steps, batch)]


def main(argv=None) -> int:
    return compare_training.main(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
