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

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_tpu  # noqa: F401  (the "tpu" device)

import compare_training


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab: int = 64, width: int = 48, hidden: int = 64, layers: int = 2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


def model() -> LSTMLanguageModel:
    return LSTMLanguageModel()


def batches(steps: int, batch: int = 8, seq: int = 24, vocab: int = 64, seed: int = 0):
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


def optimizer(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.Adam(model.parameters(), lr=3e-3, foreach=True)


def train_step(model: nn.Module, opt: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> float:
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss.item()


def train(model: nn.Module, device: str, steps: int, batch: int = 8, seq: int = 24) -> list[float]:
    model = model.to(device).train()
    opt = optimizer(model)
    return [train_step(model, opt, x.to(device), y.to(device)) for x, y in batches(steps, batch, seq)]


def main(argv=None) -> int:
    return compare_training.main(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
