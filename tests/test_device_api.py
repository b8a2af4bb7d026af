"""torch.tpu names that CUDA programs call, beyond devices, streams and
memory basics: bf16 support, peers, OutOfMemoryError, the per-process memory
fraction, nested memory statistics and the sync debug mode."""

import warnings

import pytest
import torch

import torch_tpu  # noqa: F401

DEV = "tpu"


def test_simple_queries():
    assert torch.tpu.is_bf16_supported() and torch.tpu.is_bf16_supported(including_emulation=False)
    assert torch.tpu.OutOfMemoryError is torch.OutOfMemoryError
    n = torch.tpu.device_count()
    assert torch.tpu.can_device_access_peer(0, n - 1)
    with pytest.raises(ValueError, match="Invalid device id"):
        torch.tpu.can_device_access_peer(0, n)


def test_memory_stats_as_nested_dict_and_peak_resets():
    x = torch.empty(1 << 20, device=DEV)
    flat = torch.tpu.memory_stats()
    nested = torch.tpu.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == flat["allocated_bytes.all.current"] > 0
    assert nested["num_ooms"] == flat["num_ooms"]
    del x
    assert torch.tpu.max_memory_allocated() > torch.tpu.memory_allocated()
    torch.tpu.reset_max_memory_allocated()
    assert torch.tpu.max_memory_allocated() == torch.tpu.memory_allocated()


def test_device_memory_used_counts_what_the_allocator_holds():
    """nvidia-smi's view: reserved (cached) memory is used, freed or not."""
    torch.tpu.empty_cache()
    base = torch.tpu.device_memory_used()
    assert base == torch.tpu.memory_reserved()
    x = torch.empty(3 << 20, dtype=torch.uint8, device=DEV)
    held = torch.tpu.memory_reserved()
    assert held >= x.numel()
    assert torch.tpu.device_memory_used() == held == torch.tpu.mem_get_info()[1] - torch.tpu.mem_get_info()[0]
    del x
    assert torch.tpu.device_memory_used() == held  # cached, still the device's
    torch.tpu.empty_cache()
    assert torch.tpu.device_memory_used() == base
    assert torch.tpu.device_memory_used("tpu:1") == torch.tpu.memory_reserved(1)


