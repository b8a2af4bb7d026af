"""torch.tpu mirrors torch.cuda; the backend integrates with torch's generic APIs."""

import os
import subprocess
import sys

import torch

import torch_tpu

CUDA_SHAPED_API = [
    "is_available", "device_count", "current_device", "set_device", "device", "synchronize",
    "Stream", "Event", "current_stream", "stream", "manual_seed", "manual_seed_all", "seed",
    "initial_seed", "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "memory_stats",
    "memory_summary", "memory_snapshot", "empty_cache", "reset_peak_memory_stats",
    "get_device_properties", "get_amp_supported_dtype",
]


def test_api_surface():
    missing = [name for name in CUDA_SHAPED_API if not callable(getattr(torch.tpu, name, None))]
    assert not missing, missing
    assert torch.tpu is torch_tpu.tpu


def test_device_basics():
    assert torch.tpu.is_available()
    assert torch.tpu.device_count() == 2
    assert torch.accelerator.is_available() and torch.accelerator.device_count() == 2
    assert torch.accelerator.current_accelerator() == torch.device("tpu")
    props = torch.tpu.get_device_properties(1)
    assert props.index == 1 and props.total_memory == 16 << 30 and props.core_count >= 1
    assert "tpu" in torch.tpu.get_device_name().lower()
    assert torch.tpu.get_amp_supported_dtype() == [torch.float16, torch.bfloat16]


def test_generated_methods():
    x = torch.arange(4.0)
    t = x.tpu()
    assert t.is_tpu and not x.is_tpu
    assert x.tpu(1).device == torch.device("tpu:1")
    m = torch.nn.Linear(3, 2).tpu()
    assert all(p.is_tpu for p in m.parameters())
    s = x.untyped_storage().tpu()
    assert s.is_tpu and s.device == torch.device("tpu:0")


def test_import_is_idempotent():
    import importlib

    import torch_tpu as again
    assert again is torch_tpu
    importlib.reload(torch_tpu)          # re-running the module body is harmless
    assert torch.arange(3.0).to("tpu").cpu().tolist() == [0.0, 1.0, 2.0]


def _run(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, timeout=120)


def test_import_torch_autoloads_the_backend():
    proc = _run("import sys, torch\n"
                "assert 'torch_tpu' in sys.modules\n"
                "print(torch.ones(2, device='tpu').device)")
    assert proc.returncode == 0 and proc.stdout.strip() == "tpu:0", proc.stderr


def test_autoload_can_be_disabled():
    proc = _run("import sys, torch\nprint('torch_tpu' in sys.modules)",
                TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert proc.returncode == 0 and proc.stdout.strip() == "False", proc.stderr


def test_device_count_is_configurable():
    proc = _run("import torch, torch_tpu; print(torch.tpu.device_count())",
                TORCH_TPU_DEVICE_COUNT="3")
    assert proc.stdout.strip() == "3", proc.stderr


def test_fork_after_device_use_is_detected():
    code = """
import gc, os, torch, torch_tpu
inherited = torch.ones(4).to("tpu")      # starts the device threads
pid = os.fork()
if pid == 0:
    ok = torch.tpu._is_in_bad_fork()
    del inherited                        # freeing inherited device memory is harmless
    gc.collect()
    try:
        torch.ones(4).to("tpu")
        os._exit(3)
    except RuntimeError as e:
        os._exit(0 if ok and "spawn" in str(e) else 4)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""
    proc = _run(code)
    assert proc.stdout.strip() == "0", proc.stdout + proc.stderr
