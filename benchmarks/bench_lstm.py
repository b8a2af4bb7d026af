"""LSTM and GRU training steps on tpu against CPU eager in the same process:
nn.LSTM / nn.GRU with 2 layers, hidden 512, input 512, sequence 64, batch 32
(the issue's yardstick), forward + backward of the summed output, float32.
CPU runs its fused MKL-DNN path where it has one; tpu runs the fused cells
(_thnn_fused_lstm_cell / _thnn_fused_gru_cell) once per step.
ratio = tpu time / CPU time (lower is better; the goal is <= 1.5)."""

from __future__ import annotations

import copy

import torch
import torch.nn as nn

import torch_tpu  # noqa: F401
from common import add_case, print_table, save

TITLE = "Recurrent training steps (ratio = tpu / cpu)"


def _step(module, x):
    def run():
        module.zero_grad(set_to_none=True)
        out, _ = module(x)
        out.sum().backward()
    return run


def run() -> list:
    rows = []
    torch.manual_seed(0)
    for name, cls in (("LSTM", nn.LSTM), ("GRU", nn.GRU)):
        cpu = cls(512, 512, num_layers=2, batch_first=True)
        tpu = copy.deepcopy(cpu).to("tpu")
        x = torch.randn(32, 64, 512)
        add_case(rows, f"{name} 2x512, seq 64, batch 32: forward + backward", _step(tpu, x.to("tpu")), _step(cpu, x))
        with torch.no_grad():
            add_case(rows, f"{name} 2x512, seq 64, batch 32: forward (no grad)",
                     lambda: tpu(x.to("tpu")), lambda: cpu(x))
    return rows


if __name__ == "__main__":
    rows = run()
    print_table(TITLE, rows)
    save("lstm", rows)
