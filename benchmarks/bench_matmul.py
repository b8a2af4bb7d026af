"""Matrix products: tpu against CPU eager (MKL / oneDNN) in the same process.
ratio = tpu time / CPU time (below 1: tpu faster). Cases: mm 1024^3 in float32
and bfloat16 (row-major and B transposed), bmm as in a small attention
(scores and weighted values), addmm as in nn.Linear (x @ W^T + bias) and its
weight gradient, the GPT example's small products, mv, addbmm, complex
mm/bmm. The machine's cores are shared: numbers are indicative."""

from __future__ import annotations

import torch

from common import compare, print_table, save


def cases():
    g = torch.Generator().manual_seed(0)

    def r(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g).to(dtype)

    out = []
    for dt in (torch.float32, torch.bfloat16):
        name = str(dt).replace("torch.", "")
        a, b = r(1024, 1024, dtype=dt), r(1024, 1024, dtype=dt)
        out.append((f"mm 1024^3 {name}", 2 * 1024 ** 3, torch.mm, (a, b)))
        out.append((f"mm 1024^3 {name} (A @ B^T)", 2 * 1024 ** 3, torch.mm, (a, b.t())))
    # attention, batch 4 x 8 heads, 256 tokens, head dim 64
    for dt in (torch.float32, torch.bfloat16):
        name = str(dt).replace("torch.", "")
        q, k, v = r(32, 256, 64, dtype=dt), r(32, 256, 64, dtype=dt), r(32, 256, 64, dtype=dt)
        p = r(32, 256, 256, dtype=dt)
        out.append((f"bmm q @ k^T 32x256x64x256 {name}", 2 * 32 * 256 * 256 * 64, torch.bmm, (q, k.transpose(1, 2))))
        out.append((f"bmm p @ v 32x256x256x64 {name}", 2 * 32 * 256 * 256 * 64, torch.bmm, (p, v)))
    # nn.Linear(768, 3072) on 512 tokens: forward and weight gradient
    for dt in (torch.float32, torch.bfloat16):
        name = str(dt).replace("torch.", "")
        x, w, bias, gy = r(512, 768, dtype=dt), r(3072, 768, dtype=dt), r(3072, dtype=dt), r(512, 3072, dtype=dt)
        out.append((f"addmm linear 512x768->3072 {name}", 2 * 512 * 768 * 3072, torch.addmm, (bias, x, w.t())))
        out.append((f"mm linear grad_W 3072x512x768 {name}", 2 * 512 * 768 * 3072, torch.mm, (gy.t(), x)))
    # A recurrent step (nn.LSTM's hidden GEMM, batch 32): few rows, W transposed
    x, w = r(32, 512), r(2048, 512)
    out.append(("mm small-batch linear 32x512->2048 float32 (x @ W^T)", 2 * 32 * 512 * 2048, torch.mm, (x, w.t())))
    m, v = r(4096, 4096), r(4096)
    out.append(("mv 4096x4096 float32", 2 * 4096 * 4096, torch.mv, (m, v)))
    # The GPT example's products (batch 8 x 32 tokens, width 64, 4 heads of
    # 16): narrow outputs and tiny batched matrices, where tile padding and
    # per-task costs show.
    q, k = r(32, 32, 16), r(32, 32, 16)
    out.append(("bmm small attention q @ k^T 32x32x16x32 float32", 2 * 32 * 32 * 32 * 16, torch.bmm,
                (q, k.transpose(1, 2))))
    out.append(("bmm small attention p @ v 32x32x32x16 float32", 2 * 32 * 32 * 32 * 16, torch.bmm,
                (r(32, 32, 32), k)))
    out.append(("mm small linear grad_W 64x256x64 float32", 2 * 64 * 256 * 64, torch.mm,
                (r(256, 64).t(), r(256, 64))))
    # addbmm: 64 batches of 128x64 @ 64x128 summed (one GEMM on tpu, 64 addmm_ on CPU)
    s, b1, b2 = r(128, 128), r(64, 128, 64), r(64, 64, 128)
    out.append(("addbmm 64x(128x64 @ 64x128) float32", 2 * 64 * 128 * 64 * 128, torch.addbmm, (s, b1, b2)))
    # complex (the device BLAS's cgemm/zgemm): a square product and a batch
    for dt in (torch.complex64, torch.complex128):
        name = str(dt).replace("torch.", "")
        a, b = r(512, 512).to(dt) + 1j * r(512, 512).to(dt), r(512, 512).to(dt)
        out.append((f"mm 512^3 {name}", 8 * 512 ** 3, torch.mm, (a, b)))
        q, k = r(32, 128, 64).to(dt), r(32, 64, 128).to(dt)
        out.append((f"bmm 32x128x64x128 {name}", 8 * 32 * 128 * 64 * 128, torch.bmm, (q, k)))
    return out


def run() -> list:
    rows = []
    for name, flops, fn, args in cases():
        targs = [a.to("tpu") for a in args]
        t_tpu, t_cpu = compare(lambda: fn(*targs), lambda: fn(*args))
        rows.append({"case": name, "cpu ms": t_cpu * 1e3, "tpu ms": t_tpu * 1e3,
                     "tpu GFLOP/s": flops / t_tpu / 1e9, "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("Matrix products (ratio = tpu time / CPU time)", rows)
    save("matmul", rows)
