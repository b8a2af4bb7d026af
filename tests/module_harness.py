"""The logic behind tests/generated/test_modules.py (written by `python -m
codegen generate` through codegen/testgen/module_tests.py): every ModuleInfo of
torch.testing._internal.common_modules.module_db, forward and backward, on tpu
against CPU. The generated file holds only data: one case() per (ModuleInfo,
dtype, training mode when the ModuleInfo says train and eval differ).

For each of the case's first ModuleInputs (the ModuleInfo's CPU inputs,
requires_grad=True):
  - the module is built on CPU from the constructor input (seeded), cast to
    the dtype and put in the case's mode; a lazy module first sees the input
    on CPU (no grad) so its parameters exist; the tpu module is
    copy.deepcopy(cpu_module).to("tpu"): the same parameters and buffers;
  - forward on CPU and on tpu with the same inputs (moved to tpu, same
    requires_grad): every output has the CPU output's dtype and shape, is
    on tpu, and has its values (the tolerances below); buffers (running
    statistics) too;
  - backward from a seeded random grad_output for every floating output
    that requires grad: the gradients of the inputs and of the parameters
    equal CPU's (None where CPU's is None).
Everything on tpu runs inside torch_tpu.no_fallback(): an operator without a
tpu kernel fails (NotImplementedError, the fallback policy is never changed
here) instead of running on the host. Known failures are strict xfails
(tests/module_xfails.yaml) satisfied only by the failure they name (the
exception type of `raises` and the aten:: operators of the reason): a module
that starts passing, or fails in another way, fails its test.
"""

from __future__ import annotations

import copy
import functools
import re
import traceback
import warnings
import zlib
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

import pytest
import torch
import torch_tpu
from torch.utils import _pytree as pytree

from known_failures import exception

DEVICE = "tpu"
# Values: float32 sums in another order (GEMM blocking, parallel reductions)
# differ from CPU's in the last bits, which grow through a module's layers and
# its backward (weight gradients of conv3d and attention reach 3e-5 against
# torch's default atol 1e-5); float64 keeps torch's defaults.
TOLERANCES = {torch.float32: dict(atol=1e-4, rtol=1e-4)}


@dataclass(frozen=True)
class Case:
    module: str              # ModuleInfo name: "nn.Linear"
    dtype: str               # "float32"
    mode: str = ""           # "train" / "eval" when the ModuleInfo tests both, else ""
    inputs: int = 1          # how many of the ModuleInputs run (the first ones)
    xfail: str = ""          # the known failure's reason ("" for none)
    raises: str = ""         # the exception type it fails with

    @property
    def training(self) -> bool:
        return self.mode != "eval"

    @property
    def id(self) -> str:
        return "-".join(p for p in (self.module, self.dtype, self.mode) if p)


class KnownFailure(Exception):
    """The failure a case's xfail names. A case marked xfail that fails
    differently (another exception, another operator) fails for real."""


def case(module: str, dtype: str, *, inputs: int, mode: str = "", xfail: str = "",
         raises: str = ""):
    """A pytest parameter for one (module, dtype, mode); a known failure is a
    strict xfail that only the failure it names satisfies."""
    assert mode in ("", "train", "eval"), mode
    c = Case(module, dtype, mode, inputs, xfail, raises)
    marks = []
    if xfail or raises:
        exception(raises)  # a name known_failures resolves
        marks.append(pytest.mark.xfail(strict=True, raises=KnownFailure, reason=f"{raises}: {xfail}"))
    return pytest.param(c, id=c.id, marks=marks)


def matches(reason: str, raises: str, e: BaseException) -> bool:
    """Whether e is the failure an xfail describes: raises NotImplementedError,
    reason "aten::mse_loss.out has no tpu kernel", needs a NotImplementedError
    (or a subclass) whose message names aten::mse_loss.out (not aten::mse_loss)."""
    if not isinstance(e, exception(raises)):
        return False
    return all(re.search(re.escape(op) + r"(?![\w.])", str(e))
               for op in re.findall(r"aten::\w+(?:\.\w+)?", reason))


@functools.lru_cache(maxsize=1)
def _module_db() -> Dict[str, Any]:
    import gc

    from torch.testing._internal.common_modules import module_db

    db = {m.name: m for m in module_db}
    # The test modules live as long as the process: keep them out of the
    # collector's way (the leak check's gc.collect() stays fast).
    gc.collect()
    gc.freeze()
    return db


def module_info(name: str):
    try:
        return _module_db()[name]
    except KeyError:
        raise LookupError(f"no ModuleInfo {name!r} in this torch's module_db; regenerate the "
                          "tests: python -m codegen generate") from None


def _seed(*parts) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode())


def on_device(device, tree):
    """tree with its tensors on device, same requires_grad (leaves of their
    own; a tensor passed twice stays one tensor, so its gradient adds up as
    on CPU)."""
    moved: Dict[int, torch.Tensor] = {}

    def move(x):
        if not isinstance(x, torch.Tensor):
            return x
        if id(x) not in moved:
            moved[id(x)] = x.detach().to(device).requires_grad_(x.requires_grad)
        return moved[id(x)]

    return pytree.tree_map(move, tree)


def _grad_leaves(tree) -> List[torch.Tensor]:
    """The tensors of tree that require grad, each once."""
    out: Dict[int, torch.Tensor] = {}
    for t in pytree.tree_leaves(tree):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            out.setdefault(id(t), t)
    return list(out.values())


