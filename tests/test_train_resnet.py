"""Acceptance of the kernel library's second wave: the ResNet example
(convolution, batch norm, ReLU, max pooling, adaptive average pooling,
linear) trains on tpu for 20 steps, every op on the device, with the losses
CPU eager gets for the same network, data and optimizer."""

import copy
import os
import sys

import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_resnet  # noqa: E402


def test_resnet_trains_on_tpu_like_cpu_without_fallback():
    torch.manual_seed(0)
    reference = train_resnet.ResNet()
    model = copy.deepcopy(reference)
    cpu_losses = train_resnet.train(reference, "cpu", 20)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        tpu_losses = train_resnet.train(model, "tpu", 20)
    assert torch_tpu.telemetry.fallback_calls() == {}
    # Convolutions and batch statistics sum in another order than oneDNN's:
    # small differences, carried through 20 momentum steps.
    torch.testing.assert_close(torch.tensor(tpu_losses), torch.tensor(cpu_losses), rtol=1e-3, atol=1e-4)
    assert tpu_losses[-1] < tpu_losses[0] - 0.5  # it learns
    ops = torch_tpu.stats()["ops"]
    for op in ("aten::convolution", "aten::convolution_backward", "aten::native_batch_norm",
               "aten::native_batch_norm_backward", "aten::max_pool2d_with_indices",
               "aten::max_pool2d_with_indices_backward"):
        assert ops[op].get("direct", 0) > 0, op
    for (k, a), (_, e) in zip(model.state_dict().items(), reference.state_dict().items()):
        torch.testing.assert_close(a.cpu(), e, atol=2e-3, rtol=2e-3, msg=k)


def test_resnet_example_script_runs():
    assert train_resnet.main(["--steps", "3"]) == 0
