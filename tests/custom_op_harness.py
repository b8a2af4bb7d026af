"""The logic behind the generated tests of the custom operators
(tests/generated/test_custom_ops.py, written by `python -m codegen` from
ops.yaml through codegen/testgen/custom_op_tests.py). Samples and error inputs come from
tests/custom_op_samples.py, the expected values from torch_tpu/reference.py
on CPU. Checks, one test each:

  registrations  the dispatcher holds the manifest's schema and tags, and
                 kernels for PrivateUse1, Meta, Autograd (and
                 AutocastPrivateUse1 when the op has a policy)
  values         tpu against the reference on CPU, per dtype, for the samples
                 and their non-contiguous twins
  opcheck        torch.library.opcheck: test_schema (mutations and aliases as
                 declared), test_faketensor (the fake implementation against
                 the kernel), test_aot_dispatch_dynamic (torch.compile's view,
                 with and without requires_grad). Its test_autograd_registration
                 refuses devices other than CPU/CUDA/XPU (2.13); the
                 registrations check covers it.
  meta           the meta device and FakeTensorMode give the real result's
                 shape, dtype, strides and aliasing
  gradcheck      torch.autograd.gradcheck in float64 on tpu (gradgradcheck too
                 when the formulas are differentiable)
  grad           tpu gradients against the reference's autograd on CPU
  no_grad        derivatives: not_implemented: a backward raises
  autocast       under torch.autocast("tpu"), the policy's dtype and the
                 reference's values on inputs cast as the policy casts them
  errors         every error input raises its type and message on tpu and on
                 the meta device, before anything runs on the device
  variant        the in-place / out= form agrees with the functional op and
                 writes only what it declares (out=: resized when empty,
                 wrong dtype or an input that requires grad rejected)
"""

from __future__ import annotations

import functools
import importlib
import traceback
import zlib
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import pytest
import torch
from torch.utils import _pytree as pytree

import torch_tpu
import torch_tpu.reference as reference
from known_failures import xfail as known_failure
from opinfo_harness import DEVICE, mirror, to_cpu, transform

CHECKS = ("registrations", "values", "opcheck", "meta", "gradcheck", "grad", "no_grad",
          "autocast", "errors", "variant")
_TOL = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2),
        torch.float32: (1e-5, 1.3e-5), torch.float64: (1e-7, 1e-7)}


@dataclass(frozen=True)
class Op:
    """One custom operator, as ops.yaml declares it."""
    qualname: str              # "tpu::bias_gelu.out"
    schema: str                # "bias_gelu.out(Tensor x, ...) -> Tensor(a!)"
    kind: str                  # functional / inplace / out
    samples: str               # function of tests/custom_op_samples.py
    reference: str             # function of torch_tpu/reference.py ("" : the functional's)
    functional: str = ""       # inplace / out: the functional op's qualname
    tags: Tuple[str, ...] = ()
    autocast: str = ""
    differentiable: bool = False     # has derivative formulas
    double_differentiable: bool = False
    atol: Optional[float] = None
    rtol: Optional[float] = None

    @property
    def overload(self):
        ns, _, rest = self.qualname.partition("::")
        name, _, overload = rest.partition(".")
        return getattr(getattr(torch.ops, ns), name).__getattr__(overload or "default")


@dataclass(frozen=True)
class Case:
    op: Op
    check: str
    dtype: str = "float32"

    @property
    def id(self) -> str:
        return f"{self.check}-{self.op.qualname}-{self.dtype}"


def case(op: Op, check: str, dtype: str = "float32", *, xfail: str = "", raises: str = ""):
    assert check in CHECKS, check
    c = Case(op, check, dtype)
    marks = [known_failure(xfail, raises)] if xfail or raises else []
    return pytest.param(c, id=c.id, marks=marks)


# --- samples -------------------------------------------------------------------

def _samples_module():
    return importlib.import_module("custom_op_samples")


def samples(op: Op, dtype: torch.dtype, requires_grad: bool = False):
    """CPU samples (moved by the checks); seeded per op and dtype."""
    torch.manual_seed(zlib.crc32(f"{op.samples}-{dtype}".encode()))
    return list(getattr(_samples_module(), op.samples)("cpu", dtype, requires_grad))


