"""The convolutional-network kernels against CPU eager (oneDNN) in one run:
conv2d forward and forward+backward on a ResNet layer (batch 16, 64 -> 64
channels, 56 x 56, 3 x 3, padding 1), batch norm (training, fwd and
fwd+bwd), max pooling 3x3/2 and adaptive average pooling on the same
activations, and one training step of examples/train_resnet.py. float32.
ratio = tpu / cpu."""

from __future__ import annotations

import copy
import os
import sys

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401
from common import compare, print_table, save

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_resnet  # noqa: E402


def _case(rows, what, fn_tpu, fn_cpu):
    t_tpu, t_cpu = compare(fn_tpu, fn_cpu)
    rows.append({"what": what, "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3, "ratio": t_tpu / t_cpu})


def _backward(fn, *inputs):
    leaves = [t.detach().requires_grad_() for t in inputs]
    g = torch.ones_like(fn(*leaves))

    def run():
        torch.autograd.grad(fn(*leaves), leaves, g)
    return run


def _step(device):
    torch.manual_seed(0)
    model = train_resnet.ResNet().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, foreach=True)
    x, y = next(train_resnet.batches(1, 16))
    x, y = x.to(device), y.to(device)

    def run():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return run


def run() -> list:
    rows = []
    torch.manual_seed(0)
    x = torch.randn(16, 64, 56, 56)
    w = torch.randn(64, 64, 3, 3) * 0.05
    xt, wt = x.to("tpu"), w.to("tpu")
    conv = lambda a, b: F.conv2d(a, b, padding=1)
    _case(rows, "conv2d 16x64x56x56 3x3", lambda: conv(xt, wt), lambda: conv(x, w))
    _case(rows, "conv2d fwd+bwd 16x64x56x56 3x3", _backward(conv, xt, wt), _backward(conv, x, w))
    g, b = torch.randn(64), torch.randn(64)
    gt, bt = g.to("tpu"), b.to("tpu")
    bn = lambda a, c, d: F.batch_norm(a, None, None, c, d, training=True)
    _case(rows, "batch_norm train 16x64x56x56", lambda: bn(xt, gt, bt), lambda: bn(x, g, b))
    _case(rows, "batch_norm fwd+bwd 16x64x56x56", _backward(bn, xt, gt, bt), _backward(bn, x, g, b))
    mp = lambda a: F.max_pool2d(a, 3, 2, 1)
    _case(rows, "max_pool2d 3x3/2 16x64x56x56", lambda: mp(xt), lambda: mp(x))
    _case(rows, "max_pool2d fwd+bwd 16x64x56x56", _backward(mp, xt), _backward(mp, x))
    ap = lambda a: F.adaptive_avg_pool2d(a, (7, 7))
    _case(rows, "adaptive_avg_pool2d 7x7 16x64x56x56", lambda: ap(xt), lambda: ap(x))
    _case(rows, "resnet example training step (batch 16, 16x16)", _step("tpu"), _step("cpu"))
    return rows


if __name__ == "__main__":
    rows = run()
    print_table(__doc__.splitlines()[0], rows)
    save("conv", rows)
