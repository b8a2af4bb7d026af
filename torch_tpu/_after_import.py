"""Run a callback right after a module finishes importing, or at once if it
already has. Python has no post-import hook; this finder wraps the real
loader's exec_module for the named modules only. Used to register with
torch's Dynamo and Inductor when (and only when) they are imported, and for
torchvision_compat."""

from __future__ import annotations

import importlib.abc
import sys
from typing import Callable, Dict


class _AfterImport(importlib.abc.MetaPathFinder):
    def __init__(self):
        self.callbacks: Dict[str, Callable] = {}

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.callbacks:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader, callback = spec.loader, self.callbacks.pop(fullname)
        real_exec = loader.exec_module

        def exec_module(module):
            real_exec(module)
            callback(module)

        loader.exec_module = exec_module  # this loader instance serves only this module
        return spec


_finder = _AfterImport()


def after_import(name: str, callback: Callable) -> None:
    """callback(module) once `name` has executed; now if it already has."""
    if name in sys.modules:
        callback(sys.modules[name])
        return
    _finder.callbacks[name] = callback
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
