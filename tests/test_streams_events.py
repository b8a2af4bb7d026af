"""Streams and events through torch.Stream / torch.Event / torch.accelerator and
torch.tpu, and the asynchrony they promise. Work that must not have run yet
is held behind a gate on its stream (conftest.stream_gate), never behind a
delay: these tests time nothing."""

import time

import pytest
import torch

import torch_tpu
from conftest import stream_gate

pytestmark = pytest.mark.smoke  # in the fast lane (pyproject.toml)


def test_current_and_default_streams():
    s = torch.tpu.current_stream()
    assert s.device == torch.device("tpu", 0) and s.stream_id == 0
    assert torch.tpu.default_stream(1).device_index == 1
    assert torch.accelerator.current_stream() == s


def test_stream_context_switches_device_and_stream():
    s1 = torch.tpu.Stream(device=1)
    assert s1.device_index == 1 and s1 != torch.tpu.default_stream(1)
    with torch.tpu.stream(s1):
        assert torch.tpu.current_device() == 1
        assert torch.tpu.current_stream() == s1
    assert torch.tpu.current_device() == 0
    assert torch.tpu.current_stream(1) == torch.tpu.default_stream(1)
    with s1:  # torch.Stream's own context manager
        assert torch.accelerator.current_stream(1) == s1


def test_priorities():
    high = torch.Stream(device="tpu", priority=-1)
    low = torch.Stream(device="tpu", priority=0)
    assert high.stream_id != low.stream_id
    host = torch.randn(1000)
    x = host.to("tpu")
    with torch.tpu.stream(high):
        y = x.clone()
    high.synchronize()
    assert torch.equal(y.cpu(), host)


def test_device_context_manager_and_set_device():
    with torch.tpu.device(1):
        assert torch.tpu.current_device() == 1
        assert torch.empty(3, device="tpu").device == torch.device("tpu:1")
    assert torch.tpu.current_device() == 0
    torch.accelerator.set_device_index(1)
    assert torch.accelerator.current_device_index() == 1
    torch.tpu.set_device("tpu:0")
    assert torch.tpu.current_device() == 0
    with pytest.raises(RuntimeError, match="Invalid device index: tpu:7 "):
        torch.tpu.set_device(7)


def test_work_is_asynchronous_and_query_reports_it():
    x = torch.ones(1 << 16).to("tpu")
    s = torch.tpu.current_stream()
    with stream_gate():
        y = x.clone()
        assert not s.query()          # still queued: the host did not wait
    s.synchronize()
    assert s.query()
    assert torch.equal(y.cpu(), torch.ones(1 << 16))


def test_events_record_wait_query_elapsed():
    start = torch.Event(device="tpu", enable_timing=True)
    end = torch.tpu.Event(enable_timing=True)  # accepted as elapsed_time's argument
    assert isinstance(end, torch.tpu.Event) and isinstance(end, torch.Event)
    assert not isinstance(torch.Event(device="cpu"), torch.tpu.Event)
    x = torch.ones(1 << 18).to("tpu")
    start.record()
    with stream_gate() as gate:
        y = x.clone()
        end.record()
        gate.wait_reached()               # start has been recorded on the device
        held_from = time.monotonic()
        assert not end.query()
        held = time.monotonic() - held_from
    end.synchronize()
    assert end.query()
    # The device was held at least as long as the host kept the gate shut
    # (an inequality, not a timing bound).
    assert start.elapsed_time(end) >= held * 1000
    assert torch.equal(y.cpu(), torch.ones(1 << 18))


def test_elapsed_time_needs_timing():
    a, b = torch.tpu.Event(), torch.tpu.Event()
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises(ValueError, match="enable_timing"):  # torch.Event's own check
        a.elapsed_time(b)


def test_cross_stream_ordering_with_wait_stream():
    producer = torch.tpu.Stream()
    consumer = torch.tpu.Stream()
    src = torch.arange(100000.0).to("tpu")
    torch.tpu.synchronize()
    with stream_gate(producer):
        with torch.tpu.stream(producer):
            dst = torch.empty_like(src)
            dst.copy_(src)
        consumer.wait_stream(producer)
        with torch.tpu.stream(consumer):
            out = dst.clone()
        assert not consumer.query()  # waits for the producer held at the gate
    consumer.synchronize()
    assert torch.equal(out.cpu(), torch.arange(100000.0))


def _produce_on_tpu1_consume_on_tpu0(wait: bool) -> torch.Tensor:
    """tpu:1 writes into pinned host memory, tpu:0 reads it: nothing but the
    event orders the two streams (no peer copy, which would order them
    itself). tpu:1 is held at a gate until tpu:0 has had its chance to run,
    so without the wait tpu:0 reads the buffer before tpu:1 has written it."""
    host = torch.zeros(1000).pin_memory()
    a = torch.arange(1000.0).to("tpu:1")
    torch.tpu.synchronize(1)
    ev = torch.tpu.Event()
    with stream_gate(torch.tpu.current_stream(1)):
        with torch.tpu.device(1):
            c = (a * 2) + 1
            host.copy_(c, non_blocking=True)
            ev.record()
        if wait:
            torch.tpu.current_stream(0).wait_event(ev)
        d = host.to("tpu:0", non_blocking=True)
        if not wait:
            torch.tpu.synchronize(0)  # tpu:0's read runs while tpu:1 is held
    out = d.cpu()
    torch.tpu.synchronize(1)
    return out