def error_inputs(op: Op):
    fn = getattr(_samples_module(), f"{op.samples}_errors", None)
    assert fn is not None, f"tests/custom_op_samples.py has no {op.samples}_errors()"
    return list(fn("cpu"))


def moved(sample, device: str):
    memo: Dict = {}
    return transform(sample, functools.partial(mirror, device=device, memo=memo))


def _reference(op: Op):
    return getattr(reference, op.reference)


def _functional(op: Op):
    """The functional overload of an in-place / out= form."""
    ns, _, name = (op.functional or op.qualname).partition("::")
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops, ns), base).__getattr__(overload or "default")


def _call(fn, s, **extra):
    return fn(s.input, *s.args, **s.kwargs, **extra)


def _compare(actual, expected, dtype: torch.dtype, op: Op, what: str) -> None:
    atol, rtol = _TOL[dtype]
    atol, rtol = (op.atol if op.atol is not None else atol), (op.rtol if op.rtol is not None else rtol)
    a_leaves, e_leaves = pytree.tree_leaves(actual), pytree.tree_leaves(expected)
    assert len(a_leaves) == len(e_leaves), f"{what}: {len(a_leaves)} results, expected {len(e_leaves)}"
    for k, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        if e is None:
            assert a is None, f"{what}: result {k} should be None"
            continue
        assert a.device.type == DEVICE, f"{what}: result {k} is on {a.device}"
        assert a.dtype == e.dtype, f"{what}: result {k} is {a.dtype}, expected {e.dtype}"
        torch.testing.assert_close(to_cpu(a), e, atol=atol, rtol=rtol, equal_nan=True,
                                   msg=lambda m, k=k: f"{what}: result {k}: {m}")


def _note(e: BaseException, text: str):
    if hasattr(e, "add_note"):
        e.add_note(text)


# --- checks ---------------------------------------------------------------------

def check_registrations(c: Case) -> None:
    op = c.op.overload
    declared = torch._C.parse_schema(f"tpu::{c.op.schema}")
    assert op._schema == declared, (
        f"registered schema {op._schema} differs from ops.yaml's {declared}")
    tags = {t.name for t in op.tags}
    assert tags == set(c.op.tags), f"registered tags {sorted(tags)}, ops.yaml {sorted(c.op.tags)}"
    name = c.op.qualname
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    keys = ["PrivateUse1", "Meta", "Autograd"] + (
        ["AutocastPrivateUse1"] if c.op.autocast not in ("", "none") else [])
    missing = [k for k in keys if not has(name, k)]
    assert not missing, f"{name} has no kernel for {missing}"
    assert not has(name, "CPU"), f"{name} should have no CPU kernel (it is a tpu operator)"


def check_values(c: Case) -> None:
    dtype = getattr(torch, c.dtype)
    compared = 0
    for i, s in enumerate(samples(c.op, dtype)):
        for label, variant in (("contiguous", s), ("non-contiguous", s.noncontiguous())):
            expected = _call(_reference(c.op), variant)
            try:
                actual = _call(c.op.overload, _fresh(c.op, moved(variant, DEVICE)))
                _compare(actual, expected, dtype, c.op, f"{label} sample {i}")
            except BaseException as e:
                _note(e, f"[{label} sample {i}] {variant.summary()}")
                raise
            compared += 1
    assert compared


def check_opcheck(c: Case) -> None:
    dtype = getattr(torch, c.dtype)
    utils = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")
    grad_options = (False, True) if c.op.differentiable else (False,)
    for requires_grad in grad_options:
        for i, s in enumerate(samples(c.op, dtype, requires_grad)):
            t = moved(s, DEVICE)
            if c.op.kind == "out":
                kwargs = dict(t.kwargs, out=torch.empty(0, dtype=dtype, device=DEVICE))
            else:
                kwargs = t.kwargs
            args = (t.input, *t.args)
            if c.op.kind == "inplace":
                args = (t.input.detach().clone(), *t.args)
            try:
                torch.library.opcheck(c.op.overload, args, kwargs, test_utils=utils)
            except BaseException as e:
                _note(e, f"[requires_grad={requires_grad} sample {i}] {s.summary()}")
                raise


def _layout(t):
    return (tuple(t.shape), t.dtype, t.stride(), t.storage_offset())


