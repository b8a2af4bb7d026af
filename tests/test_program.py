"""torch_tpu.program: compile (torch.export), the contract, save/load in a
fresh process, the platform check, registered handles, resident data and
the host/device time split."""

import json
import os
import subprocess
import sys

import pytest
import torch

import torch_tpu
from torch_tpu.program import CompiledProgram, PlatformMismatchError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 8)
        self.bn = torch.nn.BatchNorm1d(8)

    def forward(self, x, scale):
        h = self.bn(self.lin(x))
        return torch.relu(h) * scale, h.sum()


def make():
    torch.manual_seed(0)
    return Net().eval(), torch.randn(4, 16), torch.tensor(2.0)


def test_contract():
    model, x, s = make()
    prog = torch_tpu.program.compile(model, (x, s))
    assert prog.param_names == ["lin.weight", "lin.bias", "bn.weight", "bn.bias", "bn.running_mean",
                                "bn.running_var", "bn.num_batches_tracked"]
    assert [(i["shape"], i["dtype"]) for i in prog.input_specs] == [([4, 16], "float32"), ([], "float32")]
    assert prog.output_indices == [0, 1] and prog.has_return
    assert prog.platform["kernel_variant"] == torch_tpu._C._cpu_capability()["selected"]


def test_training_mode_buffer_updates_are_not_user_outputs():
    torch.manual_seed(0)
    model = Net().train()
    prog = torch_tpu.program.compile(model, (torch.randn(4, 16), torch.tensor(1.0)))
    # BatchNorm's running statistics come out of the graph as buffer updates.
    assert len(prog.exported.graph_signature.output_specs) > len(prog.output_indices) == 2


def test_one_shot_runs_cpu_in_cpu_out_and_tpu_in_tpu_out():
    model, x, s = make()
    prog = torch_tpu.program.compile(model, (x, s))
    ref = model(x, s)
    out = prog(x, s)
    assert out[0].device.type == "cpu"
    torch.testing.assert_close(out[0], ref[0])
    torch.testing.assert_close(out[1], ref[1], rtol=1e-5, atol=1e-5)
    out = prog(x.to("tpu"), s.to("tpu"))
    assert out[0].device.type == "tpu"
    torch.testing.assert_close(out[0].cpu(), ref[0])


def test_registered_handle_runs_batches_and_counts_copies():
    model, x, s = make()
    prog = torch_tpu.program.compile(model, (x, s))
    torch_tpu.reset_stats()
    with prog.register() as handle:
        for _ in range(3):
            xi = torch.randn(4, 16)
            out = handle(xi, s)
            torch.testing.assert_close(out[0], model(xi, s)[0])
        counts = torch_tpu.stats()["program"]
        assert counts == {"calls": 3, "h2d_inputs": 6, "resident_inputs": 0, "d2h_outputs": 6,
                          "resident_outputs": 0}
        # Resident: tpu tensors skip both copies, and outputs stay on tpu.
        torch_tpu.reset_stats()
        launches = torch_tpu.stats()["launches"]
        xt, st = x.to("tpu"), s.to("tpu")
        copies_before = torch_tpu.stats()["copies"].get("h2d", {}).get("calls", 0)
        out = handle(xt, st)
        assert out[0].device.type == "tpu"
        torch.testing.assert_close(out[0].cpu(), model(x, s)[0])
        assert torch_tpu.stats()["copies"].get("h2d", {}).get("calls", 0) == copies_before
        # The handle's own input buffers: no copy at all, one replay.
        handle.inputs[0].copy_(xt)
        handle.inputs[1].copy_(st)
        torch.tpu.synchronize()
        launches = torch_tpu.stats()["launches"]
        out = handle(*handle.inputs)
        torch.tpu.synchronize()
        assert torch_tpu.stats()["launches"] - launches == 1
        torch.testing.assert_close(out[0].cpu(), model(x, s)[0])
        with pytest.raises(ValueError, match="registered for"):
            handle(torch.randn(5, 16), s)
    with pytest.raises(RuntimeError, match="closed"):
        handle(x, s)


def test_benchmark_splits_host_and_device_time():
    prog = torch_tpu.program.compile(lambda a, b: (a @ b).relu(), (torch.randn(64, 64), torch.randn(64, 64)))
    with prog.register() as handle:
        a, b = torch.randn(64, 64, device="tpu"), torch.randn(64, 64, device="tpu")
        t = torch_tpu.benchmark(handle, a, b, iters=5)
    assert set(t) == {"host_wall_us", "device_wall_us", "iters"}
    assert t["host_wall_us"] > 0 and t["device_wall_us"] > 0


def test_platform_mismatch_is_refused(tmp_path):
    model, x, s = make()
    torch_tpu.program.compile(model, (x, s)).save(str(tmp_path))
    meta_path = tmp_path / "program.json"
    meta = json.loads(meta_path.read_text())
    meta["platform"]["kernel_variant"] = "avx2" if meta["platform"]["kernel_variant"] != "avx2" else "avx512"
    meta["platform"]["torch"] = "2.12.0"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(PlatformMismatchError, match="torch: saved for '2.12.0'.*kernel_variant: saved for"):
        CompiledProgram.load(str(tmp_path))
    prog = CompiledProgram.load(str(tmp_path), check_platform=False)
    torch.testing.assert_close(prog(x, s)[0], model(x, s)[0])
    with pytest.raises(FileNotFoundError, match="no saved program"):
        CompiledProgram.load(str(tmp_path / "nothing"))


def test_save_and_load_in_a_fresh_process_without_recompiling(tmp_path):
    model, x, s = make()
    torch_tpu.program.compile(model, (x, s)).save(str(tmp_path))
    torch.save({"x": x, "s": s, "ref": model(x, s)[0]}, tmp_path / "io.pt")
    code = f"""
import time, torch
t0 = time.perf_counter()
import torch_tpu
def refuse(*a, **k):
    raise AssertionError("loading a program must not trace or compile")
torch.export.export = refuse
torch.compile = refuse
prog = torch_tpu.program.CompiledProgram.load({str(tmp_path)!r})
io = torch.load({str(tmp_path / 'io.pt')!r})
with prog.register() as handle:
    out = handle(io["x"], io["s"])
torch.testing.assert_close(out[0], io["ref"])
print("ok", prog.param_names[0], round(time.perf_counter() - t0, 2))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("ok lin.weight")


def test_example_program_runs():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import program as example
    finally:
        sys.path.pop(0)
    assert example.main([]) == 0
