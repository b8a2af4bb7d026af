"""The caching allocator: pooling, statistics, out-of-memory behaviour."""

import os
import subprocess
import sys

import pytest
import torch

MiB = 1 << 20


def test_stats_track_allocations():
    torch.tpu.reset_peak_memory_stats()
    base = torch.tpu.memory_allocated()
    x = torch.empty(3 * MiB, dtype=torch.uint8, device="tpu")
    assert torch.tpu.memory_allocated() == base + 3 * MiB
    assert torch.tpu.memory_reserved() >= torch.tpu.memory_allocated()
    stats = torch.tpu.memory_stats()
    assert stats == torch.accelerator.memory_stats()
    for key in ("allocated_bytes.all.current", "reserved_bytes.large_pool.peak",
                "allocation.small_pool.allocated", "active_bytes.all.freed",
                "inactive_split_bytes.all.current", "requested_bytes.all.current",
                "num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free"):
        assert key in stats, key
    assert stats["requested_bytes.all.current"] >= 3 * MiB
    del x
    assert torch.tpu.memory_allocated() == base
    assert torch.tpu.max_memory_allocated() >= base + 3 * MiB
    torch.tpu.reset_peak_memory_stats()
    assert torch.tpu.max_memory_allocated() == torch.tpu.memory_allocated()


def test_blocks_are_reused_and_split():
    a = torch.empty(1000, device="tpu")          # small pool, 2 MiB segment
    b = torch.empty(1000, device="tpu")
    assert b.data_ptr() - a.data_ptr() == 4096   # split from the same segment
    ptr = a.data_ptr()
    del a
    c = torch.empty(1000, device="tpu")
    assert c.data_ptr() == ptr                   # cached block reused, same stream
    before = torch.tpu.memory_stats()["num_device_alloc"]
    d = torch.empty(5000, device="tpu")
    assert torch.tpu.memory_stats()["num_device_alloc"] == before
    del b, c, d


def test_empty_cache_returns_memory():
    x = torch.empty(64 * MiB, dtype=torch.uint8, device="tpu")
    del x
    assert torch.tpu.memory_reserved() >= 64 * MiB
    free_before, total = torch.tpu.mem_get_info()
    torch.tpu.empty_cache()
    free_after, _ = torch.tpu.mem_get_info()
    assert free_after >= free_before + 64 * MiB
    assert torch.accelerator.get_memory_info() == torch.tpu.mem_get_info()
    assert total == torch.tpu.get_device_properties().total_memory


def test_out_of_memory_is_recoverable():
    total = torch.tpu.get_device_properties(0).total_memory
    ooms = torch.tpu.memory_stats()["num_ooms"]
    with pytest.raises(torch.OutOfMemoryError, match="TPU out of memory. Tried to allocate"):
        torch.empty(total + MiB, dtype=torch.uint8, device="tpu")
    assert torch.tpu.memory_stats()["num_ooms"] == ooms + 1
    # still usable
    y = torch.ones(1000).to("tpu")
    assert torch.equal(y.cpu(), torch.ones(1000))
    del y


def test_oom_under_a_small_budget_frees_the_cache_first():
    """With a 64 MiB device, cached blocks are released before giving up."""
    code = """
import torch, torch_tpu
MiB = 1 << 20
a = torch.empty(40 * MiB, dtype=torch.uint8, device="tpu")
del a                                   # cached, not freed
b = torch.empty(50 * MiB, dtype=torch.uint8, device="tpu")   # needs the cache back
stats = torch.tpu.memory_stats()
assert stats["num_alloc_retries"] == 1, stats["num_alloc_retries"]
try:
    torch.empty(60 * MiB, dtype=torch.uint8, device="tpu")
    raise SystemExit("expected OutOfMemoryError")
except torch.OutOfMemoryError as e:
    assert "tpu:0 has a total capacity of 64.00 MiB" in str(e), str(e)
del b
c = torch.empty(60 * MiB, dtype=torch.uint8, device="tpu")
print("ok")
"""
    env = dict(os.environ, TORCH_TPU_DEVICE_MEMORY="64MiB")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_memory_snapshot_and_summary():
    x = torch.empty(1000, device="tpu")
    snap = torch.tpu.memory_snapshot()
    seg = next(s for s in snap if s["address"] <= x.data_ptr() < s["address"] + s["total_size"])
    assert seg["segment_type"] == "small" and seg["device"] == 0
    block = next(b for b in seg["blocks"] if b["address"] == x.data_ptr())
    assert block["state"] == "active_allocated" and block["requested_size"] == 4000
    assert sum(b["size"] for b in seg["blocks"]) == seg["total_size"]
    summary = torch.tpu.memory_summary()
    assert "Allocated memory" in summary and "tpu:0" in summary
    del x


def test_memory_is_per_device():
    before = torch.tpu.memory_allocated(1)
    x = torch.empty(MiB, dtype=torch.uint8, device="tpu:1")
    assert torch.tpu.memory_allocated(1) == before + MiB
    assert torch.tpu.memory_allocated("tpu:1") == before + MiB
    del x


def test_pinned_host_memory():
    x = torch.randn(1000)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    assert torch.equal(p, x)
    q = torch.empty(10, pin_memory=True)
    assert q.is_pinned()
    torch.accelerator.empty_host_cache()


def test_no_leaks_across_the_p0_chain():
    for dtype in (torch.float32, torch.complex128, torch.bool):
        cpu = torch.zeros(33, 7, dtype=dtype)
        t = cpu.to("tpu").t().clone().to("tpu:1").cpu()
        del t
