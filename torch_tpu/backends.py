"""torch.backends.tpu: the tpu backend's switches, where torch.backends.cuda
keeps CUDA's (installed there when torch_tpu is imported).

    torch.backends.tpu.is_built()                 True: this torch has the backend
    torch.backends.tpu.is_available()             a device can run (torch.tpu.is_available())
    torch.backends.tpu.cpu_capability             the kernel ISA variant in use
                                                  (read-only; TORCH_TPU_CPU_CAPABILITY)
    torch.backends.tpu.allow_excess_precision     True (default): torch.compile(backend="tpu")
                                                  may keep float16/bfloat16 intermediates of a
                                                  fused kernel in float32 (Inductor's default);
                                                  False: it rounds each as eager does
    torch.backends.tpu.launch_blocking            every launch waits for its kernel, so a device
                                                  error is raised at the op (a debugging mode;
                                                  torch.tpu.set_launch_blocking,
                                                  TORCH_TPU_LAUNCH_BLOCKING)

The name and the knob follow Google's TorchTPU, whose package and device
string this project shares.
"""

from __future__ import annotations

import sys
import types


class _TpuBackendModule(types.ModuleType):
    allow_excess_precision: bool = True

    @staticmethod
    def is_built() -> bool:
        return True

    @staticmethod
    def is_available() -> bool:
        import torch

        return torch.tpu.is_available()

    @property
    def launch_blocking(self) -> bool:
        import torch

        return torch.tpu.get_launch_blocking()

    @launch_blocking.setter
    def launch_blocking(self, value: bool) -> None:
        import torch

        if not isinstance(value, bool):
            raise TypeError(f"torch.backends.tpu.launch_blocking must be a bool, not {type(value).__name__}")
        torch.tpu.set_launch_blocking(value)

    @property
    def cpu_capability(self) -> str:
        import torch

        return torch.tpu.cpu_capability()["selected"]

    def __setattr__(self, name, value):
        if name == "allow_excess_precision" and not isinstance(value, bool):
            raise TypeError(f"torch.backends.tpu.allow_excess_precision must be a bool, not {type(value).__name__}")
        if name == "cpu_capability":
            raise AttributeError("torch.backends.tpu.cpu_capability is read-only: set TORCH_TPU_CPU_CAPABILITY "
                                 "before torch_tpu is imported")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _TpuBackendModule


def install() -> None:
    """Makes this module torch.backends.tpu (once per process)."""
    import torch.backends

    module = sys.modules[__name__]
    sys.modules["torch.backends.tpu"] = module
    torch.backends.tpu = module
