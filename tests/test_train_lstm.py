"""Acceptance of "Kernels wave 3" for recurrent models: the LSTM language
model example (embedding, 2-layer nn.LSTM, linear head, cross-entropy, Adam)
trains on tpu for 20 steps, every op on the device (nn.LSTM as one autograd
node per layer: lstm.input in ops.yaml), with the losses CPU eager gets."""

import copy
import os
import sys

import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_lstm  # noqa: E402


def test_lstm_trains_on_tpu_like_cpu_without_fallback():
    torch.manual_seed(0)
    reference = train_lstm.LSTMLanguageModel()
    model = copy.deepcopy(reference)
    cpu_losses = train_lstm.train(reference, "cpu", 20)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        tpu_losses = train_lstm.train(model, "tpu", 20)
    assert torch_tpu.telemetry.fallback_calls() == {}
    torch.testing.assert_close(torch.tensor(tpu_losses), torch.tensor(cpu_losses), rtol=1e-4, atol=1e-5)
    assert tpu_losses[-1] < tpu_losses[0] - 0.5  # it learns
    ops = torch_tpu.stats()["ops"]
    assert ops["aten::lstm.input"] == {"direct": 20}  # one call per training step
    assert "aten::_thnn_fused_lstm_cell" not in ops  # not upstream's per-step decomposition
    for (k, a), (_, e) in zip(model.state_dict().items(), reference.state_dict().items()):
        torch.testing.assert_close(a.cpu(), e, atol=1e-4, rtol=1e-4, msg=k)


def test_lstm_example_script_runs():
    assert train_lstm.main(["--steps", "3"]) == 0
