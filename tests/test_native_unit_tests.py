"""The torch-free C++ unit tests of the runtime and the kernel library, built
into build/ on first use (tests/native_binaries.py). Run here so one pytest
covers everything."""

import os
import subprocess

import pytest
from native_binaries import binary


@pytest.mark.parametrize("name", ["tpu_runtime_tests", "tpu_kernels_tests"])
@pytest.mark.parametrize("strict", ["0", "1"])
def test_native_binary(name, strict):
    path = binary(name)
    env = dict(os.environ, TORCH_TPU_STRICT=strict)
    proc = subprocess.run([path], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
