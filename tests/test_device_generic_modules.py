"""TestModule- and TestOptim-style checks on tpu, through PyTorch's own
device-generic machinery: `instantiate_device_type_tests(..., only_for="tpu")`
builds TestModuleTPUPRIVATEUSE1 and TestOptimTPUPRIVATEUSE1 from
PrivateUse1TestBase; the @modules decorator gives every ModuleInfo of
module_db its tests (float32; train and eval mode where the ModuleInfo says
they differ), the @optims decorator every OptimizerInfo of optim_db.

tests/generated/test_modules.py already compares each module's forward and
backward on tpu with CPU, and tests/test_optim_db.py each optimizer's steps
(and a resume from a CPU checkpoint) with CPU. This file re-derives, from what
they mean (torch's test/ folder is not in the wheel), the checks of torch's
test/test_modules.py (TestModule) and test/test_optim.py (TestOptimRenewed)
that compare tpu with tpu:

  TestModuleTPU (the first MAX_MODULE_INPUTS ModuleInputs of each ModuleInfo)
    test_non_contiguous_inputs   (TestModule.test_non_contig) forward, and
        backward from the outputs that require grad, with non-contiguous copies
        of the inputs and of the grad outputs (every stride doubled, the
        skipped elements NaN) give the outputs, gradients and buffers of the
        contiguous run.
    test_save_load_and_device_transfer   (TestModule.test_save_load and the
        device moves of test_cpu_gpu_parity) the state_dict saved with
        torch.save into a BytesIO and loaded with weights_only=True into a
        fresh module (the same constructor, then .to("tpu")) gives the same
        forward; the module moved tpu -> cpu -> tpu keeps its parameters' and
        buffers' values, each stage on its device, and its forward output.
    test_memory_format   (TestModule.test_memory_format; generated only for
        the ModuleInfos whose first ModuleInputs hold a 4-D or 5-D float
        tensor) those tensors in channels_last
        (channels_last_3d), with the module as it is and the module converted
        with module.to(memory_format=...), give the contiguous run's outputs,
        gradients and buffers (values; the output's layout is not checked).

  TestOptimTPU (the first MAX_OPTIM_CONFIGS configurations of each
  OptimizerInfo's optim_inputs_func(device="tpu"), the implementation its
  defaults choose; a configuration CPU rejects too is left out)
    test_state_dict_round_trip   (TestOptimRenewed.test_state_dict_deterministic
        and test_save_load_equality_with_weights_only) after 2 steps the
        optimizer's state_dict goes through torch.save / torch.load
        (weights_only=True) into a fresh optimizer over a deepcopy of the
        parameters; 2 more steps with the same gradients leave both with
        identical parameters and state (no tolerance).
    test_step_without_grads_is_a_noop   (TestOptimRenewed.
        test_step_is_noop_when_params_have_no_grad) step() over parameters
        whose .grad is None changes no parameter, on a fresh optimizer and
        after a real step (whose state must not change either).

Everything on tpu runs inside torch_tpu.no_fallback(): an operator without a
tpu kernel fails instead of running on the host. Known failures are strict
xfails from the one XFAILS table below (test_xfails_rows_name_existing_tests
rejects a row that names no test).
"""

from __future__ import annotations

import copy
import io
import warnings

import pytest
import torch
import torch_tpu
from torch.testing._internal.common_modules import module_db, modules
from torch.testing._internal.common_optimizers import optim_db, optims
from torch.testing._internal.common_utils import TestCase
from torch.utils import _pytree as pytree

import optim_problem as problem
from device_generic import expecting, instantiate
from module_harness import _grad_leaves, on_device

MAX_MODULE_INPUTS = 2
MAX_OPTIM_CONFIGS = 3
OPTIM_STEPS = 2          # before the checkpoint, and again after it

# (test name, ModuleInfo / OptimizerInfo name, dtype name) -> (the exception
# type the test fails with, why). Strict: the test must fail with that type
# (or a subclass), and fails once it passes.
XFAILS = {
    ("test_state_dict_round_trip", "SparseAdam", "float32"): (
        "NotImplementedError",
        "aten::_sparse_coo_tensor_with_dims_and_tensors has no Sparsetpu kernel: SparseAdam takes "
        "sparse gradients only, and sparse layouts are out of scope on tpu (the device stores strided "
        "tensors; ops.yaml excludes _to_sparse), so a sparse gradient cannot be moved to tpu"),
    ("test_step_without_grads_is_a_noop", "SparseAdam", "float32"): (
        "NotImplementedError",
        "aten::_sparse_coo_tensor_with_dims_and_tensors has no Sparsetpu kernel: the real step before "
        "the step without grads needs a sparse gradient on tpu, and sparse layouts are out of scope"),
}