def _close(actual, expected, where: str) -> None:
    assert isinstance(actual, torch.Tensor), f"{where}: tpu gave {type(actual).__name__}"
    assert actual.device.type == DEVICE, f"{where} is on {actual.device}"
    assert actual.dtype == expected.dtype, f"{where}: tpu {actual.dtype}, CPU {expected.dtype}"
    assert actual.shape == expected.shape, (
        f"{where}: tpu shape {tuple(actual.shape)}, CPU {tuple(expected.shape)}")
    torch.testing.assert_close(actual.detach().cpu(), expected.detach(), equal_nan=True,
                               check_stride=False, msg=lambda m: f"{where}: {m}",
                               **TOLERANCES.get(expected.dtype, {}))


def _compare_tree(actual, expected, what: str) -> None:
    a_leaves, a_spec = pytree.tree_flatten(actual)
    e_leaves, e_spec = pytree.tree_flatten(expected)
    assert a_spec == e_spec, f"{what}: structure differs: tpu {a_spec}, CPU {e_spec}"
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        where = f"{what} {i}" if len(e_leaves) > 1 else what
        if isinstance(e, torch.Tensor):
            _close(a, e, where)
        else:
            assert type(a) is type(e) and a == e, f"{where}: tpu {a!r}, CPU {e!r}"


def _grad_outputs(outputs, seed: int) -> Tuple[List[torch.Tensor], List[torch.Tensor]]:
    """The outputs backward starts from and a seeded random grad for each (CPU)."""
    g = torch.Generator().manual_seed(seed)
    outs = [t for t in pytree.tree_leaves(outputs) if isinstance(t, torch.Tensor)
            and t.requires_grad and (t.is_floating_point() or t.is_complex())]
    return outs, [torch.randn(t.shape, generator=g, dtype=t.dtype) for t in outs]


def _check_input(c: Case, info, dtype: torch.dtype, index: int, module_input) -> None:
    fi = module_input.forward_input
    cargs, ckwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
    args, kwargs = fi.args, fi.kwargs
    torch.manual_seed(_seed(c.id, index, "init"))
    with warnings.catch_warnings():  # CPU-side construction advice (nested tensors, ...)
        warnings.simplefilter("ignore")
        cpu_m = info.module_cls(*cargs, **ckwargs).to(dtype)
    cpu_m.train(c.training)
    if info.is_lazy:
        with torch.no_grad():
            cpu_m(*args, **kwargs)
    tpu_m = copy.deepcopy(cpu_m).to(DEVICE)
    t_args, t_kwargs = on_device(DEVICE, (args, kwargs))

    expected = cpu_m(*args, **kwargs)
    with torch_tpu.no_fallback():
        actual = tpu_m(*t_args, **t_kwargs)
        torch.tpu.synchronize()
    _compare_tree(actual, expected, "output")
    _compare_tree(dict(tpu_m.named_buffers()), dict(cpu_m.named_buffers()), "buffer")

    cpu_outs, grads = _grad_outputs(expected, _seed(c.id, index, "grad"))
    if not cpu_outs:
        return
    tpu_outs, _ = _grad_outputs(actual, 0)
    assert len(tpu_outs) == len(cpu_outs), (
        f"{len(tpu_outs)} tpu outputs require grad, {len(cpu_outs)} on CPU")
    cpu_leaves = _grad_leaves((args, kwargs)) + [p for p in cpu_m.parameters() if p.requires_grad]
    tpu_leaves = _grad_leaves((t_args, t_kwargs)) + [p for p in tpu_m.parameters()
                                                     if p.requires_grad]
    names = [f"input grad {i}" for i in range(len(_grad_leaves((args, kwargs))))]
    names += [f"grad of {n}" for n, p in cpu_m.named_parameters() if p.requires_grad]
    expected_grads = torch.autograd.grad(cpu_outs, cpu_leaves, grads, allow_unused=True)
    with torch_tpu.no_fallback():
        actual_grads = torch.autograd.grad(tpu_outs, tpu_leaves, [g.to(DEVICE) for g in grads],
                                           allow_unused=True)
        torch.tpu.synchronize()
    for name, a, e in zip(names, actual_grads, expected_grads):
        assert (a is None) == (e is None), (
            f"{name}: {'None' if a is None else 'a tensor'} on tpu, "
            f"{'None' if e is None else 'a tensor'} on CPU")
        if e is not None:
            _close(a, e, name)


def _check(c: Case) -> None:
    info = module_info(c.module)
    dtype = getattr(torch, c.dtype)
    torch.manual_seed(_seed(c.id, "inputs"))
    module_inputs = [mi for mi in info.module_inputs_func(
        info, device="cpu", dtype=dtype, requires_grad=True, training=c.training)
        if mi.forward_input is not None][:c.inputs]
    assert len(module_inputs) == c.inputs, (
        f"{c.module} has {len(module_inputs)} ModuleInputs in {c.dtype}, the generated test "
        f"expects {c.inputs}: regenerate the tests (python -m codegen generate)")
    for i, mi in enumerate(module_inputs):
        try:
            _check_input(c, info, dtype, i, mi)
        except BaseException as e:
            if hasattr(e, "add_note"):
                e.add_note(f"[{c.id} ModuleInput {i}{' ' + mi.desc if mi.desc else ''}]")
            raise


def run(c: Case) -> None:
    """Runs one generated test."""
    try:
        _check(c)
    except BaseException as e:
        # pytest keeps the traceback for its report; without their locals the
        # frames hold no device memory (the leak check would fail too).
        traceback.clear_frames(e.__traceback__)
        if c.xfail and isinstance(e, Exception) and matches(c.xfail, c.raises, e):
            raise KnownFailure(f"{c.xfail} (as expected)") from e
        raise
