"""CTC loss on tpu against CPU eager in the same process: F.ctc_loss over
T=200 steps, N=16 sequences, C=40 classes, targets of up to S=50 labels
(lengths drawn in [25, 50], inputs in [150, 200]), float32; forward, and
forward+backward (autograd through _ctc_loss_backward). Lengths as int lists,
and as tensors (nn.CTCLoss's usual form: ATen copies them to the host, one
synchronisation per call on tpu).
ratio = tpu time / CPU time (lower is better; 1.0 = as fast as CPU)."""

from __future__ import annotations

import sys

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401
from common import compare, print_table, save

TITLE = "CTC loss, T=200 N=16 C=40 S=50 (ratio = tpu / cpu)"
T, N, C, S = 200, 16, 40, 50


def _problem(dtype):
    g = torch.Generator().manual_seed(0)
    log_probs = torch.randn(T, N, C, generator=g, dtype=dtype).log_softmax(2)
    targets = torch.randint(1, C, (N, S), generator=g)
    input_lengths = torch.randint(150, T + 1, (N,), generator=g)
    target_lengths = torch.randint(25, S + 1, (N,), generator=g)
    return log_probs, targets, input_lengths, target_lengths


def _cases(dtype, device, lengths_as_tensors):
    log_probs, targets, input_lengths, target_lengths = _problem(dtype)
    lp = log_probs.to(device)
    tg = targets.to(device)
    if lengths_as_tensors:
        il, tl = input_lengths.to(device), target_lengths.to(device)
    else:
        il, tl = input_lengths.tolist(), target_lengths.tolist()
    leaf = lp.detach().requires_grad_()

    def forward():
        return F.ctc_loss(lp, tg, il, tl)

    def forward_backward():
        loss = F.ctc_loss(leaf, tg, il, tl)
        torch.autograd.grad(loss, leaf)
    return forward, forward_backward


def run(quick: bool = False) -> list:
    rows = []
    kw = dict(min_time=0.05, repeat=3) if quick else {}
    for dtype, name in ((torch.float32, "float32"), (torch.float64, "float64")):
        for tensors in (False, True):
            if dtype == torch.float64 and tensors:
                continue
            lengths = "tensor lengths" if tensors else "list lengths"
            tpu_fwd, tpu_fb = _cases(dtype, "tpu", tensors)
            cpu_fwd, cpu_fb = _cases(dtype, "cpu", tensors)
            for what, tpu_fn, cpu_fn in (("forward", tpu_fwd, cpu_fwd), ("forward+backward", tpu_fb, cpu_fb)):
                t_tpu, t_cpu = compare(tpu_fn, cpu_fn, **kw)
                rows.append({"what": f"{what} {name}, {lengths}", "tpu ms": t_tpu * 1e3, "cpu ms": t_cpu * 1e3,
                             "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run(quick="--quick" in sys.argv)
    print_table(TITLE, rows)
    save("ctc_loss", rows)
