"""Errors the device finds in the data (an index out of range), which it can
only find after the op returned. By default the next synchronisation raises
them, as CUDA's device-side asserts surface, but with PyTorch's own exception
type and message first, then the op that failed and the Python line that
launched it. With launch blocking (TORCH_TPU_LAUNCH_BLOCKING=1, or
torch.tpu.set_launch_blocking(True)) every launch waits for its kernel, so the
op itself raises PyTorch's exception with PyTorch's message, as CPU does."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@pytest.fixture
def blocking():
    saved = torch.tpu.get_launch_blocking()
    torch.tpu.set_launch_blocking(True)
    yield
    torch.tpu.set_launch_blocking(saved)


def _cpu_error(fn):
    with pytest.raises(Exception) as e:
        fn("cpu")
    return e.value


# (name, the call, the aten op whose kernel finds the bad data)
CASES = [
    ("fancy indexing", lambda d: torch.arange(3.0, device=d)[torch.tensor([0, 5], device=d)], "aten::index.Tensor"),
    ("index_put_", lambda d: torch.zeros(3, device=d).index_put_((torch.tensor([4], device=d),),
                                                                 torch.ones(1, device=d)), "aten::_index_put_impl_"),
    ("gather", lambda d: torch.zeros(2, 3, device=d).gather(1, torch.tensor([[0, 3]], device=d)), "aten::gather"),
    ("nll_loss", lambda d: F.nll_loss(torch.zeros(3, 4, device=d), torch.tensor([0, 1, 7], device=d)),
     "aten::nll_loss_forward"),
    ("multinomial", lambda d: torch.multinomial(torch.tensor([[0.5, -1.0]], device=d), 1), "aten::multinomial"),
]


@pytest.mark.parametrize("name, fn, op", CASES, ids=[c[0] for c in CASES])
def test_async_error_has_pytorch_type_message_op_and_launch_line(name, fn, op):
    expected = _cpu_error(fn)
    result = fn("tpu")  # launched: the kernel fails later, on the device
    line = sys._getframe().f_lineno - 1
    with pytest.raises(type(expected)) as got:
        (result * 2).sum().item()  # an unrelated op, then the synchronisation that reports it
    message = str(got.value)
    first = message.splitlines()[0]
    assert first == str(expected).splitlines()[0], message  # PyTorch's message first
    assert f"by {op}" in message, message  # the op that failed, not the later one
    assert f'"{__file__}", line {line}' in message, message  # where it was launched
    assert "TORCH_TPU_LAUNCH_BLOCKING=1" in message
    assert torch.ones(3, device="tpu").sum().item() == 3  # the device goes on


def test_one_hot_out_of_range_names_the_scatter_and_the_call():
    """one_hot leaves the range check to the device on tpu (ATen skips its
    host check for PrivateUse1, as for CUDA): the scatter it runs reports it."""
    labels = torch.tensor([0, 5], device="tpu")
    encoded = F.one_hot(labels, 3)
    line = sys._getframe().f_lineno - 1
    with pytest.raises(RuntimeError) as got:
        encoded.cpu()
    message = str(got.value)
    assert message.startswith("index 5 is out of bounds for dimension 1 with size 3"), message
    assert "aten::scatter_.value" in message and f"line {line}" in message, message


def test_error_from_before_surfaces_at_an_unrelated_sync_naming_its_origin():
    """bincount reads its input's range with a synchronisation: an earlier
    kernel's error surfaces there, and names the earlier op, not bincount."""
    bad = torch.arange(3.0, device="tpu")[torch.tensor([7], device="tpu")]
    line = sys._getframe().f_lineno - 1
    with pytest.raises(IndexError) as got:
        torch.bincount(torch.tensor([0, 1], device="tpu"))
    message = str(got.value)
    assert "aten::index.Tensor" in message and f"line {line}" in message, message
    del bad


def test_bincount_refuses_2d_weights_at_the_op():
    """CPU's check, made before anything is launched (it used to reach the kernel)."""
    for d in ("cpu", "tpu"):
        with pytest.raises(RuntimeError, match="weights should be 1-d and have the same length as input"):
            torch.bincount(torch.tensor([1, 0], device=d), torch.tensor([[1.0, 0.3], [1.0, 0.3]], device=d))


@pytest.mark.parametrize("name, fn, op", CASES, ids=[c[0] for c in CASES])
def test_launch_blocking_raises_at_the_op_like_cpu(blocking, name, fn, op):
    expected = _cpu_error(fn)
    with pytest.raises(type(expected)) as got:
        fn("tpu")  # the op itself raises
    assert str(got.value) == str(expected).splitlines()[0]  # exactly PyTorch's message
    torch.tpu.synchronize()  # nothing left over


def test_launch_blocking_switch():
    saved = torch.tpu.get_launch_blocking()
    try:
        torch.tpu.set_launch_blocking(True)
        assert torch.tpu.get_launch_blocking() is True
        torch.tpu.set_launch_blocking(False)
        assert torch.tpu.get_launch_blocking() is False
    finally:
        torch.tpu.set_launch_blocking(saved)


def test_launch_blocking_from_the_environment():
    code = textwrap.dedent("""
        import torch
        assert torch.tpu.get_launch_blocking()
        x = torch.arange(3.0, device="tpu")
        try:
            x[torch.tensor([0, 5], device="tpu")]
        except IndexError as e:
            print("raised at the op:", e)
    """)
    env = dict(os.environ, TORCH_TPU_LAUNCH_BLOCKING="1", PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "raised at the op: index 5 is out of bounds for dimension 0 with size 3" in proc.stdout, proc.stdout


def test_launch_stacks_can_be_turned_off():
    """TORCH_TPU_LAUNCH_STACKS=0 (or _set_launch_stacks) keeps the op, drops the stack."""
    saved = torch_tpu._C._launch_stacks()
    torch_tpu._C._set_launch_stacks(False)
    try:
        y = torch.arange(3.0, device="tpu")[torch.tensor([9], device="tpu")]
        with pytest.raises(IndexError) as got:
            y.cpu()
    finally:
        torch_tpu._C._set_launch_stacks(saved)
    message = str(got.value)
    assert "by aten::index.Tensor" in message and "launched at" not in message, message
