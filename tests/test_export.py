"""torch.export of a model that mixes aten ops and custom tpu operators
(torch.ops.tpu.*): exported on tpu with a dynamic batch, saved with
torch.export.save, loaded in a fresh process (which imports torch_tpu through
the torch.backends entry point) and run on tpu with eager's results.

Without torch_tpu the operators and the device do not exist. torch 2.13's
torch.export.load then raises one generic RuntimeError ("Please check the
warnings above") and logs the real error: the missing operator, by name, for
a device-neutral program (moved to the CPU with move_to_device_pass before
saving); for a program saved with tpu tensors it names the unknown device
"tpu" first (torch resolves devices before operators)."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch
from torch.export import Dim
from torch.export.passes import move_to_device_pass

import torch_tpu  # noqa: F401  (torch.ops.tpu)


class Block(torch.nn.Module):
    """RMSNorm -> rotary embedding -> linear + fused bias/GELU -> residual."""

    def __init__(self, dim: int = 16):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.norm = torch.nn.Parameter(1 + 0.1 * torch.randn(dim, generator=g))
        self.proj = torch.nn.Linear(dim, dim, bias=False)
        self.bias = torch.nn.Parameter(0.1 * torch.randn(dim, generator=g))
        positions = torch.arange(8.0)[:, None] / (10000 ** (torch.arange(0, dim, 2) / dim))
        angles = torch.cat([positions, positions], dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())

    def forward(self, x):
        h = torch.ops.tpu.rms_norm(x, self.norm, 1e-6)
        h = torch.ops.tpu.rotary_embedding(h, self.cos, self.sin)
        h = torch.ops.tpu.bias_gelu(self.proj(h), self.bias, approximate="tanh")
        return x + h


def _model_and_input(batch: int = 3):
    torch.manual_seed(0)
    model = Block().to("tpu")
    x = torch.randn(batch, 8, 16, device="tpu")
    return model, x


def _cpu_reference(model, x):
    """Block.forward on CPU in plain torch (torch_tpu.reference defines the
    custom ops), so the checks below compare against CPU, not tpu itself."""
    from torch_tpu import reference as ref

    w = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    x = x.detach().cpu()
    h = ref.rms_norm(x, w["norm"], 1e-6)
    h = ref.rotary_embedding(h, w["cos"], w["sin"])
    h = ref.bias_gelu(torch.nn.functional.linear(h, w["proj.weight"]), w["bias"], approximate="tanh")
    return x + h


def _export(model, x):
    return torch.export.export(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})


def _run_child(code: str, *args, torch_tpu_loaded: bool = True):
    env = dict(os.environ)
    if torch_tpu_loaded:
        env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    else:
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=300)


def test_exported_program_keeps_the_custom_ops_and_matches_eager():
    model, x = _model_and_input()
    ep = _export(model, x)
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    for op in ("tpu.rms_norm.default", "tpu.rotary_embedding.default", "tpu.bias_gelu.default"):
        assert op in targets, targets
    with torch.no_grad():
        for batch in (3, 5):  # the batch dimension stayed dynamic
            xb = torch.randn(batch, 8, 16, device="tpu")
            torch.testing.assert_close(ep.module()(xb).cpu(), _cpu_reference(model, xb))
    # The custom ops are not CompositeImplicit: decompositions keep them.
    decomposed = ep.run_decompositions()
    assert "tpu.bias_gelu.default" in [str(n.target) for n in decomposed.graph.nodes]
    torch.testing.assert_close(decomposed.module()(x).detach().cpu(), _cpu_reference(model, x))


LOAD_AND_RUN = """
    import sys
    import torch
    assert "torch_tpu" in sys.modules, "the torch.backends entry point did not load torch_tpu"
    path, data = sys.argv[1], sys.argv[2]
    ep = torch.export.load(path)
    saved = torch.load(data)
    if sys.argv[3] == "move":  # a device-neutral program: put it on the device
        from torch.export.passes import move_to_device_pass
        ep = move_to_device_pass(ep, "tpu")
    for x, expected in zip(saved["inputs"], saved["expected"]):
        with torch.no_grad():
            y = ep.module()(x.to("tpu"))
        assert y.device.type == "tpu", y.device
        torch.testing.assert_close(y.cpu(), expected)
    print("ran", len(saved["inputs"]), "batches on", y.device)
"""


def _save(tmp_path, ep, model, name):
    path = tmp_path / f"{name}.pt2"
    torch.export.save(ep, path)
    inputs = [torch.randn(b, 8, 16) for b in (3, 6)]
    with torch.no_grad():
        expected = [_cpu_reference(model, x) for x in inputs]
    data = tmp_path / f"{name}_data.pt"
    torch.save({"inputs": inputs, "expected": expected}, data)
    return path, data


def test_saved_program_loads_and_runs_on_tpu_in_a_fresh_process(tmp_path):
    model, x = _model_and_input()
    path, data = _save(tmp_path, _export(model, x), model, "block")
    proc = _run_child(LOAD_AND_RUN, path, data, "as-saved")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ran 2 batches on tpu:0" in proc.stdout


def test_device_neutral_program_loads_and_runs_on_tpu(tmp_path):
    model, x = _model_and_input()
    ep = move_to_device_pass(_export(model, x), "cpu")
    path, data = _save(tmp_path, ep, model, "block_cpu")
    proc = _run_child(LOAD_AND_RUN, path, data, "move")
    assert proc.returncode == 0, proc.stdout + proc.stderr


LOAD_ONLY = """
    import sys
    import torch
    assert "torch_tpu" not in sys.modules
    torch.export.load(sys.argv[1])
"""


@pytest.mark.parametrize("neutral", [True, False], ids=["device-neutral", "tpu"])
def test_loading_without_torch_tpu_names_what_is_missing(tmp_path, neutral):
    model, x = _model_and_input()
    ep = _export(model, x)
    if neutral:
        ep = move_to_device_pass(ep, "cpu")
    path = tmp_path / "block.pt2"
    torch.export.save(ep, path)
    proc = _run_child(LOAD_ONLY, path, torch_tpu_loaded=False)
    assert proc.returncode != 0
    assert "RuntimeError: We ran into an error when deserializing" in proc.stderr
    if neutral:
        assert "We failed to resolve torch.ops.tpu.rms_norm.default to an operator" in proc.stderr
        assert "custom op is not registered" in proc.stderr
    else:
        assert "device string: tpu" in proc.stderr