def check_meta(c: Case) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    dtype = getattr(torch, c.dtype)
    for i, s in enumerate(samples(c.op, dtype)):
        real_in = moved(s, DEVICE)
        real = _call(c.op.overload, _fresh(c.op, real_in))
        meta_in = moved(s, "meta")
        mode = FakeTensorMode()
        fake_in = transform(moved(s, DEVICE), lambda t: mode.from_tensor(t)
                            if isinstance(t, torch.Tensor) else t)
        with mode:
            fake = _call(c.op.overload, _fresh(c.op, fake_in))
        meta = _call(c.op.overload, _fresh(c.op, meta_in))
        for how, pred in (("fake", fake), ("meta", meta)):
            r_leaves, p_leaves = pytree.tree_leaves(real), pytree.tree_leaves(pred)
            assert len(r_leaves) == len(p_leaves), f"sample {i}: {how} gives {len(p_leaves)} results"
            for k, (r, p) in enumerate(zip(r_leaves, p_leaves)):
                if r is None or p is None:
                    assert r is None and p is None, f"sample {i} result {k}: {how} {p}, real {r}"
                    continue
                assert _layout(p) == _layout(r), (
                    f"sample {i} result {k}: {how} {_layout(p)}, real {_layout(r)}")
            if c.op.kind == "inplace":
                assert pred is (fake_in if how == "fake" else meta_in).input or \
                    _same_storage(pred, (fake_in if how == "fake" else meta_in).input), (
                        f"sample {i}: {how} in-place result is not its input")


def _same_storage(a, b) -> bool:
    return a.untyped_storage()._cdata == b.untyped_storage()._cdata


def _fresh(op: Op, s):
    """The sample as the op is called: an out= form gets an empty out."""
    if op.kind != "out":
        return s
    from torch.testing._internal.opinfo.core import SampleInput

    device = s.input.device
    dtype = s.input.dtype
    return SampleInput(s.input, args=s.args, kwargs=dict(s.kwargs, out=torch.empty(0, dtype=dtype,
                                                                                  device=device)))


def _differentiable_inputs(s):
    return [t for t in pytree.tree_leaves((s.input, s.args, s.kwargs))
            if isinstance(t, torch.Tensor) and t.requires_grad]


def check_gradcheck(c: Case) -> None:
    for i, s in enumerate(samples(c.op, torch.float64, requires_grad=True)):
        t = moved(s, DEVICE)
        inputs = _differentiable_inputs(t)
        if not inputs or any(x.numel() == 0 for x in inputs):
            continue

        def fn(*xs, t=t):
            swap = dict(zip(map(id, _differentiable_inputs(t)), xs))
            st = transform(t, lambda v: swap.get(id(v), v))
            return _call(c.op.overload, st)

        try:
            assert torch.autograd.gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-4)
            if c.op.double_differentiable:
                assert torch.autograd.gradgradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5,
                                                    rtol=1e-4)
        except BaseException as e:
            _note(e, f"[sample {i}] {s.summary()}")
            raise


def check_grad(c: Case) -> None:
    dtype = getattr(torch, c.dtype)
    for i, s in enumerate(samples(c.op, dtype, requires_grad=True)):
        cpu_inputs = _differentiable_inputs(s)
        if not cpu_inputs:
            continue
        t = moved(s, DEVICE)
        tpu_inputs = _differentiable_inputs(t)
        out = _call(c.op.overload, t)
        ref = _call(_reference(c.op), s)
        g = torch.randn(ref.shape, dtype=dtype, generator=torch.Generator().manual_seed(i))
        tpu_grads = torch.autograd.grad(out, tpu_inputs, g.to(DEVICE), allow_unused=True)
        cpu_grads = torch.autograd.grad(ref, cpu_inputs, g, allow_unused=True)
        _compare(list(tpu_grads), list(cpu_grads), dtype, c.op, f"sample {i} gradients")


def check_no_grad(c: Case) -> None:
    """derivatives: not_implemented: the result records a node whose backward
    raises (autograd's NotImplemented fallback), instead of a silent zero."""
    dtype = getattr(torch, c.dtype)
    s = next(x for x in samples(c.op, dtype) if x.input.numel())
    t = transform(moved(s, DEVICE), lambda v: v.requires_grad_()
                  if isinstance(v, torch.Tensor) and v.is_floating_point() else v)
    if c.op.kind == "inplace":  # in place on a non-leaf: a leaf that requires grad refuses it
        leaf = t.input
        t = transform(t, lambda v: v.clone() if v is leaf else v)
    out = pytree.tree_leaves(_call(c.op.overload, t))
    out = [o for o in out if o is not None and o.requires_grad]
    assert out, "no result requires grad: the backward would silently be zero"
    with pytest.raises(RuntimeError, match="not implemented"):
        sum(o.sum() for o in out).backward()


