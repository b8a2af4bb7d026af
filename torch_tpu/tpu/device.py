"""Devices: count, current device, properties, synchronisation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import torch

from .. import _C

_DeviceLike = Any  # int, str ("tpu:1"), torch.device or None


def _device_index(device: _DeviceLike = None, optional: bool = True) -> int:
    """Index of a tpu device given as int, "tpu:N", torch.device or None (current)."""
    if isinstance(device, torch.device):
        if device.type != "tpu":
            raise ValueError(f"Expected a tpu device, but got: {device}")
        device = device.index
    elif isinstance(device, str):
        return _device_index(torch.device(device), optional)
    if device is None:
        if not optional:
            raise ValueError("Expected a tpu device with a specified index, got None")
        return current_device()
    if not isinstance(device, int):
        raise TypeError(f"Invalid device: {device!r}")
    return device


def is_available() -> bool:
    return _C._device_count() > 0


def device_count() -> int:
    return _C._device_count()


def current_device() -> int:
    return _C._current_device()


def set_device(device: _DeviceLike) -> None:
    idx = _device_index(device)
    if idx >= 0:
        _C._set_device(idx)


def is_initialized() -> bool:
    # The runtime is ready at import; threads start lazily on first device
    # work, so importing before fork() is safe.
    return True


def init() -> None:
    pass


def _lazy_init() -> None:
    pass


def _is_in_bad_fork() -> bool:
    return _C._is_in_bad_fork()


class device:
    """Context manager that makes `device` current for the block."""

    def __init__(self, device: _DeviceLike):
        self.idx = _device_index(device) if device is not None else -1
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _C._exchange_device(self.idx)

    def __exit__(self, *exc) -> bool:
        _C._exchange_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager that makes the tensor's device current (no-op for CPU tensors)."""

    def __init__(self, obj: torch.Tensor):
        super().__init__(obj.get_device() if obj.device.type == "tpu" else -1)


def synchronize(device: _DeviceLike = None) -> None:
    """Waits for all work on all streams of the device."""
    _C._synchronize(_device_index(device))


@dataclass(frozen=True)
class _DeviceProperties:
    name: str
    index: int
    total_memory: int
    core_count: int
    # The instruction set the device kernels use: "avx2", "avx512" or
    # "avx512_bf16" (see cpu_capability()).
    cpu_capability: str

    @property
    def multi_processor_count(self) -> int:  # the name torch.cuda users look for
        return self.core_count

    @property
    def major(self) -> int:  # get_device_capability()'s, as CUDA's properties carry it
        return _capability(self.cpu_capability)[0]

    @property
    def minor(self) -> int:
        return _capability(self.cpu_capability)[1]

    def __repr__(self) -> str:
        return (f"_TpuDeviceProperties(name='{self.name}', index={self.index}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"core_count={self.core_count}, cpu_capability='{self.cpu_capability}')")


def get_device_properties(device: _DeviceLike = None) -> _DeviceProperties:
    return _DeviceProperties(**_C._get_device_properties(_device_index(device)))


# The minor capability: the feature level of the kernels the device runs.
_CAPABILITY_MINOR = {"avx2": 0, "avx512": 1, "avx512_bf16": 2}


def _capability(selected: str) -> tuple:
    gemm = _C._cpu_capability()["gemm"].get("bfloat16", "")
    return (1, 3 if "amx" in gemm else _CAPABILITY_MINOR[selected])


def get_device_capability(device: _DeviceLike = None) -> tuple:
    """(major, minor), as torch.cuda's, for the simulated device: major 1 (it
    has one generation); minor the feature level of the kernels it runs: 0
    AVX2, 1 AVX-512, 2 AVX-512 with bfloat16 dot products, 3 AMX bfloat16
    tiles. These numbers are not CUDA's: code that compares them with CUDA's
    (8, 0) to decide on bfloat16 should ask is_bf16_supported() (True)."""
    return _capability(get_device_properties(device).cpu_capability)


def cpu_capability() -> dict:
    """Which kernel variants run: {"selected": ISA in use, "best": the best this
    CPU has, "features": CPUID flags, "gemm": micro-kernel per dtype}. The
    kernels are built for avx2 (x86-64-v3) and, where it pays, avx512 and
    avx512_bf16; env TORCH_TPU_CPU_CAPABILITY picks a lower one (read at import)."""
    return _C._cpu_capability()


def utilization(device: _DeviceLike = None) -> int:
    """Percent of the last second during which one or more tasks ran on the
    device's streams (torch.cuda.utilization's "kernels executing", from
    the runtime's busy clock instead of NVML; the window is one second of
    complete 1/6-second periods plus the current one)."""
    return _C._utilization(_device_index(device))


def memory_usage(device: _DeviceLike = None) -> int:
    """Percent of the last second during which the device's memory was read
    or written (torch.cuda.memory_usage). Every device task reads or writes
    device memory and nothing else does, so this is utilization()."""
    return utilization(device)


def get_device_name(device: _DeviceLike = None) -> str:
    return get_device_properties(device).name
