"""The custom operators (torch.ops.tpu.*) against what CPU eager runs for the
same computation: torch's own rms_norm, the rotary embedding written with
aten ops (torch_tpu/reference.py, as a model without the fused op would),
gelu(x + b); forward and backward, float32 and bfloat16, on a GPT-sized
4096 x 1024 (rotary: 8 x 16 x 256 x 64, tables 256 x 64). Also the cost of
torch.autocast("tpu") on a bfloat16 linear layer. ratio = tpu / cpu."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import torch_tpu  # noqa: F401
import torch_tpu.reference as reference
from common import add_case, backward_closure, print_table, save


def run() -> list:
    rows = []
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16):
        name = str(dtype).replace("torch.", "")
        x, w, b = (torch.randn(4096, 1024, dtype=dtype), torch.randn(1024, dtype=dtype),
                   torch.randn(1024, dtype=dtype))
        xt, wt, bt = x.to("tpu"), w.to("tpu"), b.to("tpu")
        add_case(rows, f"rms_norm 4096x1024 {name}", lambda: torch.ops.tpu.rms_norm(xt, wt, 1e-6),
              lambda: F.rms_norm(x, (1024,), w, 1e-6))
        add_case(rows, f"rms_norm fwd+bwd 4096x1024 {name}",
              backward_closure(lambda a, c: torch.ops.tpu.rms_norm(a, c, 1e-6), xt, wt),
              backward_closure(lambda a, c: F.rms_norm(a, (1024,), c, 1e-6), x, w))
        add_case(rows, f"bias_gelu 4096x1024 {name}", lambda: torch.ops.tpu.bias_gelu(xt, bt),
              lambda: F.gelu(x + b))
        add_case(rows, f"bias_gelu fwd+bwd 4096x1024 {name}",
              backward_closure(lambda a, c: torch.ops.tpu.bias_gelu(a, c), xt, bt),
              backward_closure(lambda a, c: F.gelu(a + c), x, b))
        q = torch.randn(8, 16, 256, 64, dtype=dtype)
        angles = torch.randn(256, 32)
        cos, sin = torch.cat([angles.cos()] * 2, -1).to(dtype), torch.cat([angles.sin()] * 2, -1).to(dtype)
        qt, ct, st = q.to("tpu"), cos.to("tpu"), sin.to("tpu")
        add_case(rows, f"rotary_embedding 8x16x256x64 {name}",
              lambda: torch.ops.tpu.rotary_embedding(qt, ct, st),
              lambda: q * cos + reference.rotate_half(q) * sin)
    x = torch.randn(4096, 1024)
    lin = torch.nn.Linear(1024, 1024)
    xt, lint = x.to("tpu"), torch.nn.Linear(1024, 1024).to("tpu")

    def tpu_amp():
        with torch.autocast("tpu", dtype=torch.bfloat16):
            return lint(xt)

    def cpu_amp():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return lin(x)
    add_case(rows, "linear 4096x1024x1024 under autocast bfloat16", tpu_amp, cpu_amp)
    return rows


if __name__ == "__main__":
    rows = run()
    print_table(__doc__.splitlines()[0], rows)
    save("custom_ops", rows)
