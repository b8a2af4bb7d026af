"""At exit, let the device's autograd threads drop the last backward's
state before the interpreter finalizes (csrc/python/autograd_exit.cpp: in
torch 2.13 a thread dropping it during finalization aborts the process)."""

from __future__ import annotations

import atexit
import os

import torch

from .. import _C


def _autograd_threads_running() -> bool:
    # torch names its device autograd threads pt_autograd_N (Linux shows
    # thread names in /proc); where it cannot tell, assume they run.
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return True
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                if f.read().startswith("pt_autograd_"):
                    return True
        except OSError:
            continue
    return False


def drain() -> None:
    if not _autograd_threads_running():
        return
    for d in range(torch.tpu.device_count()):
        try:
            # A stream of its own: work left queued on others cannot hold up exit.
            with torch.tpu.stream(torch.tpu.Stream(d)):
                _C._drain_autograd_threads([d])
        except Exception:  # exiting: a device in an error state must not stop it
            pass


atexit.register(drain)
