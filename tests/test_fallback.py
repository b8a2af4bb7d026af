"""Operators without a tpu kernel: a clear error by default; an explicit,
counted host fallback on request. (The op used here, the fused _add_relu in
its functional, out= and in-place forms, has no tpu kernel yet: ATen
implements it for CPU only. When it gets one, pick another op without one:
torch._C._dispatch_has_kernel_for_dispatch_key("aten::<op>", "PrivateUse1")
is False. The mixed-device checks use special.zeta, which has one: they hold
for any op.)"""

import warnings

import pytest
import torch

import torch_tpu
from torch_tpu.fallback import fallback_policy


def test_error_by_default_names_the_op_and_the_fix():
    assert torch_tpu.get_fallback_policy() == "error"
    a = torch.ones(3).to("tpu")
    with pytest.raises(NotImplementedError) as info:
        torch._add_relu(a, a)
    msg = str(info.value)
    assert "aten::_add_relu.Tensor" in msg
    assert "ops.yaml" in msg and "python -m codegen" in msg and "TORCH_TPU_FALLBACK" in msg


def test_warn_policy_runs_on_host_warns_once_and_counts():
    add_relu = torch._add_relu  # through torch's Python bindings, which turn C++ warnings into Python ones
    a = torch.arange(-3.0, 3.0).view(2, 3).to("tpu")
    torch_tpu.reset_stats()
    with fallback_policy("warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r1 = add_relu(a, a)
            r2 = add_relu(a, a + 1)
        expected = torch.arange(-3.0, 3.0).view(2, 3)
        assert r1.device == a.device and torch.equal(r1.cpu(), add_relu(expected, expected))
        assert torch.equal(r2.cpu(), add_relu(expected, expected + 1))
    ours = [w for w in caught if "ran on the host" in str(w.message)]
    assert len(ours) == 1 and "aten::_add_relu.Tensor" in str(ours[0].message)
    calls = torch_tpu.telemetry.fallback_calls()
    assert calls.get("aten::_add_relu.Tensor") == 2
    assert torch_tpu.stats()["copies"]["h2d"]["calls"] >= 2


def test_allow_policy_and_out_variants():
    a = torch.arange(-2.0, 2.0).to("tpu")
    out = torch.empty(0).to("tpu")
    with fallback_policy("allow"):
        torch._add_relu(a, a, out=out)
    expected = torch.arange(-2.0, 2.0)
    assert out.shape == (4,) and torch.equal(out.cpu(), torch._add_relu(expected, expected))


def test_in_place_ops_write_back_to_the_device():
    a = torch.arange(-4.0, 4.0).to("tpu")
    with fallback_policy("allow"):
        result = torch.ops.aten._add_relu_.Tensor(a, torch.full((8,), 0.5, device="tpu"))
    assert result is a
    assert torch.equal(a.cpu(), (torch.arange(-4.0, 4.0) + 0.5).relu())


def test_mixed_devices_are_rejected():
    a = torch.ones(3).to("tpu:0")
    b = torch.ones(3).to("tpu:1")
    with fallback_policy("allow"):
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            torch.special.zeta(a, b)
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            torch.special.zeta(a, torch.ones(3))
        # a CPU 0-dim tensor acts as a scalar, as on CUDA
        got = torch.special.zeta(a + 1, torch.tensor(2.0)).cpu()
        assert torch.equal(got, torch.special.zeta(torch.full((3,), 2.0), torch.tensor(2.0)))


def test_view_ops_are_not_emulated_by_copies():
    # The one aten view op left without a tpu kernel or a composite: a copy on
    # the host would not share the input's storage, so it is refused.
    a = torch.arange(6.0).to("tpu")
    nested = [torch.tensor(v).to("tpu") for v in ([[2], [4]], [[1], [1]], [0, 2])]
    with fallback_policy("allow"):
        with pytest.raises(RuntimeError, match="view"):
            torch.ops.aten._nested_view_from_buffer(a, *nested)


def test_no_fallback_guard():
    a = torch.ones(3).to("tpu")
    with torch_tpu.no_fallback():
        a.clone()
    with fallback_policy("allow"):
        with pytest.raises(AssertionError, match=r"aten::_add_relu\.Tensor"):
            with torch_tpu.no_fallback():
                torch._add_relu(a, a)


def test_policy_validation():
    with pytest.raises(ValueError, match="unknown tpu fallback policy"):
        torch_tpu.set_fallback_policy("sometimes")


def test_forced_fallback_runs_a_registered_op_on_the_host():
    import os
    import subprocess
    import sys

    code = """
import torch, torch_tpu
t = torch.tensor([2.5, 3.5]).to("tpu")
torch_tpu.reset_stats()
assert t[1].item() == 3.5
ops = torch_tpu.stats()["ops"]
assert ops["aten::_local_scalar_dense"] == {"fallback": 1}, ops
print("ok")
"""
    env = dict(os.environ, TORCH_TPU_FORCE_FALLBACK="aten::_local_scalar_dense")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_every_call_is_counted_by_route():
    x = torch.ones(3, 4).to("tpu")
    torch_tpu.reset_stats()
    y = x.clone()
    ops = torch_tpu.stats()["ops"]
    assert ops["aten::empty_strided"] == {"direct": 1}
    assert ops["aten::_copy_from"] == {"direct": 1}
    # composites are counted only while tracing (it observes every op)
    assert "aten::clone" not in ops
    with torch_tpu.trace_ops():
        z = x.t().contiguous()
    ops = torch_tpu.stats()["ops"]
    assert ops["aten::contiguous"] == {"composite": 1}
    assert ops["aten::t"] == {"composite": 1}
    assert ops["aten::as_strided"]["direct"] >= 1
    del y, z
