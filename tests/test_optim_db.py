"""torch.optim on tpu against CPU, drawn from PyTorch's optim_db.

Every OptimizerInfo of torch.testing._internal.common_optimizers, with the
configurations its own optim_inputs_func gives a capturable device (CUDA's
list: CPU's configurations plus the capturable ones; torch.optim counts
PrivateUse1 among the capturable devices), in each implementation it
supports: the for-loop, foreach and (Adam, AdamW, SGD, Adagrad) fused forms.
The same parameters are built on CPU and on tpu, take STEPS steps with the
same gradients, and must end with CPU's parameters and optimizer state. No
operator may run through the host fallback.

The reference for a capturable configuration is CPU's for-loop
implementation of the configuration without capturable: CPU cannot run
capturable=True, and capturable must not change the arithmetic.

TestOptimDb also resumes on tpu from a CPU checkpoint, runs one optimizer
over parameters on two devices, and checks that fused and capturable steps
never wait for the device.

Known failures are strict xfails from the one table XFAILS below (counted in
docs/coverage.md).
"""

from __future__ import annotations

import builtins
import copy

import pytest
import torch
import torch_tpu
from torch.testing._internal.common_optimizers import optim_db

import optim_problem as problem

DEVICE = "tpu"
STEPS = 5
# torch.testing.assert_close's defaults for the dtype, as PyTorch's TestOptim.
TOL = {}
# Muon orthogonalizes its update with Newton-Schulz iterations in bfloat16
# matmuls: the devices' bfloat16 GEMMs round differently (~0.4%) and the
# iterations amplify it; 1e-4 is 4% of what 5 steps move a parameter at its lr.
OPTIM_TOL = {"Muon": {"rtol": 1e-5, "atol": 1e-4}}

# (optimizer, implementation, configuration desc or "*", dtype name or "*")
# -> (the exception it raises, why it cannot pass). Strict: a case listed
# here that passes, or fails with another exception, fails the run.
XFAILS = {
    ("SparseAdam", "forloop", "*", "*"): (
        "NotImplementedError",
        "sparse gradients: the device stores strided tensors only (sparse layouts are out of scope, "
        "ops.yaml excludes to_sparse), so SparseAdam's gradients cannot exist on tpu"),
}

OPTIMS = {info.name: info for info in optim_db}


def _impls(info):
    out = ["forloop"]
    if "foreach" in info.supported_impls:
        out.append("foreach")
    if "fused" in info.supported_impls:
        out.append("fused")
    return out


def _dtypes(info, impl):
    if info.step_requires_closure:
        # LBFGS: its state (curvature pairs, 1 / (y . s), the two-loop
        # coefficients) amplifies the rounding of float32 reductions by the
        # problem's conditioning, up to 0.1% after one step whichever order
        # sums them; in float64 the same amplification stays far below tolerance
        return [torch.float64] + ([torch.complex128] if info.supports_complex else [])
    # float64 as PyTorch's own TestOptim; fused=True takes floating-point
    # parameters only (torch.optim's own check)
    return [torch.float32, torch.float64] + ([torch.complex64] if info.supports_complex and impl != "fused" else [])


def _cases():
    for info in optim_db:
        for impl in _impls(info):
            for i, sample in enumerate(info.optim_inputs_func("cuda")):
                for dtype in _dtypes(info, impl):
                    dname = str(dtype).removeprefix("torch.")
                    reason = next((why for (o, m, d, t), why in XFAILS.items()
                                   if o == info.name and m == impl and d in ("*", sample.desc)
                                   and t in ("*", dname)), None)
                    marks = [pytest.mark.xfail(strict=True, raises=getattr(builtins, reason[0]), reason=reason[1])
                             ] if reason else []
                    yield pytest.param(info.name, impl, i, dtype, marks=marks,
                                       id=f"{info.name}-{impl}-{i}-{sample.desc.replace(' ', '_')}-{dname}")


def _check_table():
    """Every XFAILS row names an existing case (a stale row is an error)."""
    planned = {(info.name, impl, s.desc, str(dt).removeprefix("torch."))
               for info in optim_db for impl in _impls(info)
               for s in info.optim_inputs_func("cuda") for dt in _dtypes(info, impl)}
    for (o, m, d, t) in XFAILS:
        assert any(o == po and m == pm and d in ("*", pd) and t in ("*", pt) for po, pm, pd, pt in planned), \
            f"XFAILS row {(o, m, d, t)} matches no case"


