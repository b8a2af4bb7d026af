"""The out= contract, checked for every ops.yaml entry with an out= overload
(tests/generated/test_out_contract.py, written by `python -m codegen` through
codegen/testgen/contracts.py; the rules themselves are codegen/testgen/out_rules.py, which the
generator also runs on CPU to emit only the rules an op's samples can express).

Each case, built on CPU from an OpInfo sample, runs on CPU and on tpu with the
same layouts (tensors that share a storage on CPU share one on tpu), and both
must end the same way: the same out= results (and inputs), or the same error
type. A call CPU rejects must be rejected on tpu too, and a wrong device or dtype
before anything reaches the device: no kernel launched, no copy, the out
tensor untouched. An out on
another device than the inputs has no CPU reference: it must raise
RuntimeError naming the device, as on CUDA. An overlapping out that CPU does
not check (its result is undefined) may be refused on tpu with ATen's overlap
error; one that CPU refuses must be refused.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Dict, Optional

import pytest
import torch
from torch.utils import _pytree as pytree

import torch_tpu
from codegen.testgen.out_rules import DEVICE_RULES, RULES, cases, tensor_inputs
from known_failures import xfail as known_failure
from opinfo_harness import DEVICE, assert_values, call, mirror, opinfo, to_cpu, transform


# The contract's "rejected before launch": a wrong device or dtype is found by
# the checks, not by a kernel (overlap may be found when the result is copied
# into out, after the op computed it: as on CUDA).
BEFORE_LAUNCH = DEVICE_RULES + ("dtype_castable", "dtype_uncastable")
# Where CPU does not check an overlapping out (bmm, matmul...), its result is
# undefined; tpu may refuse such a call with ATen's own overlap error instead.
STRICTER_ALLOWED = ("internal_overlap", "partial_overlap")


@dataclass(frozen=True)
class Contract:
    """One generated test: one rule of the out= contract for one entry."""
    op: str                  # the ops.yaml entry
    out: str                 # the out= overload the OpInfo's out= call reaches
    rule: str
    opinfo: str
    variant: str
    dtype: str

    @property
    def id(self) -> str:
        name = f"{self.opinfo}.{self.variant}" if self.variant else self.opinfo
        return f"{self.rule}-{self.op}-{name}-{self.dtype}"


def contract(op: str, out: str, rule: str, opinfo_name: str, dtype: str, *, variant: str = "",
             xfail: str = "", raises: str = ""):
    assert rule in RULES, rule
    c = Contract(op, out, rule, opinfo_name, variant, dtype)
    marks = [known_failure(xfail, raises)] if xfail or raises else []
    return pytest.param(c, id=c.id, marks=marks)


def _to_device(cpu_case, device: str, out_device: Optional[str]):
    """The CPU case on device with the same layouts and storage sharing; the
    out on out_device instead when given."""
    memo: Dict = {}
    outs = pytree.tree_leaves(cpu_case.kwargs["out"])

    def move(t):
        if not isinstance(t, torch.Tensor):
            return t
        if out_device is not None and any(t is o for o in outs):
            return t.clone() if out_device == "cpu" else t.to(out_device)
        return mirror(t, device, memo)

    case = transform(cpu_case, move)
    if case.kwargs.get("device") is not None and torch.device(case.kwargs["device"]).type == "cpu":
        case.kwargs["device"] = device  # factory samples name the device
    return case


# --- running -------------------------------------------------------------------

def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # the type is the contract; the message is CPU's
        return "error", e


def run(c: Contract) -> None:
    op = opinfo(c.opinfo, c.variant)
    try:
        for sample, expected, cpu_case, out_device in cases(op, c.dtype, c.rule, c.opinfo,
                                                            c.variant):
            _check_one(c, op, sample, cpu_case, out_device)
    except BaseException as e:
        # Without its frames' locals a failed case holds no device memory
        # (the leak check would report a second, bogus failure).
        traceback.clear_frames(e.__traceback__)
        raise


def _check_one(c: Contract, op, sample, cpu_case, out_device) -> None:
    tpu_case = _to_device(cpu_case, DEVICE, out_device)
    tpu_out = tpu_case.kwargs["out"]
    before = [to_cpu(t).clone() for t in pytree.tree_leaves(tpu_out)]
    kind, cpu_result = _outcome(lambda: call(op, cpu_case))
    torch.tpu.synchronize()
    torch_tpu.reset_stats()
    tpu_kind, tpu_result = _outcome(lambda: call(op, tpu_case))
    if tpu_kind == "ok":
        torch.tpu.synchronize()
    snap = torch_tpu.stats()
    where = f"[{c.rule}] {sample.summary() if hasattr(sample, 'summary') else sample}"
    if c.rule in DEVICE_RULES:  # no CPU reference: CUDA's rule
        kind, cpu_result = "error", RuntimeError("out= on another device than the inputs")
    if kind == "error":
        assert tpu_kind == "error", (
            f"{where}: CPU raised {type(cpu_result).__name__}({cpu_result}), tpu accepted the call")
        assert type(tpu_result) is type(cpu_result), (
            f"{where}: tpu raised {type(tpu_result).__name__}({tpu_result}), CPU "
            f"{type(cpu_result).__name__}({cpu_result})")
        if c.rule in DEVICE_RULES:
            assert "device" in str(tpu_result), f"{where}: the error names no device: {tpu_result}"
        if c.rule not in BEFORE_LAUNCH:
            return
        launched = {"launches": snap["launches"],
                    "copies": {k: v["calls"] for k, v in snap["copies"].items() if v["calls"]}}
        assert not snap["launches"] and not launched["copies"], (
            f"{where}: rejected ({tpu_result}) only after reaching the device: {launched}")
        for k, (b, t) in enumerate(zip(before, pytree.tree_leaves(tpu_out))):
            torch.testing.assert_close(to_cpu(t), b, equal_nan=True, rtol=0, atol=0,
                                       msg=lambda m: f"{where}: out {k} written before the "
                                                     f"error: {m}")
        return
    if tpu_kind == "error" and c.rule in STRICTER_ALLOWED and type(tpu_result) is RuntimeError \
            and "unsupported operation" in str(tpu_result):
        return  # CPU did not check and would write an undefined result; tpu refuses it
    if tpu_kind == "error":
        raise AssertionError(f"{where}: CPU accepted the call, tpu raised "
                             f"{type(tpu_result).__name__}: {tpu_result}") from tpu_result
    fallback = torch_tpu.telemetry.fallback_calls(snap)
    assert not fallback, f"{where}: host fallback: {fallback}"
    tpu_leaves = pytree.tree_leaves(tpu_case.kwargs["out"])
    cpu_leaves = pytree.tree_leaves(cpu_case.kwargs["out"])
    for k, (t, e) in enumerate(zip(tpu_leaves, cpu_leaves)):
        assert (t.shape, t.dtype, t.stride()) == (e.shape, e.dtype, e.stride()), (
            f"{where}: out {k} is {tuple(t.shape)} {t.dtype} strides {t.stride()} on tpu, "
            f"{tuple(e.shape)} {e.dtype} strides {e.stride()} on CPU")
    if c.rule == "partial_overlap":
        return  # CPU accepts it: the values depend on the kernel's order of reads and writes
    assert_values(tpu_leaves, cpu_leaves, _TOLERANT)
    # The inputs (and for alias_input/disjoint_views the storage they share)
    # end up as on CPU.
    assert_values(tensor_inputs(tpu_case), tensor_inputs(cpu_case), _TOLERANT)


@dataclass(frozen=True)
class _Tolerances:
    atol: object = None
    rtol: object = None


# Values in low precision: the entries' tolerances live with their OpInfo
# tests; here a result must be the same number up to reduced-precision rounding.
# (float64, complex128: a float32 or complex64 result cast into a wider out,
# dtype_castable.)
_TOLERANT = _Tolerances(atol={"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-4, "float64": 1e-4,
                              "complex64": 1e-4, "complex128": 1e-4},
                        rtol={"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-4, "float64": 1e-4,
                              "complex64": 1e-4, "complex128": 1e-4})
