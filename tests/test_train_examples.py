"""Acceptance of the training examples (GPT, ResNet, MobileNetV3, LSTM
language model): each trains on tpu as on CPU eager, every op on the
device, under examples/compare_training.py's error model, which holds on
any CPU (float64 steps pointwise; float32 losses, gradients and statistics
against float64 within a multiple of CPU float32's own error; the free
float32 run learns). And the error model can fail: a wrong gradient, a
wrong float64 step and a wrong loss are each caught."""

import os
import sys
import types

import pytest
import torch

import torch_tpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import compare_training  # noqa: E402
import train_gpt  # noqa: E402
import train_lstm  # noqa: E402
import train_mobilenet  # noqa: E402
import train_resnet  # noqa: E402

# The ops each example exists to cover, and the route they must take.
COVERED = {
    train_gpt: {"aten::mm": "direct"},
    train_resnet: {op: "direct" for op in (
        "aten::convolution", "aten::convolution_backward", "aten::native_batch_norm",
        "aten::native_batch_norm_backward", "aten::max_pool2d_with_indices",
        "aten::max_pool2d_with_indices_backward")},
    train_mobilenet: {op: "stub" for op in (
        "aten::hardswish", "aten::hardswish_backward", "aten::hardsigmoid", "aten::hardsigmoid_backward")},
    train_lstm: {"aten::lstm.input": "direct"},
}


@pytest.mark.parametrize("example", list(COVERED), ids=lambda m: m.__name__)
def test_example_trains_on_tpu_like_cpu_without_fallback(example):
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        report = compare_training.compare(example, 20)
    assert report.ok, report.text()
    assert torch_tpu.telemetry.fallback_calls() == {}
    ops = torch_tpu.stats()["ops"]
    for op, route in COVERED[example].items():
        assert ops.get(op, {}).get(route, 0) > 0, (op, ops.get(op))


@pytest.mark.smoke
def test_one_training_step_on_tpu_is_cpus():
    with torch_tpu.no_fallback():
        report = compare_training.compare(train_gpt, 1)
    assert report.ok, report.text()


def test_lstm_is_one_device_op_per_step():
    # nn.LSTM is one autograd node per layer (lstm.input in ops.yaml), not
    # upstream's per-time-step decomposition.
    torch.manual_seed(0)
    torch_tpu.reset_stats()
    train_lstm.train(train_lstm.model(), "tpu", 2)
    ops = torch_tpu.stats()["ops"]
    assert ops["aten::lstm.input"] == {"direct": 2}
    assert "aten::_thnn_fused_lstm_cell" not in ops


@pytest.mark.parametrize("example", list(COVERED), ids=lambda m: m.__name__)
def test_example_script_runs(example):
    assert example.main(["--steps", "3"]) == 0


def _wrong(where, dtype=torch.float32):
    """train_resnet with one fault on tpu in `dtype`: 'grad' scales one
    gradient by 1.05 before the optimizer step, 'loss' reports the loss
    1e-5 too high."""
    def train_step(model, opt, x, y):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        faulty = x.device.type == "tpu" and x.dtype == dtype
        if faulty and where == "grad":
            model.layer1.conv2.weight.grad.mul_(1.05)
        opt.step()
        return loss.item() * (1 + 1e-5 if faulty and where == "loss" else 1)

    return types.SimpleNamespace(model=train_resnet.model, optimizer=train_resnet.optimizer,
                                 batches=train_resnet.batches, train_step=train_step)


@pytest.mark.parametrize("where,dtype,problem", [
    ("grad", torch.float32, "float32 layer1.conv2.weight.grad error"),
    ("grad", torch.float64, "float64 layer1.conv2.weight differs"),
    ("loss", torch.float32, "float32 loss error"),
])
def test_the_error_model_catches_a_wrong_step(where, dtype, problem):
    report = compare_training.compare(_wrong(where, dtype), 2)
    assert not report.ok
    assert any(problem in p for p in report.problems), report.text()
