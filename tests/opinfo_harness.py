"""The logic behind the generated OpInfo tests (tests/generated/, written by
`python -m codegen` from ops.yaml through codegen/testgen/op_tests.py). Generated
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
          returns t, keeps its strides and storage, and equals CPU's result.
  reference  the values check over the OpInfo's reference_inputs (extremal,
          small and large values, empty, broadcast and oddly strided tensors)
          in the layout they come in: the first MAX_REFERENCE_SAMPLES without
          a tensor over MAX_REFERENCE_NUMEL elements.
  grad    backward: with a seeded random grad_output for every output that
          requires grad, torch.autograd.grad on tpu equals CPU's w.r.t. every
          input that requires grad (up to MAX_GRAD_SAMPLES OpInfo samples,
          made with requires_grad=True; the values check's tolerances).
  errors  every ErrorInput (OpInfo.error_inputs) that raises on CPU raises
          on tpu too, with the same exception type, and where CPU's message
          matches the ErrorInput's error_regex, tpu's matches it too.
  autocast  under torch.autocast("tpu", dtype=bfloat16/float16), the result
          equals CPU eager run on inputs cast as the entry's policy casts them,
          and has the dtype the policy implies.
A dtype the OpInfo has on CUDA only (cpu_lacks: float16 FFTs, integer
histc, ...) is checked the same way (values, meta, out, reference) against
CPU computing in a wider dtype, rounded back (tests/cuda_dtype_reference.py).
Every check also proves the route (torch_tpu.stats(), reset before each tpu
call): the entry's registered overloads ran through its route (a stub
entry's DispatchStub kernel ran), and nothing fell back to the host unless
the entry's route is "fallback" (the errors check only the latter: an error
may come before the op reaches its kernel). References are always computed
on CPU; the fallback policy is never changed here.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import traceback
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple, Union

import pytest
import torch
import torch_tpu
from torch.utils import _pytree as pytree

import cuda_dtype_reference
from known_failures import NothingCompared, RouteError, xfail as known_failure

DEVICE = "tpu"
# The meta check predicts each sample twice (FakeTensor, meta device) through
# torch's Python meta functions: the first samples that reach the entry's
# overloads, in both layouts, cover the shapes and strides of an OpInfo (the
# values check runs up to MAX_VALUES_SAMPLES).
MAX_META_SAMPLES = 12
# torch's reference_inputs functions for elementwise ops yield the sample
# inputs, then more shapes, small, large and extremal values (up to 62 samples
# in 2.13), then all of those again non-contiguous, then oddly strided ones:
# the first 64 hold all the values. Inputs with a tensor of more than
# MAX_REFERENCE_NUMEL elements ((1029, 917), (1024, 1024): ~90% of the
# check's time, in assert_close) are left out; the kernel tests run large shapes.
MAX_REFERENCE_SAMPLES = 64
MAX_REFERENCE_NUMEL = 1 << 16
# The grad check runs at most this many of an OpInfo's samples, evenly spaced
# (max_pool2d has 1440: one CPU backward each costs more than the rest of
# the check).
MAX_GRAD_SAMPLES = 32
# The values and out checks run every sample of an OpInfo up to this many,
# and beyond it this many evenly spaced: a few OpInfos enumerate every
# parameter combination (max_pool2d: 1440 samples, ~9 s a dtype; max_pool1d
# 864, logspace 1201, max_pool3d 576, unique 528), and every fourth or fifth
# of them still covers each combination's class.
MAX_VALUES_SAMPLES = 360
CHECKS = ("values", "meta", "out", "reference", "grad", "errors", "autocast")


@dataclass(frozen=True)
class Entry:
    """One ops.yaml entry, as the generated tests see it."""
    op: str                              # "add.Tensor"
    route: str                           # direct / stub / composite / fallback
    variants: Tuple[str, ...] = ()       # overloads registered for tpu
    stub: str = ""                       # route stub: the DispatchStub
    also_stubs: Tuple[str, ...] = ()     # further DispatchStubs (sgn_stub for complex sgn)
    out: str = ""                        # the out= overload the out check calls
    family: Tuple[str, ...] = ()         # route composite: the overloads that decompose
    atol: Union[None, float, Dict[str, float]] = None   # per dtype name, or for all
    rtol: Union[None, float, Dict[str, float]] = None
    autocast: str = ""                   # the entry's autocast policy ("" = none)
    # dtypes whose CPU reference is computed in float32 and rounded back
    # (ops.yaml tests.float32_reference)
    float32_reference: Tuple[str, ...] = ()
    # outputs whose dtype follows FakeTensor and CUDA, not CPU (ops.yaml
    # tests.follows_fake): values compared in CPU's dtype
    follows_fake: Tuple[int, ...] = ()


@dataclass(frozen=True)
class Case:
    """One generated test: one check of one entry with one OpInfo and dtype."""
    entry: Entry
    check: str                           # values / meta / out / autocast
    opinfo: str                          # OpInfo name
    variant: str                         # OpInfo variant_test_name ("" for none)
    dtype: str                           # torch attribute name: "float32"; for autocast,
                                         # the autocast dtype (bfloat16, float16); "" for
                                         # errors (error inputs choose their own dtypes)
    compare_values: bool = True          # False: metadata only (torch does not compare)
    xfail: str = ""                      # reason of a strict xfail ("" for none)
    raises: str = ""                     # the exception the xfail expects (known_failures)
    cpu_lacks: bool = False              # a dtype of the OpInfo on CUDA only: widened reference

    @property
    def opinfo_name(self) -> str:
        return f"{self.opinfo}.{self.variant}" if self.variant else self.opinfo

    @property
    def id(self) -> str:
        dtype = f"-{self.dtype}" if self.dtype else ""
        return f"{self.check}-{self.entry.op}-{self.opinfo_name}{dtype}"


def case(entry: Entry, check: str, opinfo: str, dtype: str, *, variant: str = "",
         compare_values: bool = True, xfail: str = "", raises: str = "", cpu_lacks: bool = False):
    """A pytest parameter for one Case; a known failure becomes a strict xfail
    that only its exception (raises) satisfies."""
    assert check in CHECKS, check
    c = Case(entry, check, opinfo, variant, dtype, compare_values, xfail, raises, cpu_lacks)
    marks = [known_failure(xfail, raises)] if xfail or raises else []
    return pytest.param(c, id=c.id, marks=marks)


# --- OpInfos ---------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _op_db() -> Dict[Tuple[str, str], Any]:
    import gc

    from codegen.facts.opinfo_db import all_opinfos

    db = {(o.name, o.variant_test_name): o for o in all_opinfos()}
    # op_db and the modules it imports are ~450K objects that live as long as
    # the process: out of the collector's way, a gc.collect() (the leak check
    # runs one whenever a test left garbage) takes ms instead of 0.2 s.
    gc.collect()
    gc.freeze()
    return db


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
        # a copy made under no_grad (SampleInput.transform) does not require
        # grad by itself; it is a leaf, so it can be told to
        return t.to(device, copy=True).requires_grad_(t.requires_grad)
    storage = t.untyped_storage()
    key = storage.data_ptr() if storage.nbytes() else ("empty", id(t))
    dev = memo.get(key)
    if dev is None:
        flat = torch.empty(0, dtype=torch.uint8).set_(storage, 0, (storage.nbytes(),), (1,))
        # non_blocking: the runtime stages the pageable source at once, so the
        # copy needs no round trip to the device (the comparison syncs)
        dev = memo[key] = flat.to(device, copy=True, non_blocking=True).untyped_storage()
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


def _reaches_device(sample) -> bool:
    """Whether moving the sample to tpu makes the call run there: it has a
    tensor, or names a device (a factory). Python scalars only (binary
    reference and error inputs) run on CPU whatever the device."""
    return _has_tensors(sample) or sample.kwargs.get("device") is not None


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
    """Ops TORCH_TPU_FORCE_FALLBACK moves to the host (as csrc/aten/device/op_registry.cpp reads it)."""
    names = set()
    for item in os.environ.get("TORCH_TPU_FORCE_FALLBACK", "").split(","):
        item = item.strip()
        if item.startswith("aten::"):
            item = item[len("aten::"):]
        if item:
            names.add(item)
    return frozenset(names)


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
        self.stub_calls += sum(snap["stubs"].get(stub, 0) for stub in (self.entry.stub, *self.entry.also_stubs)
                               if stub)
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
                f"{e.op}: the tpu kernel of {' or '.join((e.stub, *e.also_stubs))} never ran (torch_tpu.stats()['stubs']): "
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
    the same memory) and set again on CPU, so no tpu copy sees them.
    complex32 (tpu's float16 FFTs) moves as its float16 pairs: tpu's strided
    copies do not take complex32."""
    conj, neg = t.is_conj(), t.is_neg()
    if conj:
        t = t._conj()
    if neg:
        t = t._neg_view()
    if t.dtype == torch.complex32 and t.device.type != "cpu":
        out = torch.view_as_complex(torch.view_as_real(t).cpu().contiguous())
    else:
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
        if isinstance(e, torch.Tensor) and i in entry.follows_fake:
            # Its dtype (and shape) are FakeTensor's, which the meta check holds
            # it to; where CPU returns none (an empty tensor), there is no value.
            assert isinstance(a, torch.Tensor), f"{where}: tpu returned {type(a).__name__}"
            if values and (e.numel() or not a.numel()):
                torch.testing.assert_close(to_cpu(a).to(e.dtype), e, equal_nan=True, check_stride=False,
                                           msg=lambda m: f"{where}: {m}", **_tolerances(entry, e.dtype))
        elif isinstance(e, torch.Tensor):
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