def _expecting(test: str, name: str, dtype: torch.dtype, body) -> None:
    expecting(XFAILS, test, name, str(dtype).removeprefix("torch."), body)


def _cpu(tree):
    return pytree.tree_map(lambda x: x.detach().cpu() if isinstance(x, torch.Tensor) else x, tree)


def _differentiable_outputs(outputs):
    return [t for t in pytree.tree_leaves(outputs) if isinstance(t, torch.Tensor)
            and t.requires_grad and (t.is_floating_point() or t.is_complex())]


# --- modules -----------------------------------------------------------------

def _module_inputs(module_info, dtype, training):
    """The first ModuleInputs with a forward input, made on CPU (seeded)."""
    torch.manual_seed(0)
    inputs = module_info.module_inputs_func(module_info, device="cpu", dtype=dtype,
                                            requires_grad=True, training=training)
    return [mi for mi in inputs if mi.forward_input is not None][:MAX_MODULE_INPUTS]


def _cpu_module(module_info, module_input, dtype, training, seed=1):
    """The module built on CPU from the constructor input (seeded); a lazy
    module first sees the forward input so its parameters exist."""
    cargs, ckwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
    torch.manual_seed(seed)
    with warnings.catch_warnings():  # construction advice (nested tensors, ...)
        warnings.simplefilter("ignore")
        m = module_info.module_cls(*cargs, **ckwargs).to(dtype)
    m.train(training)
    if module_info.is_lazy:
        fi = module_input.forward_input
        with torch.no_grad():
            m(*on_device("cpu", fi.args), **on_device("cpu", fi.kwargs))
    return m


def _run_module(m, args, kwargs, grad_outputs=None, seed=2):
    """Forward (seeded), then, if grad_outputs is given (a function of the
    differentiable outputs), the gradients of the inputs and parameters that
    require grad. Returns CPU copies: (outputs, grads, buffers)."""
    torch.manual_seed(seed)
    with torch_tpu.no_fallback():
        out = m(*args, **kwargs)
        grads = None
        outs = _differentiable_outputs(out)
        if grad_outputs is not None and outs:
            leaves = _grad_leaves((args, kwargs)) + [p for p in m.parameters() if p.requires_grad]
            grads = torch.autograd.grad(outs, leaves, grad_outputs(outs), allow_unused=True)
        torch.tpu.synchronize()
    for t in pytree.tree_leaves(out):
        if isinstance(t, torch.Tensor):
            assert t.device.type == "tpu", f"an output is on {t.device}"
    return _cpu(out), _cpu(grads), _cpu(dict(m.named_buffers()))


def _seeded_grads(outs, seed=3):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(t.shape, generator=g, dtype=t.dtype).to(t.device) for t in outs]


def _noncontiguous(t):
    """A copy of t (on its device) with every stride doubled; the elements in
    between hold NaN (or an out-of-range value) so reading them shows."""
    if not isinstance(t, torch.Tensor) or t.numel() <= 1 or t.layout != torch.strided:
        return t
    if t.is_floating_point() or t.is_complex():
        filler = float("nan")
    elif t.dtype == torch.bool:
        filler = True
    else:
        filler = torch.iinfo(t.dtype).max
    with torch.no_grad():
        big = torch.full(t.shape + (2,), filler, dtype=t.dtype, device=t.device)
        big[..., 0] = t.detach()
    out = big[..., 0]
    assert not out.is_contiguous()
    return out.requires_grad_(t.requires_grad)


def _noncontiguous_tree(tree):
    moved = {}

    def make(x):
        if not isinstance(x, torch.Tensor):
            return x
        if id(x) not in moved:
            moved[id(x)] = _noncontiguous(x)
        return moved[id(x)]

    return pytree.tree_map(make, tree)


MEMORY_FORMATS = {4: torch.channels_last, 5: torch.channels_last_3d}


def _has_channels_last_input(tree) -> bool:
    return any(isinstance(t, torch.Tensor) and t.is_floating_point() and t.dim() in MEMORY_FORMATS
               for t in pytree.tree_leaves(tree))


def _lays_out_channels_last(module_info) -> bool:
    """Whether one of the first ModuleInputs (in a mode the test runs) holds
    a 4-D or 5-D float tensor for test_memory_format to lay out."""
    modes = (True, False) if module_info.train_and_eval_differ else (True,)
    return any(_has_channels_last_input((mi.forward_input.args, mi.forward_input.kwargs))
               for training in modes for mi in _module_inputs(module_info, torch.float32, training))


