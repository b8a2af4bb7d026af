"""The torch-free C++ unit tests of the runtime and the kernel library, built
into build/ on first use (tests/native_binaries.py). Run here so one pytest
covers everything."""

import os
import subprocess
import sys

import pytest
from native_binaries import binary


@pytest.mark.parametrize("name", ["tpu_runtime_tests", "tpu_kernels_tests"])
@pytest.mark.parametrize("strict", ["0", "1"])
def test_native_binary(name, strict):
    path = binary(name)
    env = dict(os.environ, TORCH_TPU_STRICT=strict)
    proc = subprocess.run([path], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]


def test_elementwise_goldens_match_the_installed_torch():
    """test_elementwise_golden.cpp checks the kernels against hashes of CPU
    eager's results committed in elementwise_golden_cpu.inc. Those must be
    what this torch computes today, or the C++ test compares against a stale
    reference: regenerate them and compare."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tests = os.path.join(root, "csrc", "kernels", "tests")
    proc = subprocess.run([sys.executable, os.path.join(tests, "gen_elementwise_golden.py")],
                          capture_output=True, text=True, timeout=300, check=True)
    with open(os.path.join(tests, "elementwise_golden_cpu.inc")) as f:
        committed = f.read()
    assert proc.stdout == committed, (
        "csrc/kernels/tests/elementwise_golden_cpu.inc is stale for this torch; regenerate it with "
        "`python csrc/kernels/tests/gen_elementwise_golden.py > csrc/kernels/tests/elementwise_golden_cpu.inc` "
        "and check the kernels against it (tpu_kernels_tests)")