def assert_values(actual, expected, entry: Entry) -> None:
    """Values only (any layout): tpu results against CPU's."""
    for k, (a, e) in enumerate(zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected))):
        torch.testing.assert_close(to_cpu(a), e, equal_nan=True, check_stride=False,
                                   msg=lambda m, k=k: f"result {k}: {m}",
                                   **_tolerances(entry, e.dtype))


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

def _seeded(inputs):
    """The OpInfo's inputs exactly as op.sample_inputs() (reference_inputs(),
    error_inputs()) yields them under pytest, at a fraction of the cost. Those
    wrap the generator in a TrackedInputIter that looks for a unittest test
    on the stack (inspect.stack(): ~5-20 ms under pytest, twice per call) and
    calls torch.manual_seed(SEED) before every sample; that seeds CUDA, XPU
    and MTIA too, and each of those, never initialised here, formats a
    traceback of the stack to queue the call (~1.3 ms a sample, 25% of a
    values check). This seeds what the samples and the later tpu calls can
    read: the CPU and tpu generators, Python's and NumPy's."""
    import random

    from torch.testing._internal import common_utils

    seed = common_utils.SEED  # no unittest test on the stack: TrackedInputIter's choice too
    it = iter(inputs)
    while True:
        torch.default_generator.manual_seed(seed)
        torch.tpu.manual_seed_all(seed)
        random.seed(seed)
        if common_utils.TEST_NUMPY:
            import numpy

            numpy.random.seed(seed)
        try:
            yield next(it)
        except StopIteration:
            return


