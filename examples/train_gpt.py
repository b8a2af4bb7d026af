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

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_tpu  # noqa: F401  (the "tpu" device)

import compare_training


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


def model() -> GPT:
    return GPT()


def batches(steps: int, batch: int = 8, context: int = 32, vocab: int = 96, seed: int = 0):
    """A fixed synthetic corpus (a noisy repeating pattern the model can learn)."""
    g = torch.Generator().manual_seed(seed)
    base = torch.arange(vocab).repeat(4)
    for _ in range(steps):
        starts = torch.randint(0, base.numel() - context - 1, (batch,), generator=g)
        seq = torch.stack([base[s:s + context + 1] for s in starts])
        noise = torch.randint(0, vocab, seq.shape, generator=g)
        seq = torch.where(torch.rand(seq.shape, generator=g) < 0.1, noise, seq)
        yield seq[:, :-1].contiguous(), seq[:, 1:].contiguous()


def optimizer(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1, foreach=True)


def train_step(model: nn.Module, opt: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
               amp_dtype: torch.dtype | None = None) -> float:
    """amp_dtype: run the forward under torch.autocast(device, amp_dtype)
    (mixed precision; the weights and the optimizer stay in float32)."""
    with torch.autocast(x.device.type, dtype=amp_dtype or torch.bfloat16, enabled=amp_dtype is not None):
        loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
    opt.step()
    return loss.item()


def train(model: nn.Module, device: str, steps: int, batch: int = 8,
          amp_dtype: torch.dtype | None = None) -> list[float]:
    model = model.to(device)
    opt = optimizer(model)
    return [train_step(model, opt, x.to(device), y.to(device), amp_dtype) for x, y in batches(steps, batch)]


def main(argv=None) -> int:
    return compare_training.main(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
