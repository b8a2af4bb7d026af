"""scaled_dot_product_attention on tpu (the fused kernel,
kernels/nn/attention.h) against CPU eager (its flash attention) in the same
process: forward, and forward + backward, of 4 x 8 heads x 256 tokens x 64
(float32 and bfloat16, causal and not) and of the GPT example's 8 x 4 heads
x 32 tokens x 16. ratio = tpu time / CPU time."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401
from common import compare, print_table, save


def _forward_backward(q, k, v, causal):
    F.scaled_dot_product_attention(q, k, v, is_causal=causal).sum().backward()


def run() -> list:
    rows = []
    g = torch.Generator().manual_seed(0)
    for b, h, s, d, dtype in ((4, 8, 256, 64, torch.float32), (4, 8, 256, 64, torch.bfloat16),
                              (8, 4, 32, 16, torch.float32)):
        q, k, v = (torch.randn(b, h, s, d, generator=g).to(dtype) for _ in range(3))
        qt, kt, vt = (t.to("tpu") for t in (q, k, v))
        for causal in (False, True):
            name = f"{b}x{h}x{s}x{d} {str(dtype).replace('torch.', '')}{' causal' if causal else ''}"
            t_tpu, t_cpu = compare(lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal),
                                   lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
            rows.append({"case": f"forward {name}", "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                         "ratio": t_tpu / t_cpu})
            cpu_args = [t.clone().requires_grad_() for t in (q, k, v)]
            tpu_args = [t.clone().requires_grad_() for t in (qt, kt, vt)]
            t_tpu, t_cpu = compare(lambda: _forward_backward(*tpu_args, causal),
                                   lambda: _forward_backward(*cpu_args, causal))
            rows.append({"case": f"forward + backward {name}", "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                         "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("scaled_dot_product_attention (ratio = tpu time / CPU time)", rows)
    save("attention", rows)