# --- the parameters, gradients and loss: tests/optim_problem.py ----------

def _kwargs(info, impl, index, device):
    kwargs = copy.deepcopy(info.optim_inputs_func("cuda")[index].kwargs)
    if device == "cpu" and kwargs.pop("capturable", False):
        impl = "forloop"  # CPU cannot capture: its for-loop form is the reference
    if impl == "foreach":
        kwargs["foreach"] = True
    elif impl == "fused":
        kwargs["fused"] = True
    elif "foreach" in info.supported_impls:
        kwargs["foreach"] = False
    return kwargs


def _run(info, impl, index, dtype, device):
    params = [p.to(device).requires_grad_() for p in problem.make_params(info, dtype)]
    opt = info.optim_cls(params, **_kwargs(info, impl, index, device))
    for i in range(STEPS):
        problem.step(info, opt, params, dtype, i)
    return params, opt


def _assert_state_close(tpu, cpu, where, tol=TOL):
    if isinstance(tpu, torch.Tensor):
        assert isinstance(cpu, torch.Tensor), f"{where}: a tensor on tpu, {type(cpu).__name__} on CPU"
        torch.testing.assert_close(tpu.cpu(), cpu, **tol, msg=lambda m: f"{where}: {m}")
    elif isinstance(tpu, dict):
        assert tpu.keys() == cpu.keys(), f"{where}: keys {sorted(tpu)} on tpu, {sorted(cpu)} on CPU"
        for k in tpu:
            _assert_state_close(tpu[k], cpu[k], f"{where}[{k!r}]", tol)
    elif isinstance(tpu, (list, tuple)):
        assert len(tpu) == len(cpu), f"{where}: {len(tpu)} items on tpu, {len(cpu)} on CPU"
        for k, (a, b) in enumerate(zip(tpu, cpu)):
            _assert_state_close(a, b, f"{where}[{k}]", tol)
    elif isinstance(tpu, float):
        assert tpu == pytest.approx(cpu, rel=1e-6, abs=1e-12), f"{where}: {tpu} on tpu, {cpu} on CPU"
    else:
        assert tpu == cpu, f"{where}: {tpu!r} on tpu, {cpu!r} on CPU"


def _resume_cases():
    """The first configuration of each optimizer's fused, foreach and capturable forms."""
    for info in optim_db:
        if info.only_supports_sparse_grads or info.step_requires_closure:
            continue
        configs = info.optim_inputs_func("cuda")
        capturable = next((i for i, c in enumerate(configs) if c.kwargs.get("capturable")), None)
        forms = [("fused", 0), ("foreach", 0), ("foreach", capturable)]
        for impl, index in forms:
            if impl in info.supported_impls and index is not None:
                yield pytest.param(info.name, impl, index, id=f"{info.name}-{impl}-{configs[index].desc}")


def _no_sync_cases():
    """The fused form of every configuration, and the for-loop and foreach
    forms of the capturable ones."""
    for info in optim_db:
        for i, sample in enumerate(info.optim_inputs_func("cuda")):
            impls = ["fused"] if "fused" in info.supported_impls else []
            if sample.kwargs.get("capturable"):
                impls += [m for m in _impls(info) if m != "fused"]
            for impl in impls:
                yield pytest.param(info.name, impl, i, id=f"{info.name}-{impl}-{i}-{sample.desc.replace(' ', '_')}")