def _samples(c: Case):
    torch.manual_seed(zlib.crc32(c.id.encode()))
    op = opinfo(c.opinfo, c.variant)
    if c.check == "errors":
        return op, list(_seeded(op.error_inputs_func(op, "cpu")))
    dtype = autocast_input_dtype(c.entry.autocast, c.dtype) if c.check == "autocast" else c.dtype
    dtype = getattr(torch, dtype)
    if c.check == "reference":
        make = op.reference_inputs_func or op.sample_inputs_func
        small = (s for s in _seeded(make(op, "cpu", dtype, False))
                 if all(t.numel() <= MAX_REFERENCE_NUMEL for t in _leaves(s)))
        return op, list(itertools.islice(small, MAX_REFERENCE_SAMPLES))
    samples = list(_seeded(op.sample_inputs_func(op, "cpu", dtype, c.check == "grad")))
    if c.check == "grad":
        samples = samples[::max(1, -(-len(samples) // MAX_GRAD_SAMPLES))]
    elif len(samples) > MAX_VALUES_SAMPLES:
        samples = samples[::-(-len(samples) // MAX_VALUES_SAMPLES)]
    return op, samples


def _reference(c: Case, op, sample, cpu_in, process=True):
    """CPU eager's result for the sample's CPU inputs (through the sample's
    output_process_fn_grad unless `process` is false). For a dtype the entry
    lists in float32_reference, the op runs with those tensors in float32 and
    its results are rounded back: CPU's own result in that dtype depends on
    the CPU model (oneDNN's float16 path rounds once, the portable one after
    every add)."""
    post = sample.output_process_fn_grad if process else (lambda r: r)
    if c.cpu_lacks:
        return cuda_dtype_reference.reference(op, cpu_in, getattr(torch, c.dtype), post=post)
    if c.dtype not in c.entry.float32_reference:
        return post(call(op, cpu_in))
    dtype = getattr(torch, c.dtype)
    up = transform(cpu_in, lambda t: t.float() if t.dtype == dtype else t)
    out = post(call(op, up))
    return pytree.tree_map(lambda t: t.to(dtype) if isinstance(t, torch.Tensor) and t.dtype == torch.float32
                           else t, out)


def _check_values(c: Case, op, samples, route: Route) -> int:
    compared = 0
    for i, sample in enumerate(samples):
        if not _reaches_device(sample):
            continue
        # reference inputs come in the layouts they test (non-contiguous included)
        for label, s in layouts(sample) if c.check == "values" else [("as given", sample)]:
            cpu_in, tpu_in = moved(s, "cpu"), moved(s, DEVICE)
            try:
                expected = _reference(c, op, s, cpu_in)
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


def _check_meta(c: Case, op, samples, route: Route) -> int:
    """The real tpu results against two predictions made without data:
    FakeTensorMode on fake tpu tensors (what torch.compile and torch.export
    trace with) and the meta device. Both must give the real results' shape,
    dtype, strides, storage offset and aliasing of the inputs."""
    compared = data_dependent = predicted_samples = 0
    for i, sample in enumerate(samples):
        if predicted_samples == MAX_META_SAMPLES:
            break
        predicted = False
        for label, s in layouts(sample):
            real_in = moved(s, DEVICE)
            reached, tensorless = route.reached, route.tensorless
            try:
                try:
                    real = route(call, op, real_in)
                except RouteError:
                    raise
                except Exception:
                    try:  # an invalid sample (CPU refuses it too) has no layout to predict
                        if c.cpu_lacks:
                            _reference(c, op, s, moved(s, "cpu"), process=False)
                        else:
                            call(op, moved(s, "cpu"))
                    except Exception:
                        continue
                    raise  # a tpu failure, not FakeTensor's
                if route.reached == reached and route.tensorless == tensorless:
                    continue  # the sample reaches another overload: not this entry's to predict
                predicted = True
                predictions = 0
                for how in ("fake", "meta"):
                    pred_in, ctx = _prediction_inputs(how, s, DEVICE)
                    try:
                        with ctx:
                            pred = call(op, pred_in)
                    except Exception as e:
                        if _not_predictable(how, e):
                            continue  # FakeTensor / meta cannot know such an output
                        raise
                    _same_prediction(how, op, s, real, real_in, pred, pred_in,
                                     getattr(torch, c.dtype) if c.cpu_lacks else None)
                    predictions += 1
                if not predictions:
                    data_dependent += 1
                    continue
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
        predicted_samples += predicted
    if not compared and data_dependent:
        pytest.skip(f"neither FakeTensor nor the meta device can predict {c.opinfo_name}'s "
                    "outputs: they depend on the data")
    return compared


def _prediction_inputs(how: str, s, device: str):
    """The sample as fake tensors on device under a FakeTensorMode ("fake"),
    or on the meta device with the same layout ("meta"); and the context to
    call the op in."""
    import contextlib

    from torch._subclasses.fake_tensor import FakeTensorMode

    if how == "meta":
        return moved(s, "meta"), contextlib.nullcontext()
    mode = FakeTensorMode()
    return transform(moved(s, device), lambda t: mode.from_tensor(t)
                     if isinstance(t, torch.Tensor) else t), mode


def _not_predictable(how: str, e: Exception) -> bool:
    """Whether e says the output depends on the data: FakeTensor's
    DataDependentOutputException/DynamicOutputShapeException (nonzero, item);
    on the meta device, the refusals of exactly those ops ("no correct
    data-independent implementation", "item() cannot be called on meta
    tensors", no Meta kernel for masked_select, repeat_interleave's index
    vector without output_size)."""
    if how == "fake":
        from torch._subclasses.fake_tensor import (DataDependentOutputException,
                                                   DynamicOutputShapeException)

        return isinstance(e, (DataDependentOutputException, DynamicOutputShapeException))
    text = str(e)
    return (isinstance(e, NotImplementedError) and (
        "data-independent" in text or "with Meta tensors" in text)) or (
        isinstance(e, RuntimeError) and ("cannot be called on meta tensors" in text or
                                          "cannot repeat_interleave a meta tensor without output_size" in text))


def _aliasing(outputs, sample) -> list:
    """Per output leaf: the index of the first input tensor whose storage it
    shares (None: fresh memory). Storage identity, not data pointers, so fake
    and meta tensors compare the same way."""
    inputs = _leaves(sample)
    first = {}
    for k, t in enumerate(inputs):
        first.setdefault(t.untyped_storage()._cdata, k)
    return [first.get(t.untyped_storage()._cdata) if isinstance(t, torch.Tensor) else None
            for t in pytree.tree_leaves(outputs)]


def _same_prediction(how: str, op, s, real, real_in, pred, pred_in,
                     narrow: Optional[torch.dtype] = None) -> None:
    r_leaves, r_spec = pytree.tree_flatten(real)
    p_leaves, p_spec = pytree.tree_flatten(pred)
    assert r_spec == p_spec, f"{how}: structure: real {r_spec}, {how} {p_spec}"
    for k, (r, p) in enumerate(zip(r_leaves, p_leaves)):
        if isinstance(r, torch.Tensor):
            assert isinstance(p, torch.Tensor), f"{how} result {k}: {type(p).__name__}"
            expected_device = r.device if how == "fake" else torch.device("meta")
            assert p.device == expected_device, f"{how} result {k} is on {p.device}"
    real_alias, pred_alias = _aliasing(real, real_in), _aliasing(pred, pred_in)
    assert real_alias == pred_alias, (
        f"{how}: outputs alias inputs {pred_alias} (index of the input, None = fresh), "
        f"the real tpu outputs {real_alias}")
    if _layouts(p_leaves) != _layouts(r_leaves):
        _same_as_cpu(how, op, s, _layouts(r_leaves), _layouts(p_leaves), narrow)


def _layouts(leaves):
    return [_layout(t) if isinstance(t, torch.Tensor) else None for t in leaves]


def _same_as_cpu(how: str, op, s, real, pred, narrow: Optional[torch.dtype] = None) -> None:
    """The predicted layout differs from the real tpu one: fine only if the
    same prediction mispredicts CPU eager in exactly the same way (an upstream
    quirk, e.g. FakeTensor's empty_like of a zero-size non-contiguous tensor),
    and tpu agrees with CPU eager. For a dtype CPU lacks (narrow), CPU runs
    the widened sample and dtypes are left out of the comparison."""
    strip = narrow is not None
    if strip:
        dtypes = [x and x["dtype"] for x in real], [x and x["dtype"] for x in pred]
        assert dtypes[0] == dtypes[1], f"{how} predicts dtypes {dtypes[1]}, real tpu has {dtypes[0]}"
        s = cuda_dtype_reference.widen(s, narrow)
        real, pred = _without_dtype(real, strip), _without_dtype(pred, strip)
    cpu_real = _without_dtype(_layouts(pytree.tree_leaves(call(op, moved(s, "cpu")))), strip)
    pred_in, ctx = _prediction_inputs(how, s, "cpu")
    with ctx:
        cpu_pred = _without_dtype(_layouts(pytree.tree_leaves(call(op, pred_in))), strip)
    for k, (r, p) in enumerate(zip(real, pred)):
        if r == p:
            continue
        assert cpu_real[k] == r and cpu_pred[k] == p, (
            f"result {k}: {how} predicts {p}, real tpu is {r} "
            f"(on CPU: {how} {cpu_pred[k]}, real {cpu_real[k]})")


def _without_dtype(layouts, strip: bool):
    """Layouts without their dtype (when strip)."""
    if not strip:
        return layouts
    return [None if x is None else {k: v for k, v in x.items() if k != "dtype"} for x in layouts]


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


def _out_layout(out):
    return [(t.stride(), t.storage_offset(), t.data_ptr()) for t in pytree.tree_leaves(out)]


def _layout_change(before, after):
    """Per out= tensor: the strides and offset after the call (None when
    unchanged) and whether it kept its memory."""
    return [(None if (b[0], b[1]) == (a[0], a[1]) else (a[0], a[1]), a[2] == b[2])
            for b, a in zip(before, after)]


def _cpu_out_target(c: Case, op, cpu_out):
    """The CPU tensors the reference's out= call writes for cpu_out: cpu_out,
    or for a dtype CPU lacks their twins in the wide dtype."""
    if not c.cpu_lacks:
        return cpu_out
    return cuda_dtype_reference.out_twins(op, cpu_out, getattr(torch, c.dtype))


def _cpu_out_call(c: Case, op, s, target):
    """CPU's out= call for the sample into target (_cpu_out_target)."""
    if not c.cpu_lacks:
        return call(op, moved(s, "cpu"), out=target)
    return cuda_dtype_reference.reference(op, moved(s, "cpu"), getattr(torch, c.dtype), out=target)


def _as_out(written, cpu_out):
    """What CPU wrote (written) in the dtypes of cpu_out, layout kept."""
    w, spec = pytree.tree_flatten(written)
    o, _ = pytree.tree_flatten(cpu_out)
    return pytree.tree_unflatten([cuda_dtype_reference.retyped(a, b.dtype) if a.dtype != b.dtype else a
                                  for a, b in zip(w, o)], spec)


def _refuses_out_as_cpu_does(c: Case, op, s, route: Route) -> None:
    """A sample CPU refuses: its out= form (an empty out of the input's
    dtype) raises on tpu what it raises on CPU, instead of going unchecked."""
    dtype = next((x.dtype for x in pytree.tree_leaves((s.input, s.args)) if isinstance(x, torch.Tensor)),
                 torch.float32)
    cpu_out, tpu_out = torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype, device=DEVICE)
    target = _cpu_out_target(c, op, cpu_out)
    try:
        _cpu_out_call(c, op, s, target)
    except Exception as cpu_error:
        with pytest.raises(type(cpu_error)):
            route(call, op, moved(s, DEVICE), out=tpu_out)
            torch.tpu.synchronize()  # a kernel's error shows at the next sync
        return
    # CPU takes it with out= (the reference refused only its float32 upcast): so must tpu.
    route(call, op, moved(s, DEVICE), out=tpu_out)
    torch.testing.assert_close(tpu_out.cpu(), _as_out(target, cpu_out), equal_nan=True)


def _check_out(c: Case, op, samples, route: Route) -> int:
    compared = 0
    for i, s in enumerate(samples):
        try:
            expected = _reference(c, op, s, moved(s, "cpu"), process=False)
        except Exception:
            _refuses_out_as_cpu_does(c, op, s, route)  # not a valid sample on CPU
            continue
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
            before = _out_layout(tpu_out)
            target = _cpu_out_target(c, op, cpu_out)
            cpu_before = _out_layout(target)
            tpu_in = moved(s, DEVICE)
            try:
                cpu_res = _cpu_out_call(c, op, s, target)
            except Exception as cpu_error:  # e.g. nonzero(as_tuple=True) takes no out=
                with pytest.raises(type(cpu_error)):
                    route(call, op, tpu_in, out=tpu_out)
                continue
            try:
                tpu_res = route(call, op, tpu_in, out=tpu_out)
                for k, (r, o) in enumerate(zip(pytree.tree_leaves(tpu_res),
                                               pytree.tree_leaves(tpu_out))):
                    assert r is o, f"out {k}: op(..., out=t) did not return t"
                # out= keeps a correctly shaped out's strides and storage; where
                # CPU restrides it anyway (matmul's 1-d results), tpu must match.
                after, cpu_after = _out_layout(tpu_out), _out_layout(target)
                assert _layout_change(before, after) == _layout_change(cpu_before, cpu_after), (
                    f"out= tensors went from {before} to {after}; on CPU from {cpu_before} to "
                    f"{cpu_after}")
                del cpu_res
                cpu_out = _as_out(target, cpu_out)
                # Layout against CPU's out=, values against the allocating form
                # (the out= contract; CPU's own out= can be wrong: on CPUs with
                # AVX-512 FP16, oneDNN's gelu leaves a non-contiguous out unwritten).
                compare(tpu_out, cpu_out, c.entry, False)
                if c.compare_values:
                    assert_values(tpu_out, expected, c.entry)
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
    return compared


# --- autocast -----------------------------------------------------------------

from codegen.facts.autocast import input_dtype as autocast_input_dtype  # noqa: E402  (one rule)
#
# The policies are ATen's at::autocast::CastPolicy (ATen/autocast_mode.h). The
# reference runs on CPU without autocast, on inputs cast as the policy says
# the tpu inputs are cast; the check also asserts the dtype the policy implies,
# so an autocast kernel that did nothing cannot pass.

def _eligible(t) -> bool:
    """What at::autocast::is_eligible accepts: a floating tpu tensor, not double."""
    return isinstance(t, torch.Tensor) and t.is_floating_point() and t.dtype != torch.float64


def _leaves(sample):
    return [x for x in pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
            if isinstance(x, torch.Tensor)]


def _emulate(policy: str, low: torch.dtype, sample):
    """The CPU sample as the autocast kernel hands it on: cast (a copy) or
    dtype set. Returns (sample, floating result dtype the policy implies, or
    None when it implies none)."""
    eligible = [t for t in _leaves(sample) if _eligible(t)]
    if policy in ("lower_precision_fp", "fp32"):
        to = low if policy == "lower_precision_fp" else torch.float32
        cast = transform(sample, lambda t: t.to(to) if _eligible(t) else t)
        return cast, (to if eligible else None)
    if policy == "promote":
        to = low
        for t in eligible:
            to = torch.float32 if torch.float32 in (to, t.dtype) else to
        return transform(sample, lambda t: t.to(to) if _eligible(t) else t), (
            to if eligible else None)
    if policy == "fp32_set_opt_dtype":
        from torch.testing._internal.opinfo.core import SampleInput

        first = sample.input
        first = first[0] if isinstance(first, (list, tuple)) and first else first
        if not _eligible(first) or sample.kwargs.get("dtype") is not None:
            return sample, None
        kwargs = dict(sample.kwargs, dtype=torch.float32)
        return SampleInput(sample.input, args=sample.args, kwargs=kwargs,
                           output_process_fn_grad=sample.output_process_fn_grad), torch.float32
    raise AssertionError(f"no emulation of autocast policy {policy!r} in the harness")


def _promote_variants(sample, low: torch.dtype):
    """promote on float32 samples: all floating tensors in the autocast dtype
    (the result stays in it), and only the first one (float32 wins)."""
    first = [True]

    def first_only(t):
        if _eligible(t) and first[0]:
            first[0] = False
            return t.to(low)
        return t

    return [("all " + str(low), transform(sample, lambda t: t.to(low) if _eligible(t) else t)),
            ("first " + str(low), transform(sample, first_only))]


def _check_autocast(c: Case, op, samples, route: Route) -> int:
    policy = c.entry.autocast
    low = getattr(torch, c.dtype)
    compared = 0
    for i, sample in enumerate(samples):
        variants = _promote_variants(sample, low) if policy == "promote" else [
            ("as generated", sample)]
        for label, s in variants:
            ref_in, implied = _emulate(policy, low, moved(s, "cpu"))
            tpu_in = moved(s, DEVICE)
            try:
                expected = _reference(c, op, s, ref_in)
            except Exception as cpu_error:
                with pytest.raises(type(cpu_error)):
                    with torch.autocast(DEVICE, dtype=low):
                        route(call, op, tpu_in)
                continue
            try:
                with torch.autocast(DEVICE, dtype=low):
                    actual = s.output_process_fn_grad(route(call, op, tpu_in))
                compare(actual, expected, c.entry, c.compare_values)
                floating = [t for t in pytree.tree_leaves(actual)
                            if isinstance(t, torch.Tensor) and t.is_floating_point()]
                if implied is not None and floating:
                    assert floating[0].dtype == implied, (
                        f"autocast {policy} to {low}: result is {floating[0].dtype}, the policy "
                        f"implies {implied}")
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
    return compared


# --- gradients ----------------------------------------------------------------

def _grad_call(op, sample):
    """The function torch's own gradient tests differentiate: the op through
    its gradcheck_wrapper (which, e.g., makes a Hermitian input Hermitian),
    then the sample's output_process_fn_grad."""
    out = op.gradcheck_wrapper(op, sample.input, *sample.args, **sample.kwargs)
    return sample.output_process_fn_grad(out)


def _needs_grad(tensors):
    return [t for t in tensors if isinstance(t, torch.Tensor) and t.requires_grad]


def _backward(outputs, inputs, seed: int):
    """torch.autograd.grad of the outputs that require grad w.r.t. the inputs
    that do, with random grad_outputs drawn on CPU from seed (the same for
    CPU and tpu); None where an input is unused."""
    g = torch.Generator().manual_seed(seed)
    grads = [torch.randn(t.shape, dtype=t.dtype, generator=g).to(t.device) for t in outputs]
    return torch.autograd.grad(outputs, inputs, grads, allow_unused=True)


def _check_grad(c: Case, op, samples, route: Route) -> int:
    compared = 0
    for i, sample in enumerate(samples):
        for label, s in layouts(sample):
            seed = zlib.crc32(f"{c.id}/{i}/{label}".encode())
            cpu_in, tpu_in = moved(s, "cpu"), moved(s, DEVICE)
            cpu_inputs = _needs_grad(_leaves(cpu_in))
            try:
                cpu_out = _needs_grad(pytree.tree_leaves(_grad_call(op, cpu_in)))
                if not cpu_out or not cpu_inputs:
                    continue  # nothing differentiable in this sample
                expected = _backward(cpu_out, cpu_inputs, seed)
            except Exception as cpu_error:  # forward or backward: tpu must refuse it too
                with pytest.raises(type(cpu_error)):
                    tpu_out = _needs_grad(pytree.tree_leaves(route(_grad_call, op, tpu_in)))
                    route(_backward, tpu_out, _needs_grad(_leaves(tpu_in)), seed)
                continue
            try:
                tpu_out = _needs_grad(pytree.tree_leaves(route(_grad_call, op, tpu_in)))
                tpu_inputs = _needs_grad(_leaves(tpu_in))
                assert len(tpu_out) == len(cpu_out), (
                    f"{len(tpu_out)} outputs require grad on tpu, {len(cpu_out)} on CPU")
                actual = route(_backward, tpu_out, tpu_inputs, seed)
                del tpu_out
                for k, (a, e) in enumerate(zip(actual, expected)):
                    where = f"grad of input {k} ({tuple(cpu_inputs[k].shape)})"
                    assert (a is None) == (e is None), (
                        f"{where}: {'None' if a is None else 'a tensor'} on tpu, "
                        f"{'None' if e is None else 'a tensor'} on CPU")
                    if e is not None:
                        assert a.device.type == DEVICE, f"{where} is on {a.device}"
                        torch.testing.assert_close(to_cpu(a), e, equal_nan=True, check_stride=False,
                                                   msg=lambda m, w=where: f"{w}: {m}",
                                                   **_tolerances(c.entry, e.dtype))
            except BaseException as e:
                _describe(e, label, i, s)
                raise
            compared += 1
    return compared


# --- error inputs --------------------------------------------------------------

def _check_errors(c: Case, op, error_inputs, route: Route) -> int:
    """Each ErrorInput CPU refuses is refused on tpu with the same exception
    type (exactly: a tpu NotImplementedError must not pass for CPU's
    RuntimeError), and a message matching error_regex where CPU's does.
    Errors found on the device surface at the next synchronize."""
    compared = 0
    for i, ei in enumerate(error_inputs):
        s = ei.sample_input
        if not _reaches_device(s):
            continue
        try:
            call(op, moved(s, "cpu"))
            continue  # CPU accepts it (an error of another device): nothing to match
        except Exception as e:
            cpu_error = e
        try:
            try:
                route(call, op, moved(s, DEVICE))
                torch.tpu.synchronize()
            except RouteError:
                raise
            except Exception as e:
                tpu_error = e
            else:
                raise AssertionError(f"tpu raised nothing; CPU raised "
                                     f"{type(cpu_error).__name__}: {cpu_error}")
            assert type(tpu_error) is type(cpu_error), (
                f"tpu raised {type(tpu_error).__name__}: {tpu_error}; CPU raised "
                f"{type(cpu_error).__name__}: {cpu_error}")
            if re.search(ei.error_regex, str(cpu_error)):
                assert re.search(ei.error_regex, str(tpu_error)), (
                    f"tpu's message {str(tpu_error)!r} does not match {ei.error_regex!r} "
                    f"(CPU's does: {str(cpu_error)!r})")
        except BaseException as e:
            _describe(e, "error input", i, s)
            raise
        compared += 1
    return compared


_CHECKS = {"values": _check_values, "meta": _check_meta, "out": _check_out,
           "reference": _check_values, "grad": _check_grad, "errors": _check_errors,
           "autocast": _check_autocast}


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
    if c.check != "errors":  # an error input may be refused before it reaches the route
        route.finish()  # first: "none of the overloads was reached" says more than below
    if not compared:
        raise NothingCompared(f"OpInfo {c.opinfo_name} has no {c.dtype or 'error'} sample that "
                              f"{'CPU refuses' if c.check == 'errors' else 'runs on CPU'} for the "
                              f"{c.check} check")
