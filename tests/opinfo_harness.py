"""The logic behind the generated OpInfo tests (tests/generated/, written by
`python -m codegen` from ops.yaml through codegen/tests_emit.py). Generated
files hold only data: one Entry per ops.yaml entry and one case() per
(check, OpInfo, dtype); run(case) does the rest.

Checks (each over the OpInfo's CPU sample inputs, contiguous and
non-contiguous, moved to tpu with their exact layout):
  values  tpu results equal CPU eager's: values (exact for integer and bool,
          torch's default or the entry's tolerances otherwise), shape, dtype,
          strides, storage offset, and aliasing of the inputs. Where torch's
          own device-vs-CPU test does not compare values (empty, ...), only
          the metadata is compared.
  meta    FakeTensorMode on fake tpu tensors (from_tensor of the real inputs)
          predicts the real tpu results' shape, dtype, device, strides and
          storage offset.
  out     op(..., out=t) into a contiguous and a non-contiguous tpu tensor
          returns t, keeps its strides and storage, and equals CPU's out=.
Every check also proves the route (torch_tpu.stats(), reset before each tpu
call): the entry's registered overloads ran through its route (a stub
entry's DispatchStub kernel ran), and nothing fell back to the host unless
the entry's route is "fallback". References are always computed on CPU; the
fallback policy is never changed here.
"""

from __future__ import annotations

import functools
import os
import traceback
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple, Union

import pytest
import torch
import torch_tpu
from torch.utils import _pytree as pytree

DEVICE = "tpu"
CHECKS = ("values", "meta", "out")


@dataclass(frozen=True)
class Entry:
    """One ops.yaml entry, as the generated tests see it."""
    op: str                              # "add.Tensor"
    route: str                           # direct / stub / composite / fallback
    variants: Tuple[str, ...] = ()       # overloads registered for tpu
    stub: str = ""                       # route stub: the DispatchStub
    out: str = ""                        # the out= overload the out check calls
    family: Tuple[str, ...] = ()         # route composite: the overloads that decompose
    atol: Union[None, float, Dict[str, float]] = None   # per dtype name, or for all
    rtol: Union[None, float, Dict[str, float]] = None


@dataclass(frozen=True)
class Case:
    """One generated test: one check of one entry with one OpInfo and dtype."""
    entry: Entry
    check: str                           # values / meta / out
    opinfo: str                          # OpInfo name
    variant: str                         # OpInfo variant_test_name ("" for none)
    dtype: str                           # torch attribute name: "float32"
    compare_values: bool = True          # False: metadata only (torch does not compare)
    xfail: str = ""                      # reason of a strict xfail ("" for none)

    @property
    def opinfo_name(self) -> str:
        return f"{self.opinfo}.{self.variant}" if self.variant else self.opinfo

    @property
    def id(self) -> str:
        return f"{self.check}-{self.entry.op}-{self.opinfo_name}-{self.dtype}"


def case(entry: Entry, check: str, opinfo: str, dtype: str, *, variant: str = "",
         compare_values: bool = True, xfail: str = ""):
    """A pytest parameter for one Case; a known failure becomes a strict xfail."""
    assert check in CHECKS, check
    c = Case(entry, check, opinfo, variant, dtype, compare_values, xfail)
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(c, id=c.id, marks=marks)


# --- OpInfos ---------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _op_db() -> Dict[Tuple[str, str], Any]:
    from codegen.opinfo_db import all_opinfos

    return {(o.name, o.variant_test_name): o for o in all_opinfos()}


def opinfo(name: str, variant: str = ""):
    try:
        return _op_db()[(name, variant)]
    except KeyError:
        raise LookupError(f"no OpInfo {name!r} (variant {variant!r}) in this torch's op_db; "
                          "regenerate the tests: python -m codegen") from None


# --- moving samples ----------------------------------------------------------

def mirror(t, device: str, memo: Dict):
    """t's copy on device with exactly t's layout (sizes, strides, storage
    offset, the whole storage): unlike t.to(device), a non-contiguous or
    partial view stays one. Tensors sharing a storage (memo) keep sharing it."""
    if not isinstance(t, torch.Tensor):
        return t
    if t.layout != torch.strided or t.is_conj() or t.is_neg() or t.device.type != "cpu":
        return t.to(device, copy=True)
    storage = t.untyped_storage()
    key = storage.data_ptr() if storage.nbytes() else ("empty", id(t))
    dev = memo.get(key)
    if dev is None:
        flat = torch.empty(0, dtype=torch.uint8).set_(storage, 0, (storage.nbytes(),), (1,))
        dev = memo[key] = flat.to(device, copy=True).untyped_storage()
    out = torch.empty(0, dtype=t.dtype, device=device)
    with torch.no_grad():
        out.set_(dev, t.storage_offset(), t.size(), t.stride())
    return out.requires_grad_(t.requires_grad)


