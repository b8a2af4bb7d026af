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

import sys

from .._after_import import after_import

_DYNAMO_MODULE = "torch._dynamo.device_interface"
_DYNAMO_UTILS_MODULE = "torch._dynamo.utils"
_INDUCTOR_MODULE = "torch._inductor.compile_fx"


def _on_dynamo(_module=None) -> None:
    from . import dynamo

    dynamo.register()


def _on_dynamo_utils(module) -> None:
    """torch._dynamo.utils.is_compile_supported(device) answers for torch's
    in-tree devices only, and says no to "tpu", where Inductor compiles.
    torchvision asks it before taking the pure-PyTorch (compiled) roi_align
    when its C++ ops are missing, and binds the name at import: so it is
    wrapped as soon as the module has run."""
    original = module.is_compile_supported
    if getattr(original, "_torch_tpu", False):
        return

    def is_compile_supported(device_type):
        import torch

        if torch.device(device_type).type == "tpu":
            return original("cpu")  # whether Dynamo runs here at all, as for CPU
        return original(device_type)

    is_compile_supported._torch_tpu = True
    module.is_compile_supported = is_compile_supported


def _on_inductor(_module=None) -> None:
    from . import graphs, inductor

    inductor.register()
    graphs.register()  # mode="reduce-overhead" replays tpu graphs


def install() -> None:
    """Called from torch_tpu/__init__.py; a second import installs nothing."""
    if getattr(install, "done", False):
        return
    install.done = True
    after_import(_DYNAMO_MODULE, _on_dynamo)
    after_import(_DYNAMO_UTILS_MODULE, _on_dynamo_utils)
    after_import(_INDUCTOR_MODULE, _on_inductor)


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
