"""The torch-free C++ unit tests under sanitizers, each in a build tree of its
own (build/sanitize-<kind>/, incremental after the first run):

- AddressSanitizer + UndefinedBehaviorSanitizer (with float-cast-overflow,
  which GCC's "undefined" leaves out: a NaN or out-of-range float converted
  to an integer):
  - the runtime's tests;
  - the kernel library's engines and their tests (CMake's
    tpu_kernels_core_tests: copies and dtype conversion, the reduction
    engine, GEMM, fill, coalesce, the optimizer steps), baseline ISA, -O0:
    ~95 CPU-s to build, ~17 s to run;
  - the whole kernel library's tests when TORCH_TPU_SANITIZE_KERNELS=1. It
    compiles every kernel file in three ISA variants, ~24 CPU-minutes even
    at -O1: more than CI's budget, so it is an on-demand lane.
- ThreadSanitizer: the runtime's tests of streams, events, the launch ring,
  memory and threads, where the host threads and the device's stream
  workers share state.

A report fails the test (halt_on_error / -fno-sanitize-recover)."""

import fcntl
import os
import subprocess

import pytest

from codegen.emit.build import tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = {
    "address": ("-fsanitize=address,undefined,float-cast-overflow "
                "-fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer"),
    "thread": "-fsanitize=thread",
}
# The runtime's own SIGSEGV handler (strict mode turns a stray device access
# into a fault it reports) must stay installed under ASan.
ENV = {
    "address": {"ASAN_OPTIONS": "handle_segv=0:allow_user_segv_handler=1:detect_leaks=1:halt_on_error=1",
                "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"},
    "thread": {"TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1"},
}


def sanitized_binary(kind: str, target: str) -> str:
    build = os.path.join(ROOT, "build", f"sanitize-{kind}")
    os.makedirs(build, exist_ok=True)
    # Tests of one kind share the tree and may run at once on two xdist
    # workers: one ninja at a time in it.
    with open(os.path.join(build, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Configured each time (about a second when nothing changed), so a
        # change of FLAGS reaches an existing tree.
        subprocess.run([tool("cmake"), "-S", ROOT, "-B", build, "-G", "Ninja",
                        f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}", "-DTORCH_TPU_BUILD_EXTENSION=OFF",
                        "-DCMAKE_BUILD_TYPE=RelWithDebInfo", f"-DCMAKE_CXX_FLAGS={FLAGS[kind]}",
                        f"-DCMAKE_EXE_LINKER_FLAGS={FLAGS[kind]}"],
                       check=True, capture_output=True, text=True)
        proc = subprocess.run([tool("ninja"), "-C", build, target], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return os.path.join(build, target)


def run(kind: str, target: str, test_filter: str | None = None):
    path = sanitized_binary(kind, target)
    env = dict(os.environ, **ENV[kind])
    args = [path] + ([test_filter] if test_filter else [])
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    out = proc.stdout[-6000:] + proc.stderr[-6000:]
    assert proc.returncode == 0, out
    # A report that did not halt.
    assert "Sanitizer" not in proc.stderr and "runtime error:" not in proc.stderr, out
    return proc


def test_runtime_under_address_and_undefined_behavior_sanitizers():
    run("address", "tpu_runtime_tests")


def test_kernel_engines_under_address_and_undefined_behavior_sanitizers():
    proc = run("address", "tpu_kernels_core_tests")
    assert " 0 failed" in proc.stdout and " passed" in proc.stdout, proc.stdout[-2000:]


@pytest.mark.skipif(os.environ.get("TORCH_TPU_SANITIZE_KERNELS") != "1",
                    reason="the kernel library under ASan is an on-demand lane: TORCH_TPU_SANITIZE_KERNELS=1")
def test_kernels_under_address_and_undefined_behavior_sanitizers():
    run("address", "tpu_kernels_tests")


def test_runtime_under_thread_sanitizer():
    run("thread", "tpu_runtime_tests")
