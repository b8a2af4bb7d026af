"""The device's LAPACK library, handed to the kernel library at import.

The device backs torch.linalg with scipy-openblas32 (a PyPI dependency,
see docs/kernels.md, "Linear algebra"), as CUDA backs it with cuSOLVER. Only the path
is found here (without importing the package, which would load the library
into the process a second time); the kernel library opens it with dlopen on
first use and resolves the `scipy_`-prefixed LAPACK entry points.
"""
from __future__ import annotations

import importlib.util
import os

PACKAGE = "scipy_openblas32"
SYMBOL_PREFIX = "scipy_"


def library_path() -> str | None:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "lib", "libscipy_openblas.so")
    return path if os.path.exists(path) else None


def install(C) -> None:
    # Missing library: linalg ops raise, naming it, when first called.
    path = library_path()
    if path is not None:
        C._set_lapack_library(path, SYMBOL_PREFIX)