# test_memory_format is not generated for the other ModuleInfos (about 70:
# linear layers, losses, RNNs, ...): no input to lay out channels-last, so
# every case would only skip.
CHANNELS_LAST_MODULES = [m for m in module_db if _lays_out_channels_last(m)]


def _channels_last_tree(tree):
    moved = {}

    def make(x):
        if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() in MEMORY_FORMATS):
            return x
        if id(x) not in moved:
            y = x.detach().contiguous(memory_format=MEMORY_FORMATS[x.dim()])
            assert y.is_contiguous(memory_format=MEMORY_FORMATS[x.dim()])
            moved[id(x)] = y.requires_grad_(x.requires_grad)
        return moved[id(x)]

    return pytree.tree_map(make, tree)


class TestModuleTPU(TestCase):

    def _each_input(self, module_info, dtype, training, check, not_applicable):
        """check(module_input) over the first ModuleInputs; check returns
        whether it compared something. None compared: skipped as not applicable."""
        compared = 0
        for i, mi in enumerate(_module_inputs(module_info, dtype, training)):
            try:
                compared += bool(check(mi))
            except Exception as e:
                e.add_note(f"[{module_info.name} ModuleInput {i}{': ' + mi.desc if mi.desc else ''}]")
                raise
        if not compared:
            self.skipTest(not_applicable)

    # -- non-contiguous inputs ------------------------------------------------

    @modules(module_db, allowed_dtypes=(torch.float32,))
    def test_non_contiguous_inputs(self, device, dtype, module_info, training):
        _expecting("test_non_contiguous_inputs", module_info.name, dtype,
                   lambda: self._each_input(module_info, dtype, training,
                                            lambda mi: self._non_contiguous(device, module_info, mi, dtype, training),
                                            "no ModuleInput"))

    def _non_contiguous(self, device, module_info, mi, dtype, training):
        cpu_m = _cpu_module(module_info, mi, dtype, training)
        fi = mi.forward_input
        args, kwargs = on_device(device, (fi.args, fi.kwargs))
        expected = _run_module(copy.deepcopy(cpu_m).to(device), args, kwargs, _seeded_grads)
        # non-contiguous inputs, then non-contiguous grad outputs too
        nc_args, nc_kwargs = _noncontiguous_tree(on_device(device, (fi.args, fi.kwargs)))
        for label, grads in (("non-contiguous inputs", _seeded_grads),
                             ("non-contiguous inputs and grad outputs",
                              lambda outs: [_noncontiguous(g) for g in _seeded_grads(outs)])):
            actual = _run_module(copy.deepcopy(cpu_m).to(device), nc_args, nc_kwargs, grads)
            for what, a, e in zip(("outputs", "gradients", "buffers"), actual, expected):
                self.assertEqual(a, e, msg=f"{label}: the {what} differ from the contiguous run's")
            nc_args, nc_kwargs = _noncontiguous_tree(on_device(device, (fi.args, fi.kwargs)))
        return True

    # -- save / load and device transfer --------------------------------------

    @modules(module_db, allowed_dtypes=(torch.float32,))
    def test_save_load_and_device_transfer(self, device, dtype, module_info, training):
        _expecting("test_save_load_and_device_transfer", module_info.name, dtype,
                   lambda: self._each_input(module_info, dtype, training,
                                            lambda mi: self._save_load(device, module_info, mi, dtype, training),
                                            "no ModuleInput"))

    def _save_load(self, device, module_info, mi, dtype, training):
        cpu_m = _cpu_module(module_info, mi, dtype, training)
        fi = mi.forward_input
        args, kwargs = on_device(device, (fi.args, fi.kwargs))
        m = copy.deepcopy(cpu_m).to(device)
        # the forward first: a module whose forward changes its buffers
        # (running statistics) saves the state the others start from
        snapshot = _cpu(m.state_dict())
        expected, _, expected_buffers = _run_module(copy.deepcopy(m), args, kwargs)

        # state_dict -> torch.save -> torch.load(weights_only=True) -> a fresh module
        buffer = io.BytesIO()
        with torch_tpu.no_fallback():
            torch.save(m.state_dict(), buffer)
        buffer.seek(0)
        with torch_tpu.no_fallback():
            loaded = torch.load(buffer, weights_only=True)
        self.assertEqual(list(loaded), list(snapshot), msg="the loaded state_dict's keys")
        for k, v in loaded.items():
            if isinstance(v, torch.Tensor):
                self.assertEqual(v.device.type, "tpu", msg=f"loaded {k} is on {v.device}")
        self.assertEqual(_cpu(loaded), snapshot, atol=0, rtol=0, msg="the loaded state_dict's values")
        fresh = _cpu_module(module_info, mi, dtype, training, seed=4)
        with torch.no_grad():  # a fresh module that already equals the saved one would prove nothing
            for t in fresh.state_dict().values():
                if isinstance(t, torch.Tensor) and t.dtype != torch.bool:
                    t.add_(1)
        fresh = fresh.to(device)
        with torch_tpu.no_fallback():
            fresh.load_state_dict(loaded)
        del loaded
        self.assertEqual(_cpu(fresh.state_dict()), snapshot, atol=0, rtol=0,
                         msg="the fresh module's state after load_state_dict")
        out, _, buffers = _run_module(fresh, args, kwargs)
        self.assertEqual(out, expected, msg="the module loaded from the saved state_dict: outputs differ")
        self.assertEqual(buffers, expected_buffers, msg="the module loaded from the saved state_dict: buffers differ")
        del fresh

        # the module itself: tpu -> cpu -> tpu
        for stage in ("cpu", device):
            with torch_tpu.no_fallback():
                m.to(stage)
            for k, v in m.state_dict().items():
                if isinstance(v, torch.Tensor):
                    self.assertEqual(v.device.type, torch.device(stage).type,
                                     msg=f"after .to({stage!r}) {k} is on {v.device}")
            self.assertEqual(_cpu(m.state_dict()), snapshot, atol=0, rtol=0,
                             msg=f"after .to({stage!r}) the parameters or buffers changed")
        out, _, buffers = _run_module(m, args, kwargs)
        self.assertEqual(out, expected, msg="after tpu -> cpu -> tpu the outputs differ")
        self.assertEqual(buffers, expected_buffers, msg="after tpu -> cpu -> tpu the buffers differ")
        return True

    # -- memory format --------------------------------------------------------

    @modules(CHANNELS_LAST_MODULES, allowed_dtypes=(torch.float32,))
    def test_memory_format(self, device, dtype, module_info, training):
        _expecting("test_memory_format", module_info.name, dtype,
                   lambda: self._each_input(module_info, dtype, training,
                                            lambda mi: self._memory_format(device, module_info, mi, dtype, training),
                                            f"none of its first {MAX_MODULE_INPUTS} ModuleInputs has a "
                                            "4-D or 5-D float tensor"))

    def _memory_format(self, device, module_info, mi, dtype, training):
        fi = mi.forward_input
        if not _has_channels_last_input((fi.args, fi.kwargs)):
            return False
        cpu_m = _cpu_module(module_info, mi, dtype, training)
        args, kwargs = on_device(device, (fi.args, fi.kwargs))
        expected = _run_module(copy.deepcopy(cpu_m).to(device), args, kwargs, _seeded_grads)
        module_dims = {t.dim() for t in list(cpu_m.parameters()) + list(cpu_m.buffers())} & set(MEMORY_FORMATS)
        variants = [("channels_last inputs", None)]
        if len(module_dims) == 1:  # module.to(memory_format=...) changes some tensor of the module
            variants.append(("channels_last inputs and module", MEMORY_FORMATS[module_dims.pop()]))
        for label, module_format in variants:
            m = copy.deepcopy(cpu_m).to(device)
            if module_format is not None:
                with torch_tpu.no_fallback():
                    m = m.to(memory_format=module_format)
            with torch_tpu.no_fallback():
                cl_args, cl_kwargs = _channels_last_tree(on_device(device, (fi.args, fi.kwargs)))
            actual = _run_module(m, cl_args, cl_kwargs, _seeded_grads)
            for what, a, e in zip(("outputs", "gradients", "buffers"), actual, expected):
                self.assertEqual(a, e, msg=f"{label}: the {what} differ from the contiguous run's")
        return True


