"""A MobileNetV3-style CNN trained on the simulated TPU, checked against the
same network trained on CPU eager.

    python examples/train_mobilenet.py [--steps 20] [--allow-fallback]

A hardswish stem, then inverted-residual blocks: a 1x1 expansion, a 3x3
depthwise convolution (groups = channels), squeeze-and-excitation (adaptive
average pooling, two 1x1 convolutions, ReLU and hardsigmoid gating), a 1x1
projection, batch norm throughout and a residual connection where shapes
allow; then adaptive average pooling, a hardswish classifier with dropout 0,
cross-entropy and SGD with momentum, on fixed synthetic images. By default
every operator must run on the device: a host fallback raises. With
--allow-fallback the run lists the operators that fell back instead.
"""

from __future__ import annotations

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_tpu  # noqa: F401  (the "tpu" device)

import compare_training


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, squeeze: int):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(self.pool(x)))))
        return x * s


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, expand: int, cout: int, stride: int, se: bool, act: type):
        super().__init__()
        self.residual = stride == 1 and cin == cout
        layers = [nn.Conv2d(cin, expand, 1, bias=False), nn.BatchNorm2d(expand), act(),
                  nn.Conv2d(expand, expand, 3, stride, 1, groups=expand, bias=False), nn.BatchNorm2d(expand),
                  act()]
        if se:
            layers.append(SqueezeExcite(expand, max(8, expand // 4)))
        layers += [nn.Conv2d(expand, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.block = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.blocks = nn.Sequential(
            InvertedResidual(16, 16, 16, 2, True, nn.ReLU),
            InvertedResidual(16, 72, 24, 2, False, nn.ReLU),
            InvertedResidual(24, 88, 24, 1, False, nn.ReLU),
            InvertedResidual(24, 96, 40, 2, True, nn.Hardswish),
            InvertedResidual(40, 120, 40, 1, True, nn.Hardswish),
        )
        self.head = nn.Sequential(nn.Conv2d(40, 96, 1, bias=False), nn.BatchNorm2d(96), nn.Hardswish(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 128), nn.Hardswish(),
                                  nn.Dropout(0.0), nn.Linear(128, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.stem(x)))


def model() -> MobileNetV3Small:
    return MobileNetV3Small()


def batches(steps: int, batch: int = 16, size: int = 32, classes: int = 10, seed: int = 0):
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
