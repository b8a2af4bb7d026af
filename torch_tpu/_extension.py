"""Loads the native extension, after checking it was built for this torch.

A backend built against another torch (version, git commit or C++ ABI) fails
in confusing ways (undefined symbols, crashes); this check turns that into one
clear ImportError with the fix."""

from __future__ import annotations

import glob
import json
import os
import sys

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
# An installed package is rebuilt by reinstalling it (pip builds it); a
# developer's checkout (editable install) by the generator's incremental build.
_IN_CHECKOUT = os.path.exists(os.path.join(os.path.dirname(_HERE), "ops.yaml"))
_REBUILD = ("rebuild it: run `python -m codegen` in this checkout (" + os.path.dirname(_HERE) + ")"
            if _IN_CHECKOUT else
            "rebuild it: reinstall torch_tpu with pip (`pip install --force-reinstall --no-deps <its source or wheel>`), "
            "which builds the extension")


class ExtensionNotBuilt(ImportError):
    """torch_tpu/_C has not been built yet."""


def _check_build_info() -> None:
    path = os.path.join(_HERE, "_build_info.json")
    if not os.path.exists(path) or not glob.glob(os.path.join(_HERE, "_C*.so")):
        raise ExtensionNotBuilt(f"torch_tpu's native extension is not built; {_REBUILD}",
                                name="torch_tpu._C")
    with open(path) as f:
        built = json.load(f)
    running = {
        "torch_version": torch.__version__,
        "torch_git_version": torch.version.git_version,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "python": "%d.%d" % sys.version_info[:2],
    }
    diffs = [f"{k}: built for {built.get(k)!r}, running {v!r}"
             for k, v in running.items() if built.get(k) != v]
    if diffs:
        raise ImportError(
            "torch_tpu was built against a different torch/Python than the one running ("
            + "; ".join(diffs) + f"). Install torch=={built.get('torch_version')} or {_REBUILD}.",
            name="torch_tpu._C")


def load():
    _check_build_info()
    try:
        from . import _C
    except ImportError as e:
        raise ImportError(f"torch_tpu's native extension failed to load ({e}); {_REBUILD}",
                          name="torch_tpu._C") from e
    return _C
