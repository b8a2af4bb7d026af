"""Device memory: the caching allocator's statistics, snapshot and cache.

The numbers come from the allocator through torch.accelerator, so
torch.tpu.memory_stats() and torch.accelerator.memory_stats() agree."""

from __future__ import annotations

import pickle
import sys
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

import torch

from .. import _C
from .device import _DeviceLike, _device_index


def memory_stats(device: _DeviceLike = None) -> "OrderedDict[str, Any]":
    """Flat statistics, keyed like torch.cuda.memory_stats()
    ("allocated_bytes.all.current", "num_ooms", ...)."""
    return torch.accelerator.memory_stats(_device_index(device))


def memory_allocated(device: _DeviceLike = None) -> int:
    """Bytes occupied by tensors on the device."""
    return torch.accelerator.memory_allocated(_device_index(device))


def max_memory_allocated(device: _DeviceLike = None) -> int:
    return torch.accelerator.max_memory_allocated(_device_index(device))


def memory_reserved(device: _DeviceLike = None) -> int:
    """Bytes held by the caching allocator (allocated plus cached)."""
    return torch.accelerator.memory_reserved(_device_index(device))


def max_memory_reserved(device: _DeviceLike = None) -> int:
    return torch.accelerator.max_memory_reserved(_device_index(device))


def reset_peak_memory_stats(device: _DeviceLike = None) -> None:
    torch.accelerator.reset_peak_memory_stats(_device_index(device))


def reset_accumulated_memory_stats(device: _DeviceLike = None) -> None:
    torch.accelerator.reset_accumulated_memory_stats(_device_index(device))


def empty_cache() -> None:
    """Returns every cached, unused block of every device to the device."""
    torch.accelerator.empty_cache()


def mem_get_info(device: _DeviceLike = None) -> Tuple[int, int]:
    """(free, total) bytes of the device's memory budget."""
    return _C._mem_get_info(_device_index(device))


def device_memory_used(device: _DeviceLike = None) -> int:
    """Bytes of the device's memory in use, as nvidia-smi reports a GPU's:
    what the caching allocator holds (reserved), and so what no other
    allocation can have, rather than what live tensors occupy
    (memory_allocated). The simulated device belongs to this process, so
    there is no other process's share to add."""
    free, total = mem_get_info(device)
    return total - free


def memory_snapshot() -> List[Dict[str, Any]]:
    """One dict per segment (device allocation) with its blocks, as
    torch.cuda.memory_snapshot() lists them."""
    return _C._memory_snapshot()


def _record_memory_history(
    enabled: Optional[str] = "all",
    context: Optional[str] = "all",
    stacks: str = "all",
    max_entries: int = sys.maxsize,
    device: _DeviceLike = None,
) -> None:
    """Records the allocator's history, as torch.cuda.memory._record_memory_history.

    enabled: "all" keeps the last `max_entries` alloc/free/segment events of
    every device; "state" keeps only the stacks of live blocks; None stops
    and drops everything recorded. context: which stacks are kept (None:
    none; "state" or "alloc": of each allocation, its block and its event;
    "all": of frees too). stacks: "python" or "all" (Python and C++
    frames). `device` is
    accepted for torch.cuda's signature; the history covers every device.
    """
    if enabled is True or enabled is False:  # torch.cuda's legacy boolean form
        enabled = "all" if enabled else None
    if enabled not in (None, "state", "all"):
        raise ValueError(f"enabled must be None, 'state' or 'all', got {enabled!r}")
    if context not in (None, "state", "alloc", "all"):
        raise ValueError(f"context must be None, 'state', 'alloc' or 'all', got {context!r}")
    if stacks not in ("python", "all"):
        raise ValueError(f"stacks must be 'python' or 'all', got {stacks!r}")
    if not isinstance(max_entries, int) or max_entries < 0:
        raise ValueError(f"max_entries must be a non-negative int, got {max_entries!r}")
    if device is not None:
        _device_index(device)  # validates it
    _C._record_memory_history(
        enabled is not None,
        enabled == "all",
        context is not None,
        context == "all",
        stacks == "all",
        max_entries,
    )


def _snapshot(device: _DeviceLike = None) -> Dict[str, Any]:
    """The allocator's state and recorded history, shaped like
    torch.cuda.memory._snapshot(): "segments" (memory_snapshot(), blocks with
    the "frames" of their allocation) and "device_traces" (one event list
    per device). torch/cuda/_memory_viz.py and https://pytorch.org/memory_viz
    read it."""
    if device is not None:
        _device_index(device)
    return {
        "segments": memory_snapshot(),
        "device_traces": _C._memory_history(),
        "allocator_settings": {},
    }


