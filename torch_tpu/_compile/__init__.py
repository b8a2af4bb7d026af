"""torch.compile on tpu: Dynamo's device interface and Inductor's backend.

torch 2.13 ships its own "tpu" registrations (Pallas scheduling, Dynamo's
TpuInterface, CPU device op overrides), installed lazily on first use and
without checking for an existing entry. Ours must land after theirs, and
importing Dynamo and Inductor at `import torch_tpu` would double the import
time of `import torch` (the backend autoloads), so we register at the moment
each torch module finishes importing (`install()`), or at once when it is
already imported. `check_registrations()` runs at the start of every Dynamo
compile and names the registration that something replaced afterwards.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Callable, Dict

_DYNAMO_MODULE = "torch._dynamo.device_interface"
_INDUCTOR_MODULE = "torch._inductor.compile_fx"


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback right after a given module has executed. Python has
    no post-import hook; this finder wraps the real loader's exec_module."""

    def __init__(self, callbacks: Dict[str, Callable]):
        self.callbacks = callbacks

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


def _on_dynamo(_module=None) -> None:
    from . import dynamo

    dynamo.register()


def _on_inductor(_module=None) -> None:
    from . import graphs, inductor

    inductor.register()
    graphs.register()  # mode="reduce-overhead" replays tpu graphs


def install() -> None:
    """Called from torch_tpu/__init__.py; a second import installs nothing."""
    if any(isinstance(f, _AfterImport) for f in sys.meta_path) or getattr(install, "done", False):
        return
    install.done = True
    pending = {}
    for name, callback in ((_DYNAMO_MODULE, _on_dynamo), (_INDUCTOR_MODULE, _on_inductor)):
        if name in sys.modules:
            callback()
        else:
            pending[name] = callback
    if pending:
        sys.meta_path.insert(0, _AfterImport(pending))


def check_registrations() -> None:
    """Raises RuntimeError naming each "tpu" registration that is not ours."""
    problems = []
    if _DYNAMO_MODULE in sys.modules:
        from . import dynamo

        problems += dynamo.registration_problems()
    if _INDUCTOR_MODULE in sys.modules:
        from . import inductor

        problems += inductor.registration_problems()
    if problems:
        raise RuntimeError(
            "torch_tpu: torch.compile cannot run on tpu because torch's built-in 'tpu' "
            "(Pallas/JAX) registrations replaced torch_tpu's after `import torch_tpu`: "
            + "; ".join(problems)
            + ". Something re-registered them; call torch_tpu._compile.register_all() "
            "after it to restore torch_tpu's.")


def register_all() -> None:
    """(Re-)installs every registration now (imports Dynamo and Inductor)."""
    import torch._dynamo.device_interface  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401

    _on_dynamo()
    _on_inductor()
