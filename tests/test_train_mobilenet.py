"""Acceptance of "Kernels wave 3" for mobile CNNs: the MobileNetV3-style
example (depthwise convolutions, hardswish, squeeze-excitation with adaptive
pooling and hardsigmoid, batch norm, SGD with momentum) trains on tpu for 20
steps, every op on the device, each step's loss and updated state CPU
eager's from the same starting state."""

import copy
import os
import sys

import pytest
import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_mobilenet  # noqa: E402


def test_mobilenet_trains_on_tpu_like_cpu_without_fallback():
    # Each of 20 steps starts tpu from CPU's state (parameters, statistics,
    # momentum) and compares the loss and the updated state: two free runs
    # part whenever a ReLU input lies within float32 rounding of 0 (on an
    # AVX2-only AMD EPYC, step 3 of this example: -1.5e-6 on CPU, +1.8e-7 on
    # tpu), and that one flipped gradient grows to 5e-3 in the loss by step
    # 20, which says nothing about the ops. The free run must learn.
    torch.manual_seed(0)
    cpu = train_mobilenet.MobileNetV3Small().train()
    free = copy.deepcopy(cpu)
    opt_cpu = train_mobilenet.optimizer(cpu)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        for x, y in train_mobilenet.batches(20, 16):
            tpu = copy.deepcopy(cpu).to("tpu")
            opt_tpu = train_mobilenet.optimizer(tpu)
            opt_tpu.load_state_dict(opt_cpu.state_dict())
            loss_tpu = train_mobilenet.train_step(tpu, opt_tpu, x.to("tpu"), y.to("tpu"))
            loss_cpu = train_mobilenet.train_step(cpu, opt_cpu, x, y)
            # Convolutions and batch statistics sum in another order than oneDNN's.
            assert loss_tpu == pytest.approx(loss_cpu, rel=1e-5)
            for (k, a), (_, e) in zip(tpu.state_dict().items(), cpu.state_dict().items()):
                torch.testing.assert_close(a.cpu(), e, atol=1e-5, rtol=1e-4, msg=k)
        losses = train_mobilenet.train(free, "tpu", 20)
    assert torch_tpu.telemetry.fallback_calls() == {}
    assert min(losses[-5:]) < losses[0] - 0.5  # it learns
    ops = torch_tpu.stats()["ops"]
    for op in ("aten::hardswish", "aten::hardswish_backward", "aten::hardsigmoid",
               "aten::hardsigmoid_backward"):
        assert ops[op].get("stub", 0) > 0, op


def test_mobilenet_example_script_runs():
    assert train_mobilenet.main(["--steps", "3"]) == 0
