"""torch.profiler on tpu (csrc/profiler, runtime/trace.h) and the allocator's
memory history (torch.tpu.memory._record_memory_history / _snapshot).

One profiled run (module fixture) feeds the trace checks: Kineto's setup
costs more than the checks themselves."""

import json
import pickle

import pytest
import torch
from torch.cuda import _memory_viz
from torch.profiler import ProfilerActivity, profile

import torch_tpu

ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]
N = 4096  # float32 elements: 16 KiB


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    x_cpu = torch.arange(N, dtype=torch.float32)
    side = torch.tpu.Stream()
    with profile(activities=ACTIVITIES, profile_memory=True) as prof:
        x = x_cpu.to("tpu")  # H2D
        y = x + 1  # kernel on the default stream
        side.wait_stream(torch.tpu.current_stream())
        with torch.tpu.stream(side):
            z = y * 2  # kernel on the side stream
        torch.tpu.current_stream().wait_stream(side)
        z.record_stream(torch.tpu.current_stream())
        out = z.cpu()  # D2H
        peer = z.to("tpu:1")  # D2D, run by tpu:1
        scratch = torch.empty(N, device="tpu")
        del scratch  # a device free the profiler sees
    path = tmp_path_factory.mktemp("prof") / "trace.json"
    prof.export_chrome_trace(str(path))
    with open(path) as f:
        trace = json.load(f)
    return {"prof": prof, "events": trace["traceEvents"], "out": out, "peer": peer.cpu(),
            "expected": (x_cpu + 1) * 2}


def _device_events(events, cat):
    return [e for e in events if e.get("cat") == cat and e.get("ph") == "X"]


def _lane_names(events):
    """(pid, tid) -> thread name and pid -> process name, from the metadata
    events (Kineto repeats some; a second, different name would leave
    viewers to choose)."""
    threads, procs = {}, {}
    for e in events:
        if e.get("ph") == "M" and e["name"] in ("thread_name", "process_name"):
            names, key = (threads, (e["pid"], e["tid"])) if e["name"] == "thread_name" else (procs, e["pid"])
            assert names.get(key, e["args"]["name"]) == e["args"]["name"], (key, names[key], e)
            names[key] = e["args"]["name"]
    return threads, procs


def test_profiled_results_match_cpu(run):
    torch.testing.assert_close(run["out"], run["expected"], rtol=0, atol=0)
    torch.testing.assert_close(run["peer"], run["expected"], rtol=0, atol=0)


def test_kernels_on_one_lane_per_stream(run):
    kernels = _device_events(run["events"], "kernel")
    by_op = {e["args"].get("op"): e for e in kernels}
    assert "aten::add" in by_op and "aten::mul" in by_op, sorted(map(str, by_op))
    add, mul = by_op["aten::add"], by_op["aten::mul"]
    assert add["name"] == "add" and mul["name"] == "mul"
    assert add["pid"] == mul["pid"] == 0  # tpu:0
    assert add["tid"] == 0 and add["args"]["stream"] == 0  # the default stream
    assert mul["tid"] == mul["args"]["stream"] != 0  # the side stream has its own lane
    threads, procs = _lane_names(run["events"])
    assert procs[0] == "tpu:0" and procs[1] == "tpu:1"
    assert threads[(0, 0)] == threads[(1, 0)] == "stream 0"
    assert threads[(0, mul["tid"])] == f"stream {mul['tid']}"
    assert all(e["dur"] >= 0 for e in kernels)


def test_kernels_follow_the_ops_that_launched_them(run):
    events = run["events"]
    ops = {e["name"]: e for e in events if e.get("cat") == "cpu_op" and e["name"] in ("aten::add", "aten::mul")}
    kernels = {e["args"].get("op"): e for e in _device_events(events, "kernel")}
    launches = [e for e in events if e.get("name") == "tpuLaunchKernel" and e.get("ph") == "X"]
    for name in ("aten::add", "aten::mul"):
        op, kernel = ops[name], kernels[name]
        # Same clock: the device starts the kernel after the op began launching it.
        assert kernel["ts"] >= op["ts"]
        assert kernel["args"]["correlation"] > 0
        # The launch call lies inside its op on the same host thread.
        launch = [e for e in launches if e["args"]["correlation"] == kernel["args"]["correlation"]]
        assert len(launch) == 1
        assert launch[0]["tid"] == op["tid"]
        assert op["ts"] <= launch[0]["ts"] and launch[0]["ts"] + launch[0]["dur"] <= op["ts"] + op["dur"] + 1