def test_per_process_memory_fraction_is_enforced():
    free, total = torch.tpu.mem_get_info()
    assert torch.tpu.get_per_process_memory_fraction() == 1.0
    torch.tpu.empty_cache()
    try:
        torch.tpu.set_per_process_memory_fraction(0.001)
        assert torch.tpu.get_per_process_memory_fraction() == 0.001
        small = torch.empty(1024, device=DEV)  # well under the limit
        with pytest.raises(torch.OutOfMemoryError, match="set_per_process_memory_fraction"):
            torch.empty(int(total * 0.002) // 4, device=DEV)
        assert small.add_(1).sum().item() == 1024 * small[0].item()  # the process keeps working
    finally:
        torch.tpu.set_per_process_memory_fraction(1.0)
    torch.empty(int(total * 0.002) // 4, device=DEV)
    with pytest.raises(RuntimeError, match="Allowed range: 0~1"):
        torch.tpu.set_per_process_memory_fraction(1.5)
    with pytest.raises(TypeError):
        torch.tpu.set_per_process_memory_fraction(1)


def test_sync_debug_mode_warns_or_raises_on_implicit_syncs():
    x = torch.arange(4.0, device=DEV)
    assert torch.tpu.get_sync_debug_mode() == 0
    try:
        torch.tpu.set_sync_debug_mode("warn")
        assert torch.tpu.get_sync_debug_mode() == 1
        with pytest.warns(UserWarning, match=r"synchronizing tpu operation \(item\)"):
            x.sum().item()
        with pytest.warns(UserWarning, match="synchronizing tpu operation"):
            x.cpu()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            torch.tpu.synchronize()  # explicit: what the user asked for
            x + 1  # no sync at all
        torch.tpu.set_sync_debug_mode(2)
        with pytest.raises(RuntimeError, match=r"synchronizing tpu operation \(nonzero\).*error"):
            torch.nonzero(x)
    finally:
        torch.tpu.set_sync_debug_mode("default")
    assert torch.nonzero(x).numel() == 3
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        torch.tpu.set_sync_debug_mode("loud")


def test_caching_allocator_alloc_and_delete():
    before = torch.tpu.memory_allocated()
    ptr = torch.tpu.caching_allocator_alloc(4096, stream=torch.tpu.Stream())
    assert ptr != 0 and torch.tpu.memory_allocated() == before + 4096
    torch.tpu.caching_allocator_delete(ptr)
    assert torch.tpu.memory_allocated() == before
    with pytest.raises(ValueError, match="was not allocated"):
        torch.tpu.caching_allocator_delete(ptr)
    assert torch.tpu.memory_cached() == torch.tpu.memory_reserved()
    assert torch.tpu.max_memory_cached() == torch.tpu.max_memory_reserved()
    assert torch.tpu.is_tf32_supported() is False


def test_host_memory_stats():
    # Pinned blocks an earlier test's copies still used are reclaimed by the
    # next allocation once their streams finish (as CUDA's host allocator
    # does): sync and allocate once first, so none is reclaimed between the
    # two readings below.
    torch.tpu.synchronize()
    torch.empty(1, pin_memory=True)  # freed at once: only its reclaiming pass matters
    torch.tpu.reset_peak_host_memory_stats()
    torch.tpu.reset_accumulated_host_memory_stats()
    before = torch.tpu.host_memory_stats()
    pinned = torch.empty(1 << 20, pin_memory=True)
    after = torch.tpu.host_memory_stats()
    assert after["active_requests.current"] == before["active_requests.current"] + 1
    assert after["active_bytes.current"] >= before["active_bytes.current"] + (1 << 22)
    assert torch.tpu.host_memory_stats_as_nested_dict()["active_bytes"]["peak"] >= 1 << 22
    del pinned


def test_mem_pool_routes_this_threads_allocations():
    import threading

    pool = torch.tpu.MemPool()
    assert pool.use_count() == 1
    with torch.tpu.use_mem_pool(pool):
        assert pool.use_count() == 2
        x = torch.empty(1 << 18, device=DEV)
        seen = {}
        t = threading.Thread(target=lambda: seen.update(y=torch.empty(1 << 18, device=DEV)))
        t.start()
        t.join()
    assert pool.use_count() == 1
    in_pool = {b["address"] for s in pool.snapshot() for b in s["blocks"] if b["state"] == "active_allocated"}
    assert x.data_ptr() in in_pool
    assert seen["y"].data_ptr() not in in_pool  # another thread: the default pool
    z = torch.empty(1 << 18, device=DEV)
    assert z.data_ptr() not in in_pool  # outside the block
    # A graph may capture into it.
    g = torch.tpu.TPUGraph()
    with torch.tpu.graph(g, pool=pool.id):
        w = x * 2
    assert g.pool() == pool.id
    g.replay()
    assert w.data_ptr() in {b["address"] for s in pool.snapshot() for b in s["blocks"]}
    del g, w, x
    reserved = torch.tpu.memory_reserved()
    del pool  # the last holder: its memory goes back to the device
    assert torch.tpu.memory_reserved() < reserved


def test_utilization_reads_the_devices_busy_clock():
    """NVML's measure: the share of the last second in which work ran, per
    device (its arithmetic is tested on a chosen clock in
    csrc/runtime/tests/test_utilization.cpp; nothing here waits on time).
    A device held busy at a gate reads more than 0% once it has been busy
    for a measurable share; the answer is a percentage."""
    from conftest import stream_gate

    for device in (None, "tpu:1", 1):
        u = torch.tpu.utilization(device)
        assert isinstance(u, int) and 0 <= u <= 100
    assert 0 <= torch.tpu.memory_usage() <= 100
    with pytest.raises(RuntimeError, match="Invalid device index"):
        torch.tpu.utilization(7)
    with stream_gate() as gate:
        gate.wait_reached()  # the device is running the gate's task: busy
        while torch.tpu.utilization() == 0:
            pass  # the open busy interval grows until it rounds to 1%
    assert torch.tpu.utilization() > 0


def test_device_capability_is_the_kernels_feature_level():
    """(1, minor): minor 0 AVX2, 1 AVX-512, 2 AVX-512 + bfloat16 dot products,
    3 AMX tiles: what the kernels of this process run on."""
    cap = torch.tpu.cpu_capability()
    major, minor = torch.tpu.get_device_capability()
    expected = 3 if "amx" in cap["gemm"]["bfloat16"] else {"avx2": 0, "avx512": 1, "avx512_bf16": 2}[cap["selected"]]
    assert (major, minor) == (1, expected)
    props = torch.tpu.get_device_properties(torch.tpu.device_count() - 1)
    assert (props.major, props.minor) == torch.tpu.get_device_capability("tpu:1") == (major, minor)
    with pytest.raises(RuntimeError, match=f"Invalid device index: tpu:{torch.tpu.device_count()} "):
        torch.tpu.get_device_capability(torch.tpu.device_count())
