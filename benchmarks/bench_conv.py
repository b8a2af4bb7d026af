"""The convolutional-network kernels against CPU eager (oneDNN) in one run:
conv2d forward and forward+backward on a ResNet layer (batch 16, 64 -> 64
channels, 56 x 56, 3 x 3, padding 1), batch norm (training, fwd and
fwd+bwd), group norm (32 groups, fwd and fwd+bwd), max pooling 3x3/2 and
adaptive average pooling on the same activations, the ResNet example's own
3x3 convolutions, and one training step of examples/train_resnet.py. float32.
ratio = tpu / cpu."""

from __future__ import annotations

import copy
import os
import sys

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401
from common import add_case, backward_closure, print_table, save

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_resnet  # noqa: E402


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
    add_case(rows, "conv2d 16x64x56x56 3x3", lambda: conv(xt, wt), lambda: conv(x, w))
    add_case(rows, "conv2d fwd+bwd 16x64x56x56 3x3", backward_closure(conv, xt, wt), backward_closure(conv, x, w))
    g, b = torch.randn(64), torch.randn(64)
    gt, bt = g.to("tpu"), b.to("tpu")
    bn = lambda a, c, d: F.batch_norm(a, None, None, c, d, training=True)
    add_case(rows, "batch_norm train 16x64x56x56", lambda: bn(xt, gt, bt), lambda: bn(x, g, b))
    add_case(rows, "batch_norm fwd+bwd 16x64x56x56", backward_closure(bn, xt, gt, bt), backward_closure(bn, x, g, b))
    gn = lambda a, c, d: F.group_norm(a, 32, c, d)
    add_case(rows, "group_norm 32 groups 16x64x56x56", lambda: gn(xt, gt, bt), lambda: gn(x, g, b))
    add_case(rows, "group_norm fwd+bwd 16x64x56x56", backward_closure(gn, xt, gt, bt), backward_closure(gn, x, g, b))
    mp = lambda a: F.max_pool2d(a, 3, 2, 1)
    add_case(rows, "max_pool2d 3x3/2 16x64x56x56", lambda: mp(xt), lambda: mp(x))
    add_case(rows, "max_pool2d fwd+bwd 16x64x56x56", backward_closure(mp, xt), backward_closure(mp, x))
    ap = lambda a: F.adaptive_avg_pool2d(a, (7, 7))
    add_case(rows, "adaptive_avg_pool2d 7x7 16x64x56x56", lambda: ap(xt), lambda: ap(x))
    # The ResNet example's own 3x3 convolutions (batch 16): small planes,
    # where per-row costs of im2col/col2im used to dominate.
    for cin, cout, size, stride in ((3, 16, 16, 1), (16, 16, 8, 1), (16, 32, 8, 2), (32, 32, 4, 1)):
        xs = torch.randn(16, cin, size, size)
        ws = torch.randn(cout, cin, 3, 3) * 0.1
        small = lambda a, b, s=stride: F.conv2d(a, b, stride=s, padding=1)
        what = f"conv2d 16x{cin}x{size}x{size} -> {cout} 3x3/{stride}"
        add_case(rows, what, lambda a=xs.to("tpu"), b=ws.to("tpu"): small(a, b), lambda: small(xs, ws))
        add_case(rows, what.replace("conv2d", "conv2d fwd+bwd"), backward_closure(small, xs.to("tpu"), ws.to("tpu")),
                 backward_closure(small, xs, ws))
    add_case(rows, "resnet example training step (batch 16, 16x16)", _step("tpu"), _step("cpu"))
    return rows


if __name__ == "__main__":
    rows = run()
    print_table(__doc__.splitlines()[0], rows)
    save("conv", rows)
