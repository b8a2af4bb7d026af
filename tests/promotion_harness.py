"""The type-promotion matrix, checked for every ops.yaml entry whose OpInfo is
a binary ufunc (tests/generated/test_type_promotion.py, written by `python -m
codegen` through codegen/testgen/contracts.py; this file holds the logic).

One test per entry and operand kinds runs the OpInfo's op over every pair of
operands of these kinds and dtypes, on CPU and on tpu:

  tensor_tensor  1-d tensors of every dtype pair
  tensor_0dim    a 1-d tensor and a 0-dim tensor (0-dim tensors count as
  0dim_tensor    scalars of their category: PyTorch's promotion lattice)
  0dim_0dim      two 0-dim tensors
  tensor_scalar  a 1-d tensor and a Python bool, int, float or complex
  scalar_tensor  the other way round (ops that take a scalar self)
  out            tensor_tensor pairs into an explicit out= of every dtype

For each pair tpu must do what CPU does: raise the same error type, or give
the same dtype and values (where the result or computation dtype is one the
entry's kernel does not declare in ops.yaml, tpu must raise
NotImplementedError instead); and where CPU succeeds the dtype must be the one
PyTorch's rule predicts: torch.result_type(a, b) (bool for comparisons, the
default float for integer inputs of ops that promote integers to float). With
out=, CPU's safe-cast rule decides which out dtypes are accepted.
All mismatches of one test are reported together.
"""

from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass
from typing import List

import pytest
import torch

from known_failures import xfail as known_failure
from opinfo_harness import DEVICE, opinfo

DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.uint16, torch.uint32, torch.uint64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64, torch.complex64, torch.complex128)
# The dtypes a tpu tensor can hold: what an entry declaring no dtypes covers.
# (The operands above leave complex32 out; float16 and a complex number
# compute in it.)
STORED = tuple(str(d).replace("torch.", "") for d in DTYPES) + ("complex32",)
SCALARS = (True, 3, 2.5, 1.5 - 0.5j)
# Values every dtype holds exactly, no zeros (integer division), small enough
# for pow and shifts.
LHS, RHS = (1, 2, 3), (2, 1, 3)
MAX_REPORTED = 25


@dataclass(frozen=True)
class Matrix:
    op: str                  # the ops.yaml entry
    kind: str                # tensor_tensor, ..., out
    opinfo: str
    variant: str = ""
    returns_bool: bool = False
    int_to_float: bool = False
    declared: tuple = ()     # the entry's dtypes (empty: any)

    @property
    def id(self) -> str:
        name = f"{self.opinfo}.{self.variant}" if self.variant else self.opinfo
        return f"{self.kind}-{self.op}-{name}"


def matrix(op: str, kind: str, opinfo_name: str, *, variant: str = "", returns_bool: bool = False,
           int_to_float: bool = False, declared: tuple = (), xfail: str = "", raises: str = ""):
    m = Matrix(op, kind, opinfo_name, variant, returns_bool, int_to_float, declared)
    marks = [known_failure(xfail, raises)] if xfail or raises else []
    return pytest.param(m, id=m.id, marks=marks)


def _tensor(values, dtype, device, zero_dim=False):
    t = torch.tensor(values[0] if zero_dim else values).to(dtype)
    return t.to(device)


def _operands(kind: str):
    """(lhs, rhs) makers: each maker(device) -> operand, with a label."""
    tensors = [(str(d).replace("torch.", ""), d) for d in DTYPES]

    def tensor(d, values, zero_dim=False):
        return lambda device: _tensor(values, d, device, zero_dim)

    def scalar(s):
        return lambda device: s

    if kind in ("tensor_tensor", "out"):
        return [((f"t:{a}", tensor(da, LHS)), (f"t:{b}", tensor(db, RHS)))
                for a, da in tensors for b, db in tensors]
    if kind == "tensor_0dim":
        return [((f"t:{a}", tensor(da, LHS)), (f"0d:{b}", tensor(db, RHS, True)))
                for a, da in tensors for b, db in tensors]
    if kind == "0dim_tensor":
        return [((f"0d:{a}", tensor(da, LHS, True)), (f"t:{b}", tensor(db, RHS)))
                for a, da in tensors for b, db in tensors]
    if kind == "0dim_0dim":
        return [((f"0d:{a}", tensor(da, LHS, True)), (f"0d:{b}", tensor(db, RHS, True)))
                for a, da in tensors for b, db in tensors]
    if kind == "tensor_scalar":
        return [((f"t:{a}", tensor(da, LHS)), (f"s:{s!r}", scalar(s)))
                for a, da in tensors for s in SCALARS]
    if kind == "scalar_tensor":
        return [((f"s:{s!r}", scalar(s)), (f"t:{b}", tensor(db, RHS)))
                for s in SCALARS for b, db in tensors]
    raise AssertionError(kind)


# OpInfos whose op builds a complex number from two real parts: the rule's
# result is the complex counterpart of the promoted real dtype.
COMPLEX_RESULT = {"complex", "polar"}
_COMPLEX_OF = {torch.float16: torch.complex32, torch.float32: torch.complex64,
               torch.float64: torch.complex128}