instantiate(TestModuleTPU, globals())


# --- optimizers --------------------------------------------------------------

def _params(optim_info, dtype, device):
    return [p.to(device).requires_grad_() for p in problem.make_params(optim_info, dtype)]


def _configs(optim_info, dtype):
    """(desc, kwargs) of the first configurations that CPU accepts."""
    out = []
    for config in optim_info.optim_inputs_func(device="tpu")[:MAX_OPTIM_CONFIGS]:
        try:
            optim_info.optim_cls(_params(optim_info, dtype, "cpu"), **copy.deepcopy(config.kwargs))
        except Exception:
            continue  # CPU rejects it too: not a configuration to run
        out.append((config.desc, config.kwargs))
    return out


class TestOptimTPU(TestCase):

    def _each_config(self, optim_info, dtype, check):
        configs = _configs(optim_info, dtype)
        if not configs:
            self.skipTest(f"CPU rejects every configuration of {optim_info.name}")
        for desc, kwargs in configs:
            try:
                check(copy.deepcopy(kwargs))
            except Exception as e:
                e.add_note(f"[{optim_info.name} configuration {desc!r}: {kwargs}]")
                raise

    @optims(optim_db, dtypes=[torch.float32])
    def test_state_dict_round_trip(self, device, dtype, optim_info):
        _expecting("test_state_dict_round_trip", optim_info.name, dtype,
                   lambda: self._each_config(optim_info, dtype,
                                             lambda kwargs: self._round_trip(device, dtype, optim_info, kwargs)))

    def _round_trip(self, device, dtype, optim_info, kwargs):
        with torch_tpu.no_fallback():
            params = _params(optim_info, dtype, device)
            opt = optim_info.optim_cls(params, **copy.deepcopy(kwargs))
            for step in range(OPTIM_STEPS):
                problem.step(optim_info, opt, params, dtype, step)
            buffer = io.BytesIO()
            torch.save(opt.state_dict(), buffer)
            snapshot = _cpu(opt.state_dict())
            buffer.seek(0)
            loaded = torch.load(buffer, weights_only=True)
        self.assertEqual(_cpu(loaded), snapshot, atol=0, rtol=0, msg="the loaded state_dict differs from the saved one")
        with torch_tpu.no_fallback():
            copies = copy.deepcopy(params)
            copied = optim_info.optim_cls(copies, **copy.deepcopy(kwargs))
            copied.load_state_dict(loaded)
            del loaded
            for step in range(OPTIM_STEPS, 2 * OPTIM_STEPS):
                problem.step(optim_info, opt, params, dtype, step)
                problem.step(optim_info, copied, copies, dtype, step)
            torch.tpu.synchronize()
        for k, (a, b) in enumerate(zip(copies, params)):
            self.assertEqual(a.device.type, "tpu")
            self.assertEqual(a.cpu(), b.cpu(), atol=0, rtol=0, msg=f"parameter {k} after resuming")
        self.assertEqual(_cpu(copied.state_dict()), _cpu(opt.state_dict()), atol=0, rtol=0,
                         msg="the optimizer state after resuming")

    @optims(optim_db, dtypes=[torch.float32])
    def test_step_without_grads_is_a_noop(self, device, dtype, optim_info):
        _expecting("test_step_without_grads_is_a_noop", optim_info.name, dtype,
                   lambda: self._each_config(optim_info, dtype,
                                             lambda kwargs: self._noop(device, dtype, optim_info, kwargs)))

    def _noop(self, device, dtype, optim_info, kwargs):
        def step_without_grads():
            if optim_info.step_requires_closure:
                opt.step(lambda: problem.loss(params).detach())  # a loss, no gradients
            else:
                opt.step()

        with torch_tpu.no_fallback():
            params = _params(optim_info, dtype, device)
            before = _cpu(params)
            opt = optim_info.optim_cls(params, **kwargs)
            self.assertTrue(all(p.grad is None for p in params))
            step_without_grads()
            torch.tpu.synchronize()
        self.assertEqual(_cpu(params), before, atol=0, rtol=0, msg="a fresh optimizer's step without grads")

        # after a real step the optimizer has state; a step without grads
        # changes neither the parameters nor (but LBFGS's counters) the state
        with torch_tpu.no_fallback():
            problem.step(optim_info, opt, params, dtype, 0)
            opt.zero_grad(set_to_none=True)
            before, state = _cpu(params), _cpu(opt.state_dict()["state"])
            step_without_grads()
            torch.tpu.synchronize()
        self.assertTrue(all(p.grad is None for p in params))
        self.assertEqual(_cpu(params), before, atol=0, rtol=0, msg="a step without grads after a real step")
        if not optim_info.step_requires_closure:
            self.assertEqual(_cpu(opt.state_dict()["state"]), state, atol=0, rtol=0,
                             msg="the state after a step without grads")


instantiate(TestOptimTPU, globals())


def test_xfails_rows_name_existing_tests():
    """Every XFAILS row names a test this file instantiates (a stale row, or
    a typo that would never apply, is an error)."""
    tests = {name for cls in (globals()["TestModuleTPUPRIVATEUSE1"], globals()["TestOptimTPUPRIVATEUSE1"])
             for name in dir(cls) if name.startswith("test_")}
    for (test, info_name, dtype) in XFAILS:
        formatted = info_name.replace(".", "_")
        candidates = {f"{test}_{formatted}{mode}_tpu_{dtype}" for mode in ("", "_train_mode", "_eval_mode")}
        assert candidates & tests, f"XFAILS row {(test, info_name, dtype)} names no test of this file"