def _dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
    """Writes _snapshot() as a pickle, the file https://pytorch.org/memory_viz opens."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)


def _format_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


def memory_summary(device: _DeviceLike = None, abbreviated: bool = False) -> str:
    """A printable table of the allocator statistics of one device."""
    idx = _device_index(device)
    stats = memory_stats(idx)
    metrics = [
        ("allocated_bytes", "Allocated memory", _format_bytes),
        ("active_bytes", "Active memory", _format_bytes),
        ("requested_bytes", "Requested memory", _format_bytes),
        ("reserved_bytes", "Device reserved memory", _format_bytes),
        ("inactive_split_bytes", "Non-releasable memory", _format_bytes),
        ("allocation", "Allocations", str),
        ("active", "Active allocs", str),
        ("segment", "Device reserved segments", str),
        ("inactive_split", "Non-releasable allocs", str),
    ]
    pools = [("all", "")] if abbreviated else [("all", ""), ("large_pool", "  from large pool"),
                                                ("small_pool", "  from small pool")]
    width = 26
    cols = ("current", "peak", "allocated", "freed")
    lines = ["=" * 86,
             f" torch_tpu memory summary, device tpu:{idx}",
             "-" * 86,
             f"{'Metric':<{width}}" + "".join(f"{c:>15}" for c in
                                              ("Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed")),
             "-" * 86]
    for key, label, fmt in metrics:
        for pool, suffix in pools:
            name = label if not suffix else suffix
            values = [stats.get(f"{key}.{pool}.{c}", 0) for c in cols]
            lines.append(f"{name:<{width}}" + "".join(f"{fmt(v):>15}" for v in values))
    lines.append("-" * 86)
    for key in ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free",
                "num_sync_all_streams"):
        lines.append(f"{key:<{width}}{stats.get(key, 0):>15}")
    lines.append("=" * 86)
    return "\n".join(lines) + "\n"


def _nested(flat: Dict[str, Any]) -> Dict[str, Any]:
    """{"a.b.c": v} -> {"a": {"b": {"c": v}}}."""
    nested: Dict[str, Any] = {}
    for key, value in flat.items():
        node = nested
        *path, leaf = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def memory_stats_as_nested_dict(device: _DeviceLike = None) -> Dict[str, Any]:
    """memory_stats() as nested dicts: {"allocated_bytes": {"all": {"current": ...}}}."""
    return _nested(memory_stats(device))


def reset_max_memory_allocated(device: _DeviceLike = None) -> None:
    """As torch.cuda's (which now resets every peak statistic)."""
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: _DeviceLike = None) -> None:
    reset_peak_memory_stats(device)


def set_per_process_memory_fraction(fraction: float, device: _DeviceLike = None) -> None:
    """Lets this process reserve at most fraction x the device's memory; an
    allocation beyond it raises torch.OutOfMemoryError (after the cache is
    emptied), as with CUDA."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    _C._set_memory_fraction(fraction, _device_index(device))


def get_per_process_memory_fraction(device: _DeviceLike = None) -> float:
    return _C._get_memory_fraction(_device_index(device))


def memory_cached(device: _DeviceLike = None) -> int:
    """Deprecated alias of memory_reserved (as in torch.cuda)."""
    return memory_reserved(device)


def max_memory_cached(device: _DeviceLike = None) -> int:
    """Deprecated alias of max_memory_reserved (as in torch.cuda)."""
    return max_memory_reserved(device)


_raw_blocks: Dict[int, torch.UntypedStorage] = {}


def caching_allocator_alloc(size: int, device: _DeviceLike = None, stream=None) -> int:
    """Device memory of `size` bytes from the caching allocator, as an address
    (for code that manages raw buffers); free it with caching_allocator_delete.
    `stream`: the stream it will be used on (default: the current one)."""
    from .streams import stream as stream_context

    idx = _device_index(device)
    with stream_context(stream):
        storage = torch.UntypedStorage(int(size), device=torch.device("tpu", idx))
    ptr = storage.data_ptr()
    if ptr:
        _raw_blocks[ptr] = storage
    return ptr


def caching_allocator_delete(mem_ptr: int) -> None:
    """Gives back memory from caching_allocator_alloc."""
    if mem_ptr and _raw_blocks.pop(mem_ptr, None) is None:
        raise ValueError(f"{mem_ptr:#x} was not allocated by torch.tpu.caching_allocator_alloc")


def host_memory_stats() -> "OrderedDict[str, Any]":
    """Statistics of the pinned-host caching allocator (pin_memory()), keyed
    as torch.cuda.host_memory_stats()."""
    return OrderedDict(sorted(_C._host_memory_stats().items()))


def host_memory_stats_as_nested_dict() -> Dict[str, Any]:
    return _nested(host_memory_stats())


def reset_accumulated_host_memory_stats() -> None:
    _C._reset_accumulated_host_memory_stats()


def reset_peak_host_memory_stats() -> None:
    _C._reset_peak_host_memory_stats()


def graph_pool_handle() -> Tuple[int, int]:
    """An opaque id of a new memory pool, for graphs that should share one
    (`pool=` of TPUGraph.capture_begin and torch.tpu.graph) and MemPool."""
    return tuple(_C._graph_pool_handle())


class MemPool:
    """A private memory pool of the caching allocator, as torch.cuda.MemPool:
    allocations made under `use_mem_pool(pool)` come from it (and go back to
    it when freed); `pool.id` may also be given to a graph capture (`pool=`).
    Its memory returns to the device once the pool object and every tensor
    in it are gone."""

    def __init__(self, device: _DeviceLike = None):
        self._device = _device_index(device)
        self._id = graph_pool_handle()
        _C._mempool_retain(self._device, self._id)

    @property
    def id(self) -> Tuple[int, int]:
        return self._id

    def use_count(self) -> int:
        """Holders of the pool: this object, open use_mem_pool blocks, graphs."""
        return _C._mempool_use_count(self._device, self._id)

    def snapshot(self) -> List[Dict[str, Any]]:
        """memory_snapshot() entries of the pool's segments."""
        return [s for s in memory_snapshot() if tuple(s["segment_pool_id"]) == self._id]

    def __del__(self):
        try:
            _C._mempool_release(self._device, self._id)
        except Exception:  # interpreter shutdown
            pass


class use_mem_pool:
    """Context manager: this thread's allocations on the pool's device (or
    `device`) come from `pool` inside the block, as torch.cuda.use_mem_pool."""

    def __init__(self, pool: MemPool, device: _DeviceLike = None):
        self.pool = pool
        self.device = pool._device if device is None else _device_index(device)

    def __enter__(self):
        _C._mempool_begin_thread(self.device, self.pool.id)
        return self.pool

    def __exit__(self, *exc) -> bool:
        _C._mempool_end_thread(self.device, self.pool.id)
        return False
