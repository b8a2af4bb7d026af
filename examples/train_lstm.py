"""A 2-layer LSTM language model trained on the simulated TPU, checked
against the same model trained on CPU eager.

    python examples/train_lstm.py [--steps 20] [--allow-fallback]

An embedding, a 2-layer nn.LSTM (batch_first, dropout 0 so both devices see
the same computation), a linear head over the vocabulary, cross-entropy and
Adam, on a fixed synthetic token stream (a noisy repeating pattern, so the
loss falls). On tpu, ATen's RNN code runs the fused cells
(_thnn_fused_lstm_cell and its backward) once per time step, as on CUDA;
on CPU it composes the cell from matmuls and pointwise ops. By default every
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


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab: int = 64, width: int = 48, hidden: int = 64, layers: int = 2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


def batches(steps: int, batch: int, seq: int, vocab: int = 64, seed: int = 0):
    """Fixed token sequences: a repeating pattern with 10% random tokens;
    targets are the next token."""
    g = torch.Generator().manual_seed(seed)
    pattern = torch.randint(0, vocab, (17,), generator=g)
    for _ in range(steps):
        start = torch.randint(0, 17, (batch, 1), generator=g)
        idx = (start + torch.arange(seq + 1)) % 17
        tokens = pattern[idx]
        noise = torch.rand(tokens.shape, generator=g) < 0.1
        tokens = torch.where(noise, torch.randint(0, vocab, tokens.shape, generator=g), tokens)
        yield tokens[:, :-1], tokens[:, 1:]


def train(model: nn.Module, device: str, steps: int, batch: int = 8, seq: int = 24) -> list[float]:
    model = model.to(device).train()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, foreach=True)
    losses = []
    for x, y in batches(steps, batch, seq):
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--allow-fallback", action="store_true")
    args = p.parse_args(argv)

    torch.manual_seed(0)
    reference = LSTMLanguageModel()
    model = copy.deepcopy(reference)
    cpu_losses = train(reference, "cpu", args.steps)
    if args.allow_fallback:
        torch_tpu.set_fallback_policy("allow")
    torch_tpu.reset_stats()
    tpu_losses = train(model, "tpu", args.steps)
    stats = torch_tpu.stats()

    for i, (c, t) in enumerate(zip(cpu_losses, tpu_losses)):
        print(f"step {i:2d}  cpu {c:.5f}  tpu {t:.5f}  diff {abs(c - t):.2e}")
    fallbacks = {op: r["fallback"] for op, r in stats["ops"].items() if "fallback" in r}
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
