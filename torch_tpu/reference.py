"""Reference implementations of the custom operators (torch.ops.tpu.*) with
aten ops only: what the tpu kernels must compute, on any device. The
generated tests compare the kernels with these (on CPU), and they document
the exact semantics:

    y = torch.ops.tpu.rms_norm(x, w, 1e-6)
    torch.testing.assert_close(y.cpu(), torch_tpu.reference.rms_norm(x.cpu(), w.cpu(), 1e-6))
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch
import torch.nn.functional as F


def rms_norm(input: torch.Tensor, weight: Optional[torch.Tensor] = None,
             eps: float = 1e-6) -> torch.Tensor:
    """x * rsqrt(mean(x^2) + eps) * weight over the last dimension, computed
    in float32 for float16/bfloat16 inputs (as the kernel does), in the
    input's dtype otherwise."""
    compute = torch.float64 if input.dtype == torch.float64 else torch.float32
    x = input.to(compute)
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    if weight is not None:
        y = y * weight.to(compute)
    return y.to(input.dtype)


def rms_norm_backward(grad: torch.Tensor, input: torch.Tensor, weight: Optional[torch.Tensor],
                      eps: float, output_mask) -> Tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
    """The gradients of rms_norm by autograd of the reference."""
    x = input.detach().requires_grad_(bool(output_mask[0]))
    w = None if weight is None else weight.detach().requires_grad_(bool(output_mask[1]))
    wanted = [t for t in (x, w) if t is not None and t.requires_grad]
    if not wanted:
        return None, None
    grads = torch.autograd.grad(rms_norm(x, w, eps), wanted, grad)
    it = iter(grads)
    dx = next(it) if x.requires_grad else None
    dw = next(it) if w is not None and w.requires_grad else None
    return dx, dw


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rotary_embedding(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x * cos + rotate_half(x) * sin ("rotate half" RoPE, GPT-NeoX / Llama),
    cos and sin broadcast to x; float16/bfloat16 computed in float32."""
    compute = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc, c, s = x.to(compute), cos.to(compute), sin.to(compute)
    return (xc * c + rotate_half(xc) * s).to(x.dtype)


def bias_gelu(x: torch.Tensor, bias: torch.Tensor, *, approximate: str = "none") -> torch.Tensor:
    """gelu(x + bias), the sum not rounded to float16/bfloat16 first."""
    compute = torch.float64 if x.dtype == torch.float64 else torch.float32
    return F.gelu(x.to(compute) + bias.to(compute), approximate=approximate).to(x.dtype)
