"""Dynamo's DeviceInterface for "tpu": how Dynamo and Inductor query the
device (index, streams, properties, synchronize) while tracing and compiling."""

from __future__ import annotations

import torch
from torch._dynamo import device_interface as di


class TpuInterface(di.DeviceInterface):
    device = torch.tpu.device
    Event = torch.Event  # torch.tpu.Event builds plain torch.Events
    Stream = torch.tpu.Stream

    class Worker:
        @staticmethod
        def set_device(device: int) -> None:
            torch.tpu.set_device(device)

        @staticmethod
        def current_device() -> int:
            return torch.tpu.current_device()

        @staticmethod
        def get_device_properties(device=None):
            return torch.tpu.get_device_properties(device)

    @staticmethod
    def current_device() -> int:
        return torch.tpu.current_device()

    @staticmethod
    def set_device(device) -> None:
        torch.tpu.set_device(device)

    @staticmethod
    def maybe_exchange_device(device: int) -> int:
        return torch_tpu_C()._exchange_device(device)

    @staticmethod
    def exchange_device(device: int) -> int:
        return torch_tpu_C()._exchange_device(device)

    @staticmethod
    def device_count() -> int:
        return torch.tpu.device_count()

    @staticmethod
    def is_available() -> bool:
        return torch.tpu.is_available()

    @staticmethod
    def stream(stream):
        return torch.tpu.stream(stream)

    @staticmethod
    def current_stream():
        return torch.tpu.current_stream()

    @staticmethod
    def set_stream(stream) -> None:
        torch.tpu.set_stream(stream)

    @staticmethod
    def _set_stream_by_id(stream_id: int, device_index: int, device_type: int) -> None:
        torch.tpu.set_stream(torch.Stream(stream_id=stream_id, device_index=device_index,
                                          device_type=device_type))

    @staticmethod
    def get_raw_stream(device_idx: int) -> int:
        return torch.tpu.current_stream(device_idx).stream_id

    @staticmethod
    def synchronize(device=None) -> None:
        torch.tpu.synchronize(device)

    @staticmethod
    def get_compute_capability(device=None) -> str:
        return ""

    @staticmethod
    def is_bf16_supported(including_emulation: bool = False) -> bool:
        return True

    @classmethod
    def is_dtype_supported(cls, dtype: torch.dtype, including_emulation: bool = False) -> bool:
        return True

    @staticmethod
    def memory_allocated(device=None) -> int:
        return torch.tpu.memory_allocated(device)


def torch_tpu_C():
    import torch_tpu

    return torch_tpu._C


def _names():
    return ["tpu"] + [f"tpu:{i}" for i in range(torch.tpu.device_count())]


def register() -> None:
    # First let torch run its lazy init (it registers its own TpuInterface
    # unconditionally), then overwrite. Lookups by string are literal, so
    # "tpu:N" needs its own entry.
    di.get_registered_device_interfaces()
    for name in _names():
        di.register_interface_for_device(name, TpuInterface)
    arm_check()


def arm_check() -> None:
    """(Re-)adds check_registrations to Dynamo's compile-start callbacks;
    torch._dynamo.reset() clears them, so our wrapper codegen re-arms it."""
    # torch._dynamo may still be importing here: take the submodule directly.
    from torch._dynamo.callback import callback_handler

    from . import check_registrations

    if _check not in callback_handler.start_callbacks:
        callback_handler.register_start_callback(_check)


def _check(_args) -> None:
    from . import check_registrations

    check_registrations()


def registration_problems():
    if not di._device_initialized:
        return []
    found = {n: di.device_interfaces.get(n) for n in _names()}
    return [f"Dynamo's device interface for {n!r} is {cls.__module__}.{cls.__qualname__}"
            for n, cls in found.items() if cls is not TpuInterface]
