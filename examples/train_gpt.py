"""A small GPT-style language model trained on the simulated TPU, checked
against the same model trained on CPU eager.

    python examples/train_gpt.py [--steps 20] [--allow-fallback]

Token + position embedding, pre-norm transformer blocks with multi-head
attention through scaled_dot_product_attention, a GELU MLP, LayerNorm,
cross-entropy, AdamW (foreach=True) and gradient clipping. By default every
operator must run on the device: a host fallback raises. With
--allow-fallback the run lists the operators that fell back instead.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_tpu


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        self.dropout = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab: int = 96, context: int = 32, dim: int = 64, heads: int = 4,
                 layers: int = 2, dropout: float = 0.0):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, dropout) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def batches(steps: int, batch: int, context: int, vocab: int, seed: int = 0):
    """A fixed synthetic corpus (a noisy repeating pattern the model can learn)."""
    g = torch.Generator().manual_seed(seed)
    base = torch.arange(vocab).repeat(4)
    for _ in range(steps):
        starts = torch.randint(0, base.numel() - context - 1, (batch,), generator=g)
        seq = torch.stack([base[s:s + context + 1] for s in starts])
        noise = torch.randint(0, vocab, seq.shape, generator=g)
        seq = torch.where(torch.rand(seq.shape, generator=g) < 0.1, noise, seq)
        yield seq[:, :-1].contiguous(), seq[:, 1:].contiguous()


def train(model: nn.Module, device: str, steps: int, batch: int = 8,
          amp_dtype: torch.dtype | None = None) -> list[float]:
    """amp_dtype: run the forward under torch.autocast(device, amp_dtype)
    (mixed precision; the weights and the optimizer stay in float32)."""
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1, foreach=True)
    losses = []
    for x, y in batches(steps, batch, 32, 96):
        x, y = x.to(device), y.to(device)
        amp = torch.autocast(device, dtype=amp_dtype or torch.bfloat16,
                             enabled=amp_dtype is not None)
        with amp:
            loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
        losses.append(loss.item())
    return losses


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--allow-fallback", action="store_true")
    args = p.parse_args(argv)

    torch.manual_seed(0)
    reference = GPT()
    model = copy.deepcopy(reference)

    cpu_losses = train(reference, "cpu", args.steps)
    if args.allow_fallback:
        torch_tpu.set_fallback_policy("allow")
    torch_tpu.reset_stats()
    with torch_tpu.trace_ops():
        tpu_losses = train(model, "tpu", args.steps)
    stats = torch_tpu.stats()

    for i, (c, t) in enumerate(zip(cpu_losses, tpu_losses)):
        print(f"step {i:2d}  cpu {c:.5f}  tpu {t:.5f}  diff {abs(c - t):.2e}")
    fallbacks = {op: r["fallback"] for op, r in stats["ops"].items() if "fallback" in r}
    routes = {}
    for op, r in stats["ops"].items():
        for route, n in r.items():
            routes[route] = routes.get(route, 0) + n
    print("op calls by route:", routes)
    if fallbacks:
        print("host fallbacks:")
        for op, n in sorted(fallbacks.items()):
            print(f"  {op}: {n}")
        return 1
    worst = max(abs(c - t) / max(abs(c), 1e-6) for c, t in zip(cpu_losses, tpu_losses))
    print(f"zero host fallbacks; worst relative loss difference {worst:.2e}")
    if not math.isfinite(worst) or worst > 1e-3:
        print("losses diverge from CPU", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
