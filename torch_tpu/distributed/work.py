"""Work objects of the tccl process group, with NCCL's stream semantics.

A collective's host part (staging and gloo) is finished when the call returns;
its device part (copying results back) is queued on the stream that was
current at the call, and an event marks its end. So:
- `wait()` makes the caller's current tpu stream wait for that event (the
  host does not block), as ProcessGroupNCCL's does;
- `is_completed()` asks the event, without blocking;
- `get_future()` is a device-aware Future: its value's users (`wait()`,
  `then()` callbacks) are ordered after the copies on their current streams.

Point-to-point operations finish later (gloo delivers in the background,
and its send/recv works have no future to be told with), so `PendingWork`
copies a receive's data back when its work is first waited for or asked
about (`wait()`, `is_completed()`, `get_future()`, `result()`): unlike
NCCL, a receive nobody waits for never lands in its tensor."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Callable, Optional

import torch
import torch.distributed as dist


def _device_future(device: torch.device) -> torch.futures.Future:
    if device.type == "tpu":
        return torch.futures.Future(devices=[device])
    return torch.futures.Future()


def _wait_event(event: Optional[torch.Event]) -> None:
    if event is not None:
        torch.accelerator.current_stream(event.device.index).wait_event(event)


def _record(device: torch.device) -> Optional[torch.Event]:
    if device.type != "tpu":
        return None
    event = torch.Event(device=device)
    event.record(torch.accelerator.current_stream(device.index))
    return event


class DoneWork(dist._Work):
    """A collective whose results are queued on the caller's stream."""

    def __init__(self, result: list, device: torch.device, source_rank: int = -1):
        super().__init__()
        self._result = result
        self._event = _record(device)
        self._future = _device_future(device)
        self._future.set_result(result)  # a tpu future records on the current stream too
        self._source_rank = source_rank

    def wait(self, timeout: timedelta = None) -> bool:
        _wait_event(self._event)
        return True

    def is_completed(self) -> bool:
        return self._event is None or self._event.query()

    def is_success(self) -> bool:
        return True

    def exception(self):
        return None

    def get_future(self) -> torch.futures.Future:
        return self._future

    def result(self) -> list:
        return self._result

    def source_rank(self) -> int:
        return self._source_rank

    def synchronize(self) -> None:
        self.wait()


class PendingWork(dist._Work):
    """A gloo operation still running; `finish` runs once it completed,
    queues the copies back and returns the result. Errors (a peer that died,
    a timeout) surface in `wait()`."""

    def __init__(self, gloo_work, finish: Callable[[], list], device: torch.device, keep=()):
        super().__init__()
        self._gloo = gloo_work
        self._finish = finish
        self._device = device
        self._keep = keep  # staged buffers gloo still reads or writes
        self._lock = threading.Lock()
        self._event: Optional[torch.Event] = None
        self._result: Optional[list] = None
        self._future: Optional[torch.futures.Future] = None

    def _complete(self) -> list:
        with self._lock:
            if self._result is None:
                self._gloo.wait()
                self._result = self._finish()
                self._event = _record(self._device)
                self._keep = ()
            return self._result

    def wait(self, timeout: timedelta = None) -> bool:
        self._complete()
        _wait_event(self._event)
        return True

    def is_completed(self) -> bool:
        if self._result is None and not self._gloo.is_completed():
            return False
        self._complete()
        return self._event is None or self._event.query()

    def is_success(self) -> bool:
        return self._gloo.is_completed() and self._gloo.is_success()

    def exception(self):
        return self._gloo.exception()

    def get_future(self) -> torch.futures.Future:
        if self._future is None:
            result = self._complete()
            self._future = _device_future(self._device)
            self._future.set_result(result)
        return self._future

    def result(self) -> list:
        return self._complete()

    def source_rank(self) -> int:
        return self._gloo.source_rank()

    def synchronize(self) -> None:
        self.wait()


class GroupWork(dist._Work):
    """Several works as one (the coalescing manager's `_end_coalescing`)."""

    def __init__(self, works: list):
        super().__init__()
        self._works = works

    def wait(self, timeout: timedelta = None) -> bool:
        for w in self._works:
            w.wait()
        return True

    def is_completed(self) -> bool:
        return all(w.is_completed() for w in self._works)

    def get_future(self) -> torch.futures.Future:
        futures = [w.get_future() for w in self._works]
        return torch.futures.collect_all(futures) if futures else _done_future([])

    def result(self) -> list:
        return [t for w in self._works for t in w.result()]


def _done_future(value) -> torch.futures.Future:
    f = torch.futures.Future()
    f.set_result(value)
    return f
