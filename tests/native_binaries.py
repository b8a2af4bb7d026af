"""The torch-free C++ unit test binaries (tpu_runtime_tests,
tpu_kernels_tests). They are not part of `python -m codegen`'s default
build, which a user's install pays for (as PyTorch builds its C++ tests only
with BUILD_TEST): the tests that run them build them here first, once,
incrementally, in the same build/ directory."""

import fcntl
import os
import subprocess

from codegen.emit.build import tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
TARGETS = ("tpu_runtime_tests", "tpu_kernels_tests")


def binary(name: str) -> str:
    """The path of a built test binary, building both if needed. A file lock
    keeps pytest-xdist workers from running two ninjas in one build tree."""
    assert name in TARGETS, name
    assert os.path.exists(os.path.join(BUILD, "build.ninja")), \
        "build/ is not configured: run python -m codegen"
    with open(os.path.join(BUILD, ".test_binaries.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run([tool("ninja"), "-C", BUILD, *TARGETS], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return os.path.join(BUILD, name)