def transform(sample, fn):
    """sample.transform(fn), without keeping fn alive: SampleInput.transform's
    recursive closure is a reference cycle, and would hold fn (and the device
    memory it references) until the next garbage collection."""
    box = [fn]
    out = sample.transform(lambda t: box[0](t))
    box.clear()
    return out


def moved(sample, device: str):
    """A fresh copy of a CPU SampleInput on device (also on "cpu": a copy)."""
    memo: Dict = {}
    s = transform(sample, functools.partial(mirror, device=device, memo=memo))
    memo.clear()
    if device != "cpu":  # factory samples name the device in their kwargs
        for k, v in list(s.kwargs.items()):
            if k == "device" and v is not None and torch.device(v).type == "cpu":
                s.kwargs[k] = device
    return s


def _has_tensors(sample) -> bool:
    leaves = pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
    return any(isinstance(x, torch.Tensor) for x in leaves)


def layouts(sample):
    """(label, sample) for the contiguous sample and its non-contiguous twin."""
    out = [("contiguous", sample)]
    if _has_tensors(sample):
        out.append(("non-contiguous", sample.noncontiguous()))
    return out


def call(op, sample, **extra):
    return op(sample.input, *sample.args, **sample.kwargs, **extra)


# --- the route proof -------------------------------------------------------

def _forced() -> frozenset:
    """Ops TORCH_TPU_FORCE_FALLBACK moves to the host (as csrc/aten/op_registry.cpp reads it)."""
    names = set()
    for item in os.environ.get("TORCH_TPU_FORCE_FALLBACK", "").split(","):
        item = item.strip()
        if item.startswith("aten::"):
            item = item[len("aten::"):]
        if item:
            names.add(item)
    return frozenset(names)


class RouteError(AssertionError):
    """The call did not go where the manifest says (e.g. a host fallback)."""


class Route:
    """Runs tpu calls with fresh telemetry and proves the entry's route.

    For every call: no host fallback (unless the route is fallback, or
    TORCH_TPU_FORCE_FALLBACK moved the entry's overload to the host). Over the
    whole test (finish()): one of the entry's registered overloads
    (`overloads`, by default all of them) was counted under the route; a stub
    entry's stub kernel ran; a composite entry's op was seen decomposing
    (traced with torch_tpu.trace_ops(), which sees ops with tensor inputs
    only: for factories, only that tpu kernels ran) and some tpu kernel ran."""

    def __init__(self, entry: Entry, overloads: Tuple[str, ...] = ()):
        self.entry = entry
        self.overloads = tuple(overloads or entry.variants or entry.family or (entry.op,))
        forced = _forced()
        self.forced = {v for v in entry.variants if "all" in forced or v in forced}
        self.calls = 0
        self.reached = 0            # calls that counted one of `overloads` under the route
        self.stub_calls = 0
        self.device_kernels = 0     # calls that ran any op on tpu without fallback
        self.tensorless = 0         # calls without tensor inputs (factories)
        self.seen: Dict[str, Dict[str, int]] = {}

    def __call__(self, fn: Callable, *args, **kwargs):
        """fn(*args, **kwargs): one tpu call. (No closures over device tensors
        here: a frame keeps its function alive, and a failing check's
        traceback would keep the tensors in its closure.)"""
        torch_tpu.reset_stats()
        if self.entry.route == "composite":  # count the ops that decompose, too
            with torch_tpu.trace_ops():
                result = fn(*args, **kwargs)
        else:
            result = fn(*args, **kwargs)
        snap = torch_tpu.stats()
        self.calls += 1
        inputs = [(a.input, a.args, a.kwargs) if hasattr(a, "kwargs") else a for a in args]
        if not any(isinstance(x, torch.Tensor) for x in pytree.tree_leaves((inputs, kwargs))):
            self.tensorless += 1  # a factory: composite tracing cannot see it
        for op, routes in snap["ops"].items():
            mine = self.seen.setdefault(op, {})
            for route, n in routes.items():
                mine[route] = mine.get(route, 0) + n
        fallback = {op: r["fallback"] for op, r in snap["ops"].items() if "fallback" in r}
        allowed = {f"aten::{v}" for v in self.forced}
        if self.entry.route == "fallback":
            allowed |= {f"aten::{v}" for v in self.entry.variants}
        unexpected = {op: n for op, n in fallback.items() if op not in allowed}
        if unexpected:
            raise RouteError(
                "host fallback happened (route of " + self.entry.op + " is " + self.entry.route +
                "): " + ", ".join(f"{op} x{n}" for op, n in sorted(unexpected.items())) +
                "; give these ops tpu kernels or declare them in ops.yaml")
        if any(self._counted(snap, v) for v in self.overloads):
            self.reached += 1
        self.stub_calls += snap["stubs"].get(self.entry.stub, 0) if self.entry.stub else 0
        if any(r in ("direct", "stub") for routes in snap["ops"].values() for r in routes):
            self.device_kernels += 1
        return result

    def _counted(self, snap, overload: str) -> bool:
        route = "fallback" if overload in self.forced else self.entry.route
        return snap["ops"].get(f"aten::{overload}", {}).get(route, 0) > 0

    def finish(self) -> None:
        e = self.entry
        if not self.calls:
            return
        seen = "; counted: " + (", ".join(f"{op} {r}" for op, r in sorted(self.seen.items()))
                                or "nothing")
        if e.route == "composite":
            if not (self.reached or self.tensorless == self.calls):
                raise RouteError(f"{e.op} (route composite): none of {', '.join(self.overloads)} "
                                 f"was seen decomposing on tpu (torch_tpu.trace_ops()){seen}")
            if not self.device_kernels:
                raise RouteError(f"{e.op} (route composite) ran no tpu kernel at all{seen}")
            return
        if not self.reached:
            raise RouteError(
                f"{e.op} (route {e.route}): none of {', '.join(self.overloads)} was called "
                f"through route {e.route} by this OpInfo's samples{seen}. If the OpInfo "
                "exercises another overload, name a better one in the entry's tests.opinfo, "
                "or add a tests.xfail")
        if e.route == "stub" and not (set(self.overloads) <= self.forced) and not self.stub_calls:
            raise RouteError(
                f"{e.op}: the tpu kernel of {e.stub} never ran (torch_tpu.stats()['stubs']): "
                f"the wrappers ran but the DispatchStub did not reach the tpu kernel{seen}")


