"""The torch-free C++ unit tests of the runtime and the kernel library, built
by `python -m codegen` into build/. Run here so one pytest covers everything."""

import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("binary", ["tpu_runtime_tests", "tpu_kernels_tests"])
@pytest.mark.parametrize("strict", ["0", "1"])
def test_native_binary(binary, strict):
    path = os.path.join(ROOT, "build", binary)
    assert os.path.exists(path), f"{path} is missing: run python -m codegen"
    env = dict(os.environ, TORCH_TPU_STRICT=strict)
    proc = subprocess.run([path], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
