"""Streams and events: torch.Stream / torch.Event on the tpu device.

Kernels and copies are queued on the current stream of their device and run
asynchronously; events order streams against each other and time them."""

from __future__ import annotations

from typing import Optional

import torch

from .device import _DeviceLike, _device_index


def _tpu(device: _DeviceLike) -> torch.device:
    return torch.device("tpu", _device_index(device))


class Stream(torch.Stream):
    """A tpu stream. priority < 0 asks for a high-priority stream."""

    def __new__(cls, device: _DeviceLike = None, priority: int = 0):
        return super().__new__(cls, device=_tpu(device), priority=priority)


class ExternalStream(Stream):
    """A stream created outside torch, by another library through the tpu
    runtime's stream API (runtime::stream_create; from Python,
    torch_tpu._C._runtime_stream_create), given by its handle. As CUDA's
    ExternalStream: torch never creates or destroys it, and its creator keeps
    it alive while torch uses it. Work torch queues on it runs in order with
    the creator's own work on it."""

    def __new__(cls, stream_ptr: int, device: _DeviceLike = None):
        from .. import _C

        index = _device_index(device)
        stream_id = _C._external_stream_id(int(stream_ptr), index)
        ref = torch.accelerator.current_stream(index)
        return torch.Stream.__new__(cls, stream_id=stream_id, device_index=index, device_type=ref.device_type)


def get_stream_from_external(data_ptr: int, device: _DeviceLike = None) -> torch.Stream:
    """The tpu stream of an external stream handle (torch.cuda's
    get_stream_from_external): an ExternalStream."""
    return ExternalStream(data_ptr, device)


class _EventMeta(type):
    """torch.tpu.Event(...) builds a plain torch.Event on a tpu device, and
    isinstance(e, torch.tpu.Event) holds for every tpu torch.Event.

    Not a subclass on purpose: torch.Event.elapsed_time (torch 2.13) rejects
    an `end_event` whose type is a subclass ("expected other to be a
    torch.Event object"), so a subclass instance could never be timed."""

    def __call__(cls, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False, device: _DeviceLike = None) -> torch.Event:
        return torch.Event(device=_tpu(device), enable_timing=enable_timing,
                           blocking=blocking, interprocess=interprocess)

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, torch.Event) and obj.device.type == "tpu"


class Event(metaclass=_EventMeta):
    """A tpu event (a torch.Event); enable_timing=True allows elapsed_time()."""


def current_stream(device: _DeviceLike = None) -> torch.Stream:
    return torch.accelerator.current_stream(_device_index(device))


def default_stream(device: _DeviceLike = None) -> torch.Stream:
    idx = _device_index(device)
    cur = torch.accelerator.current_stream(idx)
    return torch.Stream(stream_id=0, device_index=idx, device_type=cur.device_type)


def set_stream(stream: torch.Stream) -> None:
    torch.accelerator.set_stream(stream)


class StreamContext:
    """Makes `stream` (and its device) current for the block; None is a no-op."""

    def __init__(self, stream: Optional[torch.Stream]):
        self.stream = stream
        self.prev_device = -1
        self.prev_stream: Optional[torch.Stream] = None

    def __enter__(self):
        if self.stream is None:
            return None
        from .device import current_device, set_device

        self.prev_device = current_device()
        self.prev_stream = current_stream(self.stream.device_index)
        set_device(self.stream.device_index)
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc) -> bool:
        if self.stream is not None:
            from .device import set_device

            set_stream(self.prev_stream)
            set_device(self.prev_device)
        return False


def stream(stream: Optional[torch.Stream]) -> StreamContext:
    return StreamContext(stream)
