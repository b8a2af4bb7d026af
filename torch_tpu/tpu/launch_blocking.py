"""Launch blocking: device errors at the op that launched them.

The device runs work asynchronously: a kernel that finds bad data (an index
out of range) fails after the op returned, and the next synchronisation
raises PyTorch's error, naming the op and the Python line that launched it.
With launch blocking on, every launch waits for its kernel, so the error is
raised by the op itself, with PyTorch's own type and message (IndexError,
else RuntimeError), as CUDA_LAUNCH_BLOCKING=1 does for CUDA. It makes every
op synchronous: a debugging mode.

The environment variable TORCH_TPU_LAUNCH_BLOCKING=1 turns it on at start."""

from __future__ import annotations

from .. import _C


def set_launch_blocking(enabled: bool) -> None:
    """Turn launch blocking on or off for every tpu device and thread."""
    _C._set_launch_blocking(bool(enabled))


def get_launch_blocking() -> bool:
    """Whether launch blocking is on (initially TORCH_TPU_LAUNCH_BLOCKING)."""
    return bool(_C._launch_blocking())
