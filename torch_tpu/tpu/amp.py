"""torch.tpu.amp: the deprecated per-device AMP names, as torch.cuda.amp has them.

PyTorch deprecated `torch.cuda.amp.autocast`, `GradScaler`, `custom_fwd` and
`custom_bwd` for the device-generic `torch.amp` names, but much training code
still calls them; with "cuda" changed to "tpu" that code reaches this module.
Each name is the torch.amp one for device "tpu" and warns (FutureWarning) as
CUDA's does, naming its replacement.
"""

from __future__ import annotations

import warnings

import torch

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`torch.tpu.amp.{old}(args...)` is deprecated. Please use `{new}` instead.",
                  FutureWarning, stacklevel=3)


class autocast(torch.amp.autocast):
    """torch.autocast("tpu", ...), float16 by default as CUDA's."""

    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.float16, cache_enabled: bool = True):
        _deprecated("autocast", "torch.amp.autocast('tpu', args...)")
        super().__init__("tpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(torch.amp.GradScaler):
    """torch.amp.GradScaler("tpu", ...)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('tpu', args...)")
        super().__init__("tpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """torch.amp.custom_fwd(..., device_type="tpu")."""
    _deprecated("custom_fwd", "torch.amp.custom_fwd(args..., device_type='tpu')")
    return torch.amp.custom_fwd(fwd, device_type="tpu", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """torch.amp.custom_bwd(..., device_type="tpu")."""
    _deprecated("custom_bwd", "torch.amp.custom_bwd(args..., device_type='tpu')")
    return torch.amp.custom_bwd(bwd, device_type="tpu")