# --- comparisons -----------------------------------------------------------

def _tolerances(entry: Entry, dtype: torch.dtype) -> Dict[str, float]:
    if not (dtype.is_floating_point or dtype.is_complex):
        return {"atol": 0.0, "rtol": 0.0}
    name = str(dtype).replace("torch.", "")
    atol, rtol = (t.get(name) if isinstance(t, dict) else t for t in (entry.atol, entry.rtol))
    if atol is None and rtol is None:
        return {}
    from torch.testing._comparison import default_tolerances

    default_rtol, default_atol = default_tolerances(dtype)
    return {"atol": default_atol if atol is None else atol,
            "rtol": default_rtol if rtol is None else rtol}


def _storages(sample) -> set:
    leaves = pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
    return {x.untyped_storage().data_ptr() for x in leaves
            if isinstance(x, torch.Tensor) and x.untyped_storage().nbytes()}


def _aliases(t: torch.Tensor, storages: set) -> bool:
    return bool(t.untyped_storage().nbytes()) and t.untyped_storage().data_ptr() in storages


def _layout(t: torch.Tensor):
    return dict(shape=tuple(t.shape), dtype=t.dtype, stride=t.stride(),
                storage_offset=t.storage_offset(), conj=t.is_conj(), neg=t.is_neg())


def to_cpu(t: torch.Tensor) -> torch.Tensor:
    """t on CPU with its conj/neg bits. The bits are dropped on tpu (a view of
    the same memory) and set again on CPU, so no tpu copy sees them."""
    conj, neg = t.is_conj(), t.is_neg()
    if conj:
        t = t._conj()
    if neg:
        t = t._neg_view()
    out = t.cpu()
    if neg:
        out = out._neg_view()
    if conj:
        out = out._conj()
    return out


