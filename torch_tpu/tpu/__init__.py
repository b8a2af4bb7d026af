"""torch.tpu: the device module of the simulated TPU, shaped like torch.cuda."""

from __future__ import annotations

from typing import List

import torch

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
    get_device_properties,
    init,
    is_available,
    is_initialized,
    set_device,
    synchronize,
)
from .graphs import (
    TPUGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from .memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_summary,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
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
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)


def get_amp_supported_dtype() -> List[torch.dtype]:
    """Lower-precision dtypes torch.autocast("tpu", dtype=...) accepts."""
    return [torch.float16, torch.bfloat16]


__all__ = [
    "Event", "Stream", "StreamContext", "TPUGraph", "graph", "graph_pool_handle",
    "is_current_stream_capturing", "make_graphed_callables", "cpu_capability", "current_device", "current_stream", "default_generators",
    "default_stream", "device", "device_count", "device_of", "empty_cache",
    "get_amp_supported_dtype", "get_device_name", "get_device_properties", "get_rng_state",
    "get_rng_state_all", "init", "initial_seed", "is_available", "is_initialized",
    "manual_seed", "manual_seed_all", "max_memory_allocated", "max_memory_reserved",
    "mem_get_info", "memory_allocated", "memory_reserved", "memory_snapshot", "memory_stats",
    "memory_summary", "reset_accumulated_memory_stats", "reset_peak_memory_stats", "seed",
    "seed_all", "set_device", "set_rng_state", "set_rng_state_all", "set_stream", "stream",
    "synchronize",
]
