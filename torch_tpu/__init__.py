"""torch_tpu: a simulated TPU as the first-class PyTorch device "tpu" (PrivateUse1).

    import torch, torch_tpu
    x = torch.arange(8.0).to("tpu")

Importing is enough (and `import torch` does it automatically through the
torch.backends entry point). Importing again is harmless.
"""

from __future__ import annotations

import torch

from . import _extension

_C = _extension.load()  # registers the backend with PyTorch (C++ side)

from . import _lapack  # noqa: E402

_lapack.install(_C)  # the device LAPACK (torch.linalg)

from . import tpu  # noqa: E402  (the torch.tpu device module)
from .telemetry import no_fallback, reset_stats, stats, trace_ops  # noqa: E402
from .fallback import get_fallback_policy, set_fallback_policy  # noqa: E402


def _register_python_side() -> None:
    # Each call below may run only once per process; a second import of this
    # module (reload, or autoload followed by an explicit import) skips them.
    if getattr(torch, "tpu", None) is tpu:
        return
    torch.utils.rename_privateuse1_backend("tpu")
    torch._register_device_module("tpu", tpu)
    torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)


_register_python_side()

from . import _compile  # noqa: E402
from . import program  # noqa: E402  (compiled programs: torch_tpu.program.compile)
from .program import benchmark  # noqa: E402

_compile.install()  # torch.compile on tpu: Dynamo and Inductor registrations

from . import backends  # noqa: E402  (torch.backends.tpu)

backends.install()

from . import torchvision_compat  # noqa: E402

torchvision_compat.install()  # torchvision imports although its CUDA-built extension cannot load

from . import distributed  # noqa: E402  (the "tccl" c10d backend, also named "tpu_dist" and "tpu")

distributed.register()  # torch.distributed: init_process_group(device_id=tpu:N) picks tccl

__all__ = ["tpu", "distributed", "program", "benchmark", "stats", "reset_stats", "no_fallback", "trace_ops", "get_fallback_policy",
           "set_fallback_policy"]
__version__ = "0.1.0"
