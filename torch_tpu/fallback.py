"""The host-fallback policy for operators without a tpu kernel.

    error  (default) NotImplementedError naming the op and how to add it
    warn   run on the host (copy in, compute, copy out), warn once per op
    allow  the same, silently

Set with TORCH_TPU_FALLBACK=<policy> or set_fallback_policy(); every host
fallback call is counted in torch_tpu.stats().
"""

from __future__ import annotations

import contextlib

from . import _C


def get_fallback_policy() -> str:
    return _C._get_fallback_policy()


def set_fallback_policy(policy: str) -> None:
    _C._set_fallback_policy(policy)


@contextlib.contextmanager
def fallback_policy(policy: str):
    """Temporarily use another policy (process wide)."""
    old = get_fallback_policy()
    set_fallback_policy(policy)
    try:
        yield
    finally:
        set_fallback_policy(old)