class TestOptimDb:
    """TestOptim's semantics on tpu: the same optimizer, configuration and
    gradients on CPU and tpu end with the same parameters and state."""

    def test_xfail_table_rows_match_cases(self):
        _check_table()

    @pytest.mark.parametrize("name, impl, index, dtype", list(_cases()))
    def test_optimizer_matches_cpu(self, name, impl, index, dtype):
        info = OPTIMS[name]
        cpu_params, cpu_opt = _run(info, impl, index, dtype, "cpu")
        before = torch_tpu.stats()
        try:
            tpu_params, tpu_opt = _run(info, impl, index, dtype, DEVICE)
        except Exception as e:
            # without _run's frames, which hold the device tensors (an xfail's
            # traceback outlives the test: the leak check would see them)
            raise e.with_traceback(None)
        fallbacks = {op: n for op, n in torch_tpu.telemetry.fallback_calls().items()
                     if n > torch_tpu.telemetry.fallback_calls(before).get(op, 0)}
        assert not fallbacks, f"host fallback inside the optimizer step: {fallbacks}"
        tol = OPTIM_TOL.get(name, TOL)
        for k, (t, c) in enumerate(zip(tpu_params, cpu_params)):
            assert t.device.type == DEVICE
            torch.testing.assert_close(t.detach().cpu(), c.detach(), **tol, msg=lambda m: f"param {k}: {m}")
        _assert_state_close(tpu_opt.state_dict()["state"], cpu_opt.state_dict()["state"], "state", tol)

    @pytest.mark.parametrize("name, impl, index", list(_resume_cases()))
    def test_resume_from_cpu_state_dict(self, name, impl, index):
        """A checkpoint taken on CPU (2 steps) loads into the optimizer of the
        tpu parameters, and 3 more steps on each device agree."""
        info = OPTIMS[name]
        cpu_params = [p.requires_grad_() for p in problem.make_params(info, torch.float32)]
        cpu_opt = info.optim_cls(cpu_params, **_kwargs(info, impl, index, "cpu"))
        tpu_params = tpu_opt = None
        for step in range(STEPS):
            if step == 2:
                tpu_params = [p.detach().to(DEVICE).requires_grad_() for p in cpu_params]
                tpu_opt = info.optim_cls(tpu_params, **_kwargs(info, impl, index, DEVICE))
                tpu_opt.load_state_dict(copy.deepcopy(cpu_opt.state_dict()))
            grads = problem.grads(info, torch.float32, step)
            for params, opt, device in [(cpu_params, cpu_opt, "cpu"), (tpu_params, tpu_opt, DEVICE)]:
                if opt is None:
                    continue
                for p, g in zip(params, grads):
                    p.grad = g.to(device)
                opt.step()
        for t, c in zip(tpu_params, cpu_params):
            torch.testing.assert_close(t.detach().cpu(), c.detach(), **TOL)
        _assert_state_close(tpu_opt.state_dict()["state"], cpu_opt.state_dict()["state"], "state")

    @pytest.mark.parametrize("name, impl", [("Adam", "fused"), ("AdamW", "foreach"), ("SGD", "fused"),
                                            ("Adagrad", "fused"), ("RMSprop", "foreach")])
    def test_params_on_two_devices_match_cpu(self, name, impl):
        """One optimizer over parameters on tpu:0 and tpu:1: torch.optim groups
        them by device, one fused launch (or foreach list) per device."""
        if torch.tpu.device_count() < 2:
            pytest.skip("needs two tpu devices")
        info = OPTIMS[name]
        index = 0  # optim_db's "default" configuration
        results = {}
        for devices in (["cpu", "cpu"], ["tpu:0", "tpu:1"]):
            params = [p.to(d).requires_grad_() for p, d in zip(problem.make_params(info, torch.float32), devices)]
            opt = info.optim_cls(params, **_kwargs(info, impl, index, devices[0].split(":")[0]))
            for step in range(STEPS):
                for p, g, d in zip(params, problem.grads(info, torch.float32, step), devices):
                    p.grad = g.to(d)
                opt.step()
            results[devices[0]] = params
        for t, c, d in zip(results["tpu:0"], results["cpu"], ["tpu:0", "tpu:1"]):
            assert str(t.device) == d
            torch.testing.assert_close(t.detach().cpu(), c.detach(), **TOL)

    @pytest.mark.parametrize("name, impl, index", list(_no_sync_cases()))
    def test_step_never_waits_for_the_device(self, name, impl, index):
        """Fused and capturable steps keep the step counts and a tensor lr on
        the device: after the first step (whose state initialization may copy
        host values in), the host only enqueues (the sync debug mode raises at
        any host sync)."""
        info = OPTIMS[name]
        params = [p.to(DEVICE).requires_grad_() for p in problem.make_params(info, torch.float32)]
        opt = info.optim_cls(params, **_kwargs(info, impl, index, DEVICE))
        grads = [[g.to(DEVICE) for g in problem.grads(info, torch.float32, step)] for step in range(3)]
        old = torch.tpu.get_sync_debug_mode()
        for step, step_grads in enumerate(grads):
            for p, g in zip(params, step_grads):
                p.grad = g
            torch.tpu.set_sync_debug_mode("error" if step >= 1 else old)
            try:
                opt.step()
            finally:
                torch.tpu.set_sync_debug_mode(old)