def _expected_dtype(m: Matrix, a, b) -> torch.dtype:
    """PyTorch's rule for the result dtype of a binary ufunc."""
    if m.returns_bool:
        return torch.bool
    rt = torch.result_type(a, b)
    if m.opinfo in COMPLEX_RESULT:
        return _COMPLEX_OF.get(rt, rt)
    if m.int_to_float and not (rt.is_floating_point or rt.is_complex):
        return torch.get_default_dtype()
    return rt


def _run(fn):
    try:
        return "ok", fn()
    except Exception as e:
        return "error", e


def _same_values(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    a = actual.cpu()
    if a.dtype.is_floating_point or a.dtype.is_complex:
        tol = 1e-2 if a.dtype in (torch.float16, torch.bfloat16) else 1e-5
        return torch.allclose(a, expected, rtol=tol, atol=tol, equal_nan=True)
    return torch.equal(a, expected)


def _compare(m: Matrix, label: str, cpu, tpu, a, b, check_rule: bool) -> str:
    """'' when tpu did what CPU did (and the dtype follows the rule)."""
    (ck, cv), (tk, tv) = cpu, tpu
    if ck == "error":
        if tk != "error":
            return f"{label}: CPU raised {type(cv).__name__}, tpu returned {tv.dtype}"
        if type(tv) is not type(cv):
            return (f"{label}: tpu raised {type(tv).__name__}({str(tv)[:80]}), CPU "
                    f"{type(cv).__name__}({str(cv)[:80]})")
        return ""
    if tk == "error":
        computed = {cv.dtype, torch.result_type(a, b)}  # a comparison computes in result_type
        declared = m.declared or STORED
        if isinstance(tv, NotImplementedError) and any(
                str(d).replace("torch.", "") not in declared for d in computed):
            return ""  # ops.yaml says the kernel lacks this dtype: raised as declared
        return f"{label}: CPU gave {cv.dtype}, tpu raised {type(tv).__name__}: {str(tv)[:120]}"
    if tv.dtype != cv.dtype:
        return f"{label}: tpu {tv.dtype}, CPU {cv.dtype}"
    if check_rule and cv.dtype != _expected_dtype(m, a, b):
        return f"{label}: CPU and tpu give {cv.dtype}, PyTorch's rule {_expected_dtype(m, a, b)}"
    if tv.device.type != DEVICE:
        return f"{label}: the result is on {tv.device}"
    if tv.shape != cv.shape or not _same_values(tv, cv):
        return f"{label}: values differ: tpu {tv.cpu().tolist()}, CPU {cv.tolist()}"
    return ""


def run(m: Matrix) -> None:
    try:
        _run_matrix(m)
    except BaseException as e:
        traceback.clear_frames(e.__traceback__)  # no device memory held by the report
        raise


def _cuda_only_result(info, cpu, tpu, a, b, kwargs):
    """CPU's outcome, or CUDA's where CPU refuses a result dtype that CUDA
    computes (tpu takes CUDA's dtypes too): today complex32, which CUDA
    computes in complex64 (float16 inputs in float32) and rounds."""
    (ck, cv), (tk, tv) = cpu, tpu
    if not (ck == "error" and isinstance(cv, NotImplementedError) and tk == "ok"
            and tv.dtype == torch.complex32 and torch.complex32 in info.supported_dtypes("cuda")):
        return cpu
    wide = {torch.float16: torch.float32, torch.complex32: torch.complex64}

    def widen(x):
        return x.to(wide[x.dtype]) if isinstance(x, torch.Tensor) and x.dtype in wide else x
    return _run(lambda: info.op(widen(a), widen(b), **kwargs).to(torch.complex32))


def _run_matrix(m: Matrix) -> None:
    info = opinfo(m.opinfo, m.variant)
    problems: List[str] = []
    compared = 0
    warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
    for (la, make_a), (lb, make_b) in _operands(m.kind):
        ca, cb, ta, tb = make_a("cpu"), make_b("cpu"), make_a(DEVICE), make_b(DEVICE)
        probe = ca if isinstance(ca, torch.Tensor) else cb
        kwargs = info.sample_kwargs("cpu", probe.dtype, probe)[0] if hasattr(
            info, "sample_kwargs") else {}
        outs = DTYPES if m.kind == "out" else (None,)
        for out_dtype in outs:
            label = f"{la} {lb}" + (f" out:{str(out_dtype).replace('torch.', '')}"
                                    if out_dtype is not None else "")
            if out_dtype is None:
                cpu = _run(lambda: info.op(ca, cb, **kwargs))
                tpu = _run(lambda: info.op(ta, tb, **kwargs))
            else:
                co = torch.empty(3, dtype=out_dtype)
                to = torch.empty(3, dtype=out_dtype, device=DEVICE)
                cpu = _run(lambda: info.op(ca, cb, out=co, **kwargs))
                tpu = _run(lambda: info.op(ta, tb, out=to, **kwargs))
            cpu = _cuda_only_result(info, cpu, tpu, ca, cb, kwargs) if out_dtype is None else cpu
            problem = _compare(m, label, cpu, tpu, ca, cb, check_rule=out_dtype is None)
            if problem:
                problems.append(problem)
            compared += 1
    assert compared, "no operand pairs"
    if problems:
        shown = "\n  ".join(problems[:MAX_REPORTED])
        more = f"\n  ... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
        raise AssertionError(f"{len(problems)} of {compared} {m.kind} pairs of {m.opinfo} differ "
                             f"from CPU:\n  {shown}{more}")