def check_autocast(c: Case) -> None:
    from opinfo_harness import _emulate

    low = getattr(torch, c.dtype)
    policy = c.op.autocast
    sample_dtype = torch.float32 if policy in ("lower_precision_fp", "promote") else low
    for i, s in enumerate(samples(c.op, sample_dtype)):
        variants = [("as generated", s)]
        if policy == "promote":  # the first tensor in the autocast dtype, the others float32
            first = s.input
            variants = [("first " + str(low), transform(s, lambda v: v.to(low) if v is first else v))]
        for label, v in variants:
            ref_in, implied = _emulate(policy, low, v)
            expected = _call(_reference(c.op), ref_in)
            with torch.autocast(DEVICE, dtype=low):
                actual = _call(c.op.overload, moved(v, DEVICE))
            assert implied is None or actual.dtype == implied, (
                f"sample {i} ({label}): autocast {policy} to {low} gives {actual.dtype}, "
                f"the policy implies {implied}")
            _compare(actual, expected, expected.dtype, c.op, f"sample {i} ({label})")


def check_errors(c: Case) -> None:
    fn = c.op.overload
    for i, e in enumerate(error_inputs(c.op)):
        for device in (DEVICE, "meta"):
            s = _fresh(c.op, moved(e.sample_input, device))
            if c.op.kind == "inplace":
                first = s.input
                s = transform(s, lambda v: v.clone() if v is first else v)
            torch.tpu.synchronize()
            torch_tpu.reset_stats()
            with pytest.raises(e.error_type, match=e.error_regex):
                _call(fn, s)
            if device == DEVICE:
                launched = torch_tpu.stats()["launches"]
                assert launched == 0, f"error input {i} launched {launched} kernels before raising"


def check_variant(c: Case) -> None:
    dtype = getattr(torch, c.dtype)
    functional = _functional(c.op)
    for i, s in enumerate(samples(c.op, dtype)):
        t = moved(s, DEVICE)
        expected = to_cpu(_call(functional, t))
        if c.op.kind == "inplace":
            x = t.input.clone()
            version = x._version
            others = [a.clone() for a in t.args]
            result = c.op.overload(x, *t.args, **t.kwargs)
            assert result is x, "the in-place form must return its first argument"
            assert x._version > version, "the in-place form did not bump x's version counter"
            torch.testing.assert_close(to_cpu(x), expected, rtol=0, atol=0)
            for a, b in zip(t.args, others):
                torch.testing.assert_close(to_cpu(a), to_cpu(b), rtol=0, atol=0)
            continue
        # out=: into an empty out (resized), a right-shaped non-contiguous one,
        # then the out= rules aten follows.
        out = torch.empty(0, dtype=dtype, device=DEVICE)
        assert _call(c.op.overload, t, out=out) is out, "out= must return out"
        torch.testing.assert_close(to_cpu(out), expected, rtol=0, atol=0)
        strided = torch.empty(expected.shape + (2,), dtype=dtype, device=DEVICE)[..., 0]
        layout = (strided.stride(), strided.data_ptr())
        _call(c.op.overload, t, out=strided)
        assert (strided.stride(), strided.data_ptr()) == layout, "out= changed a right-shaped out"
        torch.testing.assert_close(to_cpu(strided), expected, rtol=0, atol=0)
        if expected.numel():
            wrong = torch.empty(expected.shape, dtype=torch.float64 if dtype != torch.float64
                                else torch.float32, device=DEVICE)
            with pytest.raises(RuntimeError, match="dtype"):
                _call(c.op.overload, t, out=wrong)
        g = moved(samples(c.op, dtype, requires_grad=True)[i], DEVICE)
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            _call(c.op.overload, g, out=torch.empty(0, dtype=dtype, device=DEVICE))


_CHECKS = {name: globals()[f"check_{name}"] for name in CHECKS}


def run(c: Case) -> None:
    try:
        _CHECKS[c.check](c)
    except BaseException as e:
        traceback.clear_frames(e.__traceback__)
        raise