def compare(actual, expected, entry: Entry, values: bool, actual_in=None, expected_in=None):
    """tpu results against CPU's: same structure; per tensor the same layout,
    aliasing of the inputs, and (if values) values."""
    a_leaves, a_spec = pytree.tree_flatten(actual)
    e_leaves, e_spec = pytree.tree_flatten(expected)
    assert a_spec == e_spec, f"result structure differs: tpu {a_spec}, cpu {e_spec}"
    a_in = _storages(actual_in) if actual_in is not None else set()
    e_in = _storages(expected_in) if expected_in is not None else set()
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        where = f"result {i}" if len(a_leaves) > 1 else "result"
        if isinstance(e, torch.Tensor):
            assert isinstance(a, torch.Tensor), f"{where}: tpu returned {type(a).__name__}"
            assert a.device.type == (DEVICE if e.device.type == "cpu" else e.device.type), (
                f"{where} is on {a.device}")
            assert _layout(a) == _layout(e), f"{where}: tpu {_layout(a)} != cpu {_layout(e)}"
            assert _aliases(a, a_in) == _aliases(e, e_in), (
                f"{where}: aliases an input on {'tpu' if _aliases(a, a_in) else 'cpu'} only")
            if values:
                torch.testing.assert_close(to_cpu(a), e, equal_nan=True, check_stride=False,
                                           msg=lambda m: f"{where}: {m}",
                                           **_tolerances(entry, e.dtype))
        elif isinstance(e, (bool, int, float, complex)) and not isinstance(a, torch.Tensor):
            if values:
                torch.testing.assert_close(a, e, equal_nan=True)
        else:
            assert type(a) is type(e) and (not values or a == e), f"{where}: tpu {a!r}, cpu {e!r}"


def _describe(e: BaseException, label: str, index: int, sample) -> None:
    note = f"[{label} sample {index}] {_summary(sample)}"
    if hasattr(e, "add_note"):
        e.add_note(note)


def _summary(sample) -> str:
    try:
        return sample.summary()
    except Exception:
        return repr(sample)[:300]


# --- the checks ------------------------------------------------------------

def _samples(c: Case):
    torch.manual_seed(zlib.crc32(c.id.encode()))
    op = opinfo(c.opinfo, c.variant)
    return op, list(op.sample_inputs("cpu", getattr(torch, c.dtype), requires_grad=False))


def _check_values(c: Case, op, samples, route: Route) -> int:
    compared = 0
    for i, sample in enumerate(samples):
        for label, s in layouts(sample):
            cpu_in, tpu_in = moved(s, "cpu"), moved(s, DEVICE)
            try:
                expected = s.output_process_fn_grad(call(op, cpu_in))
            except Exception as cpu_error:
                with pytest.raises(type(cpu_error)):
                    route(call, op, tpu_in)
                continue
            try:
                actual = s.output_process_fn_grad(route(call, op, tpu_in))
                compare(actual, expected, c.entry, c.compare_values, tpu_in, cpu_in)
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
    return compared


def _not_fakeable():
    from torch._subclasses.fake_tensor import (DataDependentOutputException,
                                               DynamicOutputShapeException)

    return (DataDependentOutputException, DynamicOutputShapeException)


def _check_meta(c: Case, op, samples, route: Route) -> int:
    from torch._subclasses.fake_tensor import FakeTensorMode

    compared = data_dependent = 0
    for i, sample in enumerate(samples):
        for label, s in layouts(sample):
            real_in = moved(s, DEVICE)
            mode = FakeTensorMode()
            fake_in = transform(moved(s, DEVICE),
                                lambda t: mode.from_tensor(t) if isinstance(t, torch.Tensor) else t)
            try:
                try:
                    real = route(call, op, real_in)
                except RouteError:
                    raise
                except Exception:
                    try:  # an invalid sample (CPU refuses it too) has no layout to predict
                        call(op, moved(s, "cpu"))
                    except Exception:
                        continue
                    raise  # a tpu failure, not FakeTensor's
                try:
                    with mode:
                        fake = call(op, fake_in)
                except _not_fakeable():
                    data_dependent += 1  # FakeTensor cannot know such an output
                    continue
                r_leaves, r_spec = pytree.tree_flatten(real)
                f_leaves, f_spec = pytree.tree_flatten(fake)
                assert r_spec == f_spec, f"structure: real {r_spec}, fake {f_spec}"
                for k, (r, f) in enumerate(zip(r_leaves, f_leaves)):
                    if isinstance(r, torch.Tensor):
                        assert isinstance(f, torch.Tensor), f"result {k}: fake {type(f).__name__}"
                        assert f.device == r.device, f"result {k}: fake on {f.device}, real {r.device}"
                if _layouts(f_leaves) != _layouts(r_leaves):
                    _same_as_cpu(op, s, _layouts(r_leaves), _layouts(f_leaves))
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
    if not compared and data_dependent:
        pytest.skip(f"FakeTensor cannot predict {c.opinfo_name}'s outputs: they depend on "
                    "the data (DataDependentOutputException/DynamicOutputShapeException)")
    return compared


