"""The PEP 517 build: `pip install .`, `pip install <git url>`, `pip wheel .`
and `python -m build` generate the registrations from ops.yaml and build the
extension through `python -m codegen build`, the same driver developers run.

- A wheel (or a regular install) builds in the checkout's build/ and writes
  the extension straight into the wheel's staging folder (emptied first):
  no file a checkout's torch_tpu/ holds can reach a wheel. Sharing build/
  with the developer build lets each reuse the other's torch-free objects
  (ninja reuses an object only if its command and inputs are unchanged); the
  torch-dependent glue recompiles against the build environment's torch.
- An editable install (`pip install -e .`) leaves the build to the
  developer loop: `python -m codegen` builds in place, in build/, and
  rebuilds incrementally after each change.
- The wheel requires the torch it was built against (torch's C++ ABI has no
  stability across versions; torch_tpu/_extension.py checks it at import).

Metadata and package lists live in pyproject.toml; this file only adds the
native build."""

import os
import shutil
import subprocess
import sys
from importlib.metadata import version

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildPy(build_py):
    """A non-editable build starts from an empty staging folder: files a
    previous build left there (a module since deleted, an old extension)
    would otherwise be packed into this wheel."""

    def run(self):
        if not self.editable_mode and os.path.isdir(self.build_lib):
            shutil.rmtree(self.build_lib)
        super().run()


class BuildNative(build_ext):
    """torch_tpu._C is built by CMake (via codegen), not by setuptools."""

    def build_extension(self, ext):
        target = self.get_ext_fullpath(ext.name)
        cmd = [sys.executable, "-m", "codegen", "build"]
        jobs = os.environ.get("MAX_JOBS") or (str(self.parallel) if self.parallel else "")
        if jobs:
            cmd += ["-j", jobs]
        if self.editable_mode:
            # A developer's checkout builds with `python -m codegen`, in build/,
            # against the environment's own torch. Building here would use
            # pip's isolated build environment, whose torch (and so every
            # include path in build/) is deleted when pip exits: the next
            # `python -m codegen` would rebuild it all.
            print("torch_tpu: editable install; build the extension in place with "
                  "`python -m codegen` (docs/install.md)", file=sys.stderr)
            return
        subprocess.check_call(cmd + ["--output-dir", os.path.dirname(os.path.abspath(target))], cwd=ROOT)


    def copy_extensions_to_source(self):
        if not self.editable_mode:  # the extension is already in place (or built later)
            super().copy_extensions_to_source()


def torch_requirement() -> str:
    """torch==<the version being built against>, without the local label
    (2.13.0+cpu -> 2.13.0: pip then accepts the CPU or the default wheel)."""
    return "torch==" + version("torch").split("+")[0]


setup(
    ext_modules=[Extension("torch_tpu._C", sources=[])],
    cmdclass={"build_ext": BuildNative, "build_py": BuildPy},
    # scipy-openblas32: the device LAPACK behind torch.linalg (torch_tpu/_lapack.py,
    # docs/kernels.md "Linear algebra"), opened at run time; the build needs none of it.
    install_requires=[torch_requirement(), "scipy-openblas32>=0.3.28"],
)
