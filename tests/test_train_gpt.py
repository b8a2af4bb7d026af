"""Acceptance of the kernel library's first wave: the GPT example trains on
tpu for 20 steps, every op on the device (no host fallback), with the losses
CPU eager gets for the same model, data and optimizer."""

import copy
import os
import sys

import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_gpt  # noqa: E402


def test_gpt_trains_on_tpu_like_cpu_without_fallback():
    torch.manual_seed(0)
    reference = train_gpt.GPT()
    model = copy.deepcopy(reference)
    cpu_losses = train_gpt.train(reference, "cpu", 20)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        tpu_losses = train_gpt.train(model, "tpu", 20)
    assert torch_tpu.telemetry.fallback_calls() == {}
    # Float32 reductions and matmuls sum in a different order than CPU's:
    # small differences, amplified a little by 20 AdamW steps.
    torch.testing.assert_close(torch.tensor(tpu_losses), torch.tensor(cpu_losses), rtol=1e-3, atol=1e-4)
    assert tpu_losses[-1] < tpu_losses[0] - 0.5  # it learns
    ops = torch_tpu.stats()["ops"]
    assert ops["aten::mm"].get("direct", 0) > 0  # the backward's matmuls ran on the device


def test_gpt_example_script_runs():
    assert train_gpt.main(["--steps", "3"]) == 0