def _layouts(leaves):
    return [_layout(t) if isinstance(t, torch.Tensor) else None for t in leaves]


def _same_as_cpu(op, s, real, fake) -> None:
    """The fake tpu results' layout differs from the real ones: fine only if
    FakeTensor mispredicts CPU eager in exactly the same way (an upstream
    FakeTensor quirk, e.g. empty_like of a zero-size non-contiguous tensor),
    and tpu agrees with CPU eager."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    cpu_real = _layouts(pytree.tree_leaves(call(op, moved(s, "cpu"))))
    mode = FakeTensorMode()
    fake_in = transform(moved(s, "cpu"),
                        lambda t: mode.from_tensor(t) if isinstance(t, torch.Tensor) else t)
    with mode:
        cpu_fake = _layouts(pytree.tree_leaves(call(op, fake_in)))
    for k, (r, f) in enumerate(zip(real, fake)):
        if r == f:
            continue
        assert cpu_real[k] == r and cpu_fake[k] == f, (
            f"result {k}: FakeTensor predicts {f}, real tpu is {r} "
            f"(on CPU: fake {cpu_fake[k]}, real {cpu_real[k]})")


def _out_like(expected, contiguous: bool):
    """Fresh CPU out= tensors shaped like expected: contiguous, or strided views
    into a larger buffer (torch's noncontiguous_like)."""
    from torch.testing._internal.common_utils import noncontiguous_like

    def make(e):
        # A sentinel where the op must write, so an unwritten element shows.
        sentinel = True if e.dtype == torch.bool else (
            float("nan") if e.dtype.is_floating_point or e.dtype.is_complex else 12)
        t = torch.full(e.shape, sentinel, dtype=e.dtype)
        return t if contiguous else noncontiguous_like(t)

    return pytree.tree_map_only(torch.Tensor, make, expected)


def _check_out(c: Case, op, samples, route: Route) -> int:
    compared = 0
    for i, s in enumerate(samples):
        try:
            expected = call(op, moved(s, "cpu"))
        except Exception:
            continue  # not a valid sample on CPU: nothing to compare with
        if not pytree.tree_leaves(expected) or not all(
                isinstance(x, torch.Tensor) for x in pytree.tree_leaves(expected)):
            continue
        for contiguous in (True, False):
            label = "contiguous out" if contiguous else "non-contiguous out"
            cpu_out = _out_like(expected, contiguous)
            memo: Dict = {}
            tpu_out = pytree.tree_map_only(torch.Tensor,
                                           functools.partial(mirror, device=DEVICE, memo=memo),
                                           cpu_out)
            before = [(t.stride(), t.storage_offset(), t.data_ptr())
                      for t in pytree.tree_leaves(tpu_out)]
            tpu_in = moved(s, DEVICE)
            try:
                cpu_res = call(op, moved(s, "cpu"), out=cpu_out)
            except Exception as cpu_error:  # e.g. nonzero(as_tuple=True) takes no out=
                with pytest.raises(type(cpu_error)):
                    route(call, op, tpu_in, out=tpu_out)
                continue
            try:
                tpu_res = route(call, op, tpu_in, out=tpu_out)
                for k, (r, o) in enumerate(zip(pytree.tree_leaves(tpu_res),
                                               pytree.tree_leaves(tpu_out))):
                    assert r is o, f"out {k}: op(..., out=t) did not return t"
                after = [(t.stride(), t.storage_offset(), t.data_ptr())
                         for t in pytree.tree_leaves(tpu_out)]
                assert after == before, (
                    f"out= tensors changed layout or storage: {before} -> {after}")
                del cpu_res
                compare(tpu_out, cpu_out, c.entry, c.compare_values)
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
    return compared


_CHECKS = {"values": _check_values, "meta": _check_meta, "out": _check_out}


def run(c: Case) -> None:
    """Runs one generated test."""
    op, samples = _samples(c)
    if c.check == "out":
        route = Route(c.entry, (c.entry.out,) if c.entry.out in c.entry.variants else ())
    else:
        route = Route(c.entry)
    try:
        compared = _CHECKS[c.check](c, op, samples, route)
    except BaseException as e:
        # pytest keeps the traceback for its report; without their locals the
        # failed check's frames do not hold device memory (the leak check
        # would report a second, bogus failure).
        traceback.clear_frames(e.__traceback__)
        raise
    if not compared:
        pytest.fail(f"OpInfo {c.opinfo_name} has no {c.dtype} sample that runs on CPU "
                    f"for the {c.check} check")
    route.finish()
