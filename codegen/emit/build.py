"""Builds the extension with CMake + Ninja against the installed torch, in
build/ (incremental: only changed sources recompile), and records what it was
built against in torch_tpu/_build_info.json (checked at import time).

setup.py (pip install . / pip wheel .) calls the same build, in the same
build/, with the wheel's staging folder as the output. Both builds share the
torch-free objects (csrc/runtime, csrc/kernels: three quarters of a clean
build's compile time): ninja reuses an object only when its command line and
every input it read are unchanged, and the torch-dependent glue recompiles
against a snapshot of torch's headers (torch_headers.py), so a build in
pip's isolated environment (a new directory each time) and one in the
virtualenv differ only in what they link."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

from ..errors import BuildError
from . import torch_headers

BUILD_DIR = "build"
BUILD_INFO = os.path.join("torch_tpu", "_build_info.json")


def torch_info() -> dict:
    import torch  # python -m codegen disables the autoload of torch_tpu (see __main__)

    return {
        "torch_version": torch.__version__,
        "torch_git_version": torch.version.git_version,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "python": "%d.%d" % sys.version_info[:2],
        "python_executable": sys.executable,
        "cmake_prefix": torch.utils.cmake_prefix_path,
    }


def tool(name: str) -> str:
    """The path of cmake or ninja (ninja also from its PyPI package)."""
    path = shutil.which(name)
    if path is None and name == "ninja":
        try:
            import ninja  # the PyPI package ships the binary

            path = os.path.join(ninja.BIN_DIR, "ninja")
        except ImportError:
            pass
    if path is None:
        raise BuildError(f"'{name}' not found: install it (pip install {name})")
    return path


def _run(cmd, cwd):
    print("[codegen] $ " + " ".join(cmd), flush=True)
    if subprocess.call(cmd, cwd=cwd) != 0:
        raise BuildError(f"{os.path.basename(cmd[0])} failed (see the output above)")


def build(root: str, jobs: int = 0, build_dir: str | None = None,
          output_dir: str | None = None) -> float:
    """Configures if needed, then runs ninja. Returns seconds spent. The
    extension and its build info land in output_dir (default: the
    checkout's torch_tpu/, next to __init__.py)."""
    start = time.time()
    info = torch_info()
    build_dir = os.path.abspath(build_dir or os.path.join(root, BUILD_DIR))
    output_dir = os.path.abspath(output_dir or os.path.join(root, "torch_tpu"))
    info["output_dir"] = output_dir
    stamp = os.path.join(build_dir, "torch_tpu_configured.json")
    configured = None
    if os.path.exists(stamp) and os.path.exists(os.path.join(build_dir, "build.ninja")):
        with open(stamp) as f:
            configured = json.load(f)
    import torch

    headers = torch_headers.sync(os.path.join(os.path.dirname(torch.__file__), "include"), build_dir)
    info["torch_include"] = headers  # a build configured before the snapshot existed reconfigures
    if configured != info:
        _forget_other_environment(build_dir, configured, info)
        print("[codegen] configuring the build (cmake) against torch "
              f"{info['torch_version']} ...", flush=True)
        _run([tool("cmake"), "-S", root, "-B", build_dir, "-G", "Ninja",
              f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}",
              f"-DTORCH_CMAKE_PREFIX={info['cmake_prefix']}",
              f"-DTORCH_TPU_TORCH_INCLUDE={headers}",
              f"-DPython_EXECUTABLE={sys.executable}",
              f"-DTORCH_TPU_TORCH_VERSION={info['torch_version']}",
              f"-DTORCH_TPU_OUTPUT_DIR={output_dir}",
              "-DCMAKE_BUILD_TYPE=Release"], cwd=root)
        with open(stamp, "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
    cmd = [tool("ninja"), "-C", build_dir]
    if jobs:
        cmd += ["-j", str(jobs)]
    _run(cmd, cwd=root)
    _write_build_info(output_dir, info)
    return time.time() - start


def _forget_other_environment(build_dir: str, configured: dict | None, info: dict) -> None:
    """Another torch or Python than the last configure's (a wheel build in
    pip's isolated environment, then a developer build, or the reverse):
    CMake's cache holds what it found there (Torch_DIR, Caffe2_DIR,
    TORCH_PYTHON_LIBRARY, Python's paths) and would keep using it, even once
    that environment is deleted. Drop the cache, keep the objects."""
    ignore = ("output_dir",)
    same = configured is not None and all(
        configured.get(k) == v for k, v in info.items() if k not in ignore)
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if not same and os.path.exists(cache):
        os.remove(cache)


def _write_build_info(output_dir: str, info: dict) -> None:
    content = json.dumps({k: v for k, v in info.items() if k not in ("cmake_prefix", "output_dir", "python_executable", "torch_include")},
                         indent=1, sort_keys=True) + "\n"
    path = os.path.join(output_dir, os.path.basename(BUILD_INFO))
    try:
        with open(path) as f:
            if f.read() == content:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(content)