def test_event_wait_orders_streams_of_two_devices():
    assert torch.equal(_produce_on_tpu1_consume_on_tpu0(wait=True), torch.arange(1000.0) * 2 + 1)
    # The control: the same program without the wait reads the stale buffer,
    # so the check above is one a no-op Event.wait would fail.
    assert torch.equal(_produce_on_tpu1_consume_on_tpu0(wait=False), torch.zeros(1000))


def test_a_missing_sync_reads_stale_data():
    """A non-blocking D2H copy into pinned memory read without synchronising
    sees stale data; the same read after synchronize() is right."""
    x = torch.full((4096,), 7.0).to("tpu")
    out = torch.zeros(4096).pin_memory()
    torch.tpu.synchronize()
    with stream_gate():
        out.copy_(x, non_blocking=True)
        stale = out.clone()            # host read, no sync: the copy has not run
    torch.tpu.synchronize()
    assert torch.equal(stale, torch.zeros(4096))
    assert torch.equal(out, torch.full((4096,), 7.0))


def test_non_blocking_h2d_from_pageable_memory_does_not_wait():
    x = torch.randn(1 << 16)
    torch.tpu.synchronize()
    before = dict(torch_tpu.stats()["syncs"])
    with stream_gate():
        t = x.to("tpu", non_blocking=True)
        assert not torch.tpu.current_stream().query()   # returned before the device ran
        x.fill_(0.0)                                      # the host buffer may be reused at once
    assert torch_tpu.stats()["syncs"] == before
    assert not torch.equal(t.cpu(), x)                    # the copy saw the old values


def test_blocking_copies_and_item_wait_for_the_device():
    # The gate opens from another thread once the host has started waiting
    # (the sync counter moved): a copy or item() that did not wait would read
    # y before the clone behind the gate wrote it.
    import threading

    x = torch.full((1024,), 3.0).to("tpu")
    for read in (lambda y: torch.equal(y.cpu(), torch.full((1024,), 3.0)),  # D2H into pageable
                 lambda y: y[5].item() == 3.0):                              # item()
        torch.tpu.synchronize()
        syncs = sum(torch_tpu.stats()["syncs"].values())
        with stream_gate() as gate:
            y = x.clone()

            def open_when_waiting():
                while sum(torch_tpu.stats()["syncs"].values()) == syncs:
                    time.sleep(0)  # yields; the host thread is about to block
                gate.open()

            opener = threading.Thread(target=open_when_waiting)
            opener.start()
            assert read(y)
            opener.join()


def test_record_stream_delays_reuse():
    side = torch.tpu.Stream()
    torch.tpu.synchronize()
    x = torch.ones(1 << 16).to("tpu")
    with stream_gate(side):
        with torch.tpu.stream(side):
            y = x.clone()                   # side stream still reading x
        x.record_stream(side)
        ptr = x.data_ptr()
        del x
        z = torch.empty(1 << 16, device="tpu")
        assert z.data_ptr() != ptr          # x's block is not handed out yet
        z.fill_(5.0)
    side.synchronize()
    assert torch.equal(y.cpu(), torch.ones(1 << 16))


def test_synchronize_all_ways():
    torch.tpu.synchronize()
    torch.tpu.synchronize(1)
    torch.accelerator.synchronize()
    torch.tpu.current_stream().synchronize()
    assert torch_tpu.stats()["syncs"]["torch.tpu.synchronize"] >= 2


def test_external_stream_runs_torch_work_in_order_with_its_creator():
    """ExternalStream / get_stream_from_external wrap a stream another library
    created with the runtime's API (here from Python): torch's work on it is
    queued on that very stream, and torch never destroys it."""
    from torch_tpu import _C

    handle = _C._runtime_stream_create(1, 0)
    try:
        ext = torch.tpu.ExternalStream(handle, device="tpu:1")
        assert isinstance(ext, torch.tpu.Stream) and ext.device == torch.device("tpu:1")
        assert ext.native_handle == handle
        same = torch.tpu.get_stream_from_external(handle, 1)
        assert same == ext and same.stream_id == ext.stream_id
        src = torch.arange(100000.0).to("tpu:1")
        torch.tpu.synchronize(1)
        with torch.tpu.stream(ext):
            assert torch.tpu.current_stream(1) == ext
            with stream_gate():
                out = src * 2
                assert not ext.query()  # still queued on the external stream
        ext.synchronize()
        assert ext.query()
        assert torch.equal(out.cpu(), torch.arange(100000.0) * 2)
        # another device's stream is refused
        with pytest.raises(RuntimeError, match="belongs to tpu:1"):
            torch.tpu.ExternalStream(handle, device="tpu:0")
    finally:
        torch.tpu.synchronize(1)
        _C._runtime_stream_destroy(handle)