def test_flow_arrows_link_launch_to_kernel(run):
    events = run["events"]
    starts = {e["id"]: e for e in events if e.get("ph") == "s" and e.get("cat") == "ac2g"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f" and e.get("cat") == "ac2g"}
    kernels = _device_events(events, "kernel")
    assert kernels and starts and set(starts) == set(ends)
    for k in kernels:
        arrow_ends = [f for f in ends.values() if (f["pid"], f["tid"], f["ts"]) == (k["pid"], k["tid"], k["ts"])]
        assert len(arrow_ends) == 1, k
        start = starts[arrow_ends[0]["id"]]
        assert start["pid"] != k["pid"] or start["tid"] != k["tid"]  # from a host thread


def test_memcpy_events_carry_bytes(run):
    copies = _device_events(run["events"], "gpu_memcpy")
    names = {e["name"]: e for e in copies}
    h2d, d2h = names["Memcpy HtoD (Host -> Device)"], names["Memcpy DtoH (Device -> Host)"]
    d2d = names["Memcpy DtoD (Device -> Device)"]
    assert h2d["args"]["bytes"] == d2h["args"]["bytes"] == d2d["args"]["bytes"] == N * 4
    assert (h2d["pid"], d2h["pid"], d2d["pid"]) == (0, 0, 1)  # tpu:1's default stream ran the peer copy
    # The innermost op on the launching thread: copy_ dispatches to _copy_from.
    assert h2d["args"]["op"] == d2h["args"]["op"] == "aten::_copy_from"
    assert h2d["ts"] <= d2h["ts"]


def test_key_averages_report_device_time(run):
    averages = {a.key: a for a in run["prof"].key_averages()}
    for name in ("aten::add", "aten::mul"):
        assert averages[name].self_device_time_total > 0, name
        assert averages[name].device_time_total >= averages[name].self_device_time_total
    # The kernels' own rows, and the copies charged to the op that launched them.
    assert averages["add"].self_device_time_total == averages["aten::add"].self_device_time_total
    assert averages["aten::_copy_from"].self_device_time_total > 0
    assert averages["Memcpy HtoD (Host -> Device)"].count == 1


def test_profile_memory_shows_device_memory(run):
    mem = [e for e in run["events"] if e.get("name") == "[memory]"]
    device = [e for e in mem if e["args"].get("Device Type") == int(torch._C._autograd.DeviceType.PrivateUse1)]
    # x, y, z, peer (on tpu:1) and scratch allocated, then scratch freed.
    assert [e["args"]["Bytes"] for e in device] == [N * 4] * 5 + [-N * 4], device
    totals = [e["args"]["Total Allocated"] for e in device]
    assert totals[-1] == totals[-2] - N * 4 and totals[1] == totals[0] + N * 4
    averages = {a.key: a for a in run["prof"].key_averages()}
    assert averages["aten::add"].device_memory_usage == N * 4


def test_nothing_recorded_while_the_profiler_is_off():
    x = torch.ones(64, device="tpu")
    before = torch_tpu._C._trace_record_count()
    assert not torch_tpu._C._tracing()
    (x + 1).cpu()
    with profile(activities=[ProfilerActivity.CPU]):  # no device activity asked for
        (x * 3).cpu()
    assert torch_tpu._C._trace_record_count() == before


def test_memory_snapshot_reads_in_pytorch_visualizer(tmp_path):
    # Blocks cached by earlier tests would serve `kept` without a new segment
    # (the trace's "cudaMalloc(" line below).
    torch.tpu.synchronize()
    torch.tpu.empty_cache()
    torch.tpu.memory._record_memory_history(max_entries=1000)
    try:
        kept = torch.empty(3 * 1024 * 1024 // 4, device="tpu")  # a block of its own
        dropped = torch.empty(1000, device="tpu")
        del dropped
        snap = torch.tpu.memory._snapshot()
        torch.tpu.memory._dump_snapshot(str(tmp_path / "snap.pickle"))
    finally:
        torch.tpu.memory._record_memory_history(enabled=None)
    trace = snap["device_traces"][0]
    actions = [e["action"] for e in trace]
    assert "alloc" in actions and "free_requested" in actions and "free_completed" in actions
    alloc = next(e for e in trace if e["action"] == "alloc" and e["addr"] == kept.data_ptr())
    assert alloc["size"] == kept.numel() * 4
    assert any(f["filename"] == __file__ for f in alloc["frames"]), alloc["frames"][:3]
    block = next(b for s in snap["segments"] for b in s["blocks"] if b["address"] == kept.data_ptr())
    assert block["state"] == "active_allocated"
    assert any(f["filename"] == __file__ for f in block["frames"])
    # PyTorch's own readers of a snapshot.
    text = _memory_viz.trace(snap)
    assert text.startswith("Device 0") and "del " in text and "cudaMalloc(" in text, text[:300]
    assert "3.0MiB" in _memory_viz.segsum(snap)
    assert "<html>" in _memory_viz.trace_plot(snap)
    with open(tmp_path / "snap.pickle", "rb") as f:
        assert pickle.load(f)["device_traces"][0]
    # Off again: nothing kept.
    assert torch.tpu.memory._snapshot()["device_traces"] == [[] for _ in range(torch.tpu.device_count())]


def test_memory_history_modes_and_bound():
    try:
        torch.tpu.memory._record_memory_history(max_entries=2, stacks="python")
        a, b, c = (torch.empty(100 + i, device="tpu") for i in range(3))
        trace = torch.tpu.memory._snapshot()["device_traces"][0]
        assert [(e["action"], e["addr"]) for e in trace] == [("alloc", b.data_ptr()), ("alloc", c.data_ptr())]
        assert all(f["filename"] != "??" for f in trace[0]["frames"])  # Python frames only
        torch.tpu.memory._record_memory_history(enabled="state")  # stacks of live blocks, no events
        d = torch.empty(200, device="tpu")
        snap = torch.tpu.memory._snapshot()
        assert snap["device_traces"][0] == []
        block = next(b for s in snap["segments"] for b in s["blocks"] if b["address"] == d.data_ptr())
        assert any(f["filename"] == __file__ for f in block["frames"])
    finally:
        torch.tpu.memory._record_memory_history(enabled=None)
    del a, b, c, d


def test_record_memory_history_rejects_bad_arguments():
    with pytest.raises(ValueError, match="enabled"):
        torch.tpu.memory._record_memory_history(enabled="sometimes")
    with pytest.raises(ValueError, match="stacks"):
        torch.tpu.memory._record_memory_history(stacks="cpp")


def test_profile_gpt_example_writes_trace_and_snapshot(tmp_path, capsys):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "profile_gpt.py"
    spec = importlib.util.spec_from_file_location("profile_gpt", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "gpt"
    assert example.main(["--steps", "1", "--out", str(out)]) == 0
    assert "Self TPU" in capsys.readouterr().out
    with open(f"{out}.trace.json") as f:
        events = json.load(f)["traceEvents"]
    kernels = _device_events(events, "kernel")
    # Forward and backward (the autograd engine's thread) kernels, each charged
    # to its op (the fused attention's backward runs on the engine's thread).
    assert {"aten::addmm", "aten::mm", "aten::_log_softmax_backward_data",
            "aten::_scaled_dot_product_fused_attention_overrideable_backward"} <= {k["args"].get("op") for k in kernels}
    assert all("op" in k["args"] for k in kernels)
    with open(f"{out}.memory.pickle", "rb") as f:
        snap = pickle.load(f)
    assert any(e["action"] == "alloc" for e in snap["device_traces"][0])
    assert _memory_viz.trace(snap)
