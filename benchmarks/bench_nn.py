"""nn kernels against CPU eager in the same process: softmax, log_softmax,
their backwards, layer_norm forward/backward and dropout on the GPT-sized
4096 x 1024 float32 (plus bfloat16 for softmax/layer_norm).
ratio = tpu time / CPU time (lower is better; the goal is <= 1.1)."""

from __future__ import annotations

import torch

import torch_tpu  # noqa: F401
from common import add_case, print_table, save


def run() -> list:
    rows = []
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16):
        name = str(dtype).replace("torch.", "")
        x = torch.randn(4096, 1024, dtype=dtype)
        xt = x.to("tpu")
        add_case(rows, f"softmax 4096x1024 {name}", lambda: torch.softmax(xt, -1), lambda: torch.softmax(x, -1))
        add_case(rows, f"log_softmax 4096x1024 {name}", lambda: torch.log_softmax(xt, -1),
              lambda: torch.log_softmax(x, -1))
        y, g = torch.softmax(x, -1), torch.randn(4096, 1024, dtype=dtype)
        yt, gt = y.to("tpu"), g.to("tpu")
        add_case(rows, f"softmax backward 4096x1024 {name}",
              lambda: torch._softmax_backward_data(gt, yt, -1, dtype),
              lambda: torch._softmax_backward_data(g, y, -1, dtype))
        w, b = torch.randn(1024, dtype=dtype), torch.randn(1024, dtype=dtype)
        wt, bt = w.to("tpu"), b.to("tpu")
        add_case(rows, f"layer_norm 4096x1024 {name}",
              lambda: torch.native_layer_norm(xt, (1024,), wt, bt, 1e-5),
              lambda: torch.native_layer_norm(x, (1024,), w, b, 1e-5))
        _, mean, rstd = torch.native_layer_norm(x, (1024,), w, b, 1e-5)
        mt, rt = mean.to("tpu"), rstd.to("tpu")
        mask = [True, True, True]
        add_case(rows, f"layer_norm backward 4096x1024 {name}",
              lambda: torch.ops.aten.native_layer_norm_backward(gt, xt, (1024,), mt, rt, wt, bt, mask),
              lambda: torch.ops.aten.native_layer_norm_backward(g, x, (1024,), mean, rstd, w, b, mask))
    x = torch.randn(4096, 1024)
    xt = x.to("tpu")
    add_case(rows, "softmax dim=0 4096x1024 float32", lambda: torch.softmax(xt, 0), lambda: torch.softmax(x, 0))
    add_case(rows, "native_dropout p=0.1 4096x1024 float32", lambda: torch.native_dropout(xt, 0.1, True),
          lambda: torch.native_dropout(x, 0.1, True))
    add_case(rows, "randn 4096x1024 float32", lambda: torch.randn(4096, 1024, device="tpu"),
          lambda: torch.randn(4096, 1024))
    logits = torch.log_softmax(torch.randn(8192, 512), -1)
    tgt = torch.randint(0, 512, (8192,))
    lt, tt = logits.to("tpu"), tgt.to("tpu")
    add_case(rows, "nll_loss mean 8192x512 float32", lambda: torch.nn.functional.nll_loss(lt, tt),
          lambda: torch.nn.functional.nll_loss(logits, tgt))
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("nn kernels (ratio = tpu / cpu)", rows)
    save("nn", rows)
