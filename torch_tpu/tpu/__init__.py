"""torch.tpu: the device module of the simulated TPU, shaped like torch.cuda."""

from __future__ import annotations

from typing import List

from .. import _C

import torch

from . import amp  # noqa: E402,F401  (torch.tpu.amp: CUDA's deprecated AMP names)
from . import autograd_exit  # noqa: E402,F401  (drains the autograd threads at exit)
from .device import (
    _DeviceProperties,
    _device_index,
    _is_in_bad_fork,
    _lazy_init,
    cpu_capability,
    current_device,
    device,
    device_count,
    device_of,
    get_device_name,
    get_device_capability,
    get_device_properties,
    init,
    memory_usage,
    utilization,
    is_available,
    is_initialized,
    set_device,
    synchronize,
)
from .launch_blocking import get_launch_blocking, set_launch_blocking
from .graphs import (
    TPUGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from .memory import (
    caching_allocator_alloc,
    caching_allocator_delete,
    device_memory_used,
    empty_cache,
    get_per_process_memory_fraction,
    host_memory_stats,
    host_memory_stats_as_nested_dict,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    MemPool,
    reset_accumulated_host_memory_stats,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_host_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
    use_mem_pool,
)
from .random import (
    default_generators,
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .streams import (
    Event,
    ExternalStream,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    get_stream_from_external,
    set_stream,
    stream,
)


OutOfMemoryError = torch.OutOfMemoryError
_SYNC_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def is_tf32_supported() -> bool:
    """float32 matmuls always run in full float32 on tpu (no TF32 mode)."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """bfloat16 kernels exist for every tpu (on AMX tiles where the CPU has them)."""
    return True


def can_device_access_peer(device, peer_device) -> bool:
    """Whether `device` can copy to and from `peer_device` directly: every pair of tpu devices can."""
    from .device import _device_index, device_count

    for d in (device, peer_device):
        index = _device_index(d, optional=False)
        if not 0 <= index < device_count():
            raise ValueError(f"Invalid device id {index}: there are {device_count()} tpu devices")
    return True


def set_sync_debug_mode(debug_mode) -> None:
    """"default"/0: off; "warn"/1: warn at every implicit host sync (.item(),
    .cpu(), nonzero, ...); "error"/2: raise instead. Explicit synchronize()
    calls never count. As torch.cuda.set_sync_debug_mode."""
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_DEBUG_MODES:
            raise RuntimeError('invalid value of debug_mode, expected one of "default", "warn", "error"')
        debug_mode = _SYNC_DEBUG_MODES[debug_mode]
    _C._set_sync_debug_mode(int(debug_mode))


def get_sync_debug_mode() -> int:
    return _C._get_sync_debug_mode()


def get_amp_supported_dtype() -> List[torch.dtype]:
    """Lower-precision dtypes torch.autocast("tpu", dtype=...) accepts."""
    return [torch.float16, torch.bfloat16]


__all__ = [
    "MemPool", "use_mem_pool", "caching_allocator_alloc", "caching_allocator_delete", "host_memory_stats", "host_memory_stats_as_nested_dict",
    "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats", "is_tf32_supported", "max_memory_cached", "memory_cached",
    "Event", "ExternalStream", "get_stream_from_external", "get_device_capability", "OutOfMemoryError", "Stream", "StreamContext", "TPUGraph", "can_device_access_peer",
    "get_launch_blocking", "set_launch_blocking",
    "get_per_process_memory_fraction", "get_sync_debug_mode", "is_bf16_supported", "memory_stats_as_nested_dict",
    "reset_max_memory_allocated", "reset_max_memory_cached", "set_per_process_memory_fraction", "set_sync_debug_mode", "graph", "graph_pool_handle",
    "is_current_stream_capturing", "make_graphed_callables", "cpu_capability", "current_device", "current_stream", "default_generators",
    "default_stream", "device", "device_count", "device_memory_used", "memory_usage", "utilization", "device_of", "empty_cache",
    "get_amp_supported_dtype", "get_device_name", "get_device_properties", "get_rng_state",
    "get_rng_state_all", "init", "initial_seed", "is_available", "is_initialized",
    "manual_seed", "manual_seed_all", "max_memory_allocated", "max_memory_reserved",
    "mem_get_info", "memory_allocated", "memory_reserved", "memory_snapshot", "memory_stats",
    "memory_summary", "reset_accumulated_memory_stats", "reset_peak_memory_stats", "seed",
    "seed_all", "set_device", "set_rng_state", "set_rng_state_all", "set_stream", "stream",
    "synchronize",
]
