"""Device memory is not host memory: in strict mode a stray host access faults
with a clear message, while the device's own work reads and writes it."""

import os
import signal
import subprocess
import sys

import torch

import torch_tpu


def test_suite_runs_in_strict_mode():
    assert torch_tpu._C._strict_mode()


def test_host_read_of_device_memory_faults_with_a_clear_message():
    code = """
import ctypes, torch, torch_tpu
t = torch.arange(16.0).to("tpu")
torch.tpu.synchronize()
ctypes.string_at(t.data_ptr(), 16)      # a host read of a device pointer
print("not reached")
"""
    env = dict(os.environ, TORCH_TPU_STRICT="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == -signal.SIGSEGV, (proc.returncode, proc.stderr)
    assert "not reached" not in proc.stdout
    assert "torch_tpu strict mode" in proc.stderr and "tpu:0" in proc.stderr


def test_without_strict_mode_the_same_read_is_not_caught():
    code = """
import ctypes, torch, torch_tpu
t = torch.arange(4.0).to("tpu")
torch.tpu.synchronize()
print(len(ctypes.string_at(t.data_ptr(), 16)))
"""
    env = dict(os.environ, TORCH_TPU_STRICT="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "16", proc.stderr


def test_device_work_is_allowed_in_strict_mode():
    x = torch.randn(257, 33)
    t = x.to("tpu")
    u = t.t().clone().to(torch.float64)
    u.fill_(1.5)
    u.zero_()
    assert torch.equal(t.cpu(), x) and torch.equal(u.cpu(), torch.zeros(33, 257,
                                                                          dtype=torch.float64))
