"""The conformance suites generated next to the OpInfo tests:

  tests/generated/test_out_contract.py   the out= contract (tests/out_contract_harness.py)
                                          for every entry with an out= overload
  tests/generated/test_type_promotion.py the type-promotion matrix
                                          (tests/promotion_harness.py) for every entry
                                          whose OpInfo is a binary ufunc

Both are data; the harnesses hold the logic. Which OpInfo and dtype an entry
uses comes from the OpInfo tests' plan (codegen/testgen/op_tests.py): the same
OpInfos, the out= overload that plan found registered (or, for a composite,
decomposing). Known failures are the entry's tests.xfail with
checks: [out_contract] or [promotion].
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Optional

from . import out_rules, op_tests
from ..model.manifest import Entry, XFail
from ..facts.opinfo_index import Index, OpInfoFacts
from ..facts import upstream

OUT_RULES = out_rules.RULES
# Operand pairs of the type-promotion matrix; "out" adds explicit out= tensors.
PROMOTION_KINDS = ("tensor_tensor", "tensor_0dim", "0dim_tensor", "0dim_0dim", "tensor_scalar",
                   "scalar_tensor", "out")
OUT_PATH = os.path.join(op_tests.TESTS_DIR, "test_out_contract.py")
PROMOTION_PATH = os.path.join(op_tests.TESTS_DIR, "test_type_promotion.py")
# Sample dtype of the out= contract: float32 lets requires_grad apply.
_PREFERRED = ("float32", "float64", "int64", "int32", "bool", "bfloat16", "float16")


@dataclass(frozen=True)
class OutPlan:
    entry: Entry
    out: str
    opinfo: Optional[OpInfoFacts]
    dtype: str
    rules: List[str]
    skipped: Dict[str, str]        # rule -> why it is not generated
    why_none: str = ""             # no out= contract test at all


@dataclass(frozen=True)
class PromotionPlan:
    entry: Entry
    opinfo: Optional[OpInfoFacts]
    kinds: List[str]
    why_none: str = ""


def _known(entry: Entry, check: str, rule: str = "") -> Optional[XFail]:
    """The entry's xfail for a contract check (and out= rule). Only xfails
    that name the check apply: contract tests are not the OpInfo checks an
    xfail without `checks` is about."""
    for x in entry.tests.xfail:
        if check in x.checks and (not x.rules or rule in x.rules):
            return x
    return None


def _xfail(entry: Entry, check: str, rule: str = "") -> str:
    """The reason of the entry's xfail for a contract check ("" for none)."""
    x = _known(entry, check, rule)
    return x.reason if x else ""


def _xfail_args(entry: Entry, check: str, rule: str = "") -> List[str]:
    x = _known(entry, check, rule)
    return [f"xfail={_py(x.reason)}", f"raises={_py(x.raises)}"] if x else []


def out_plan(p: "op_tests.Plan", fits: Optional[Dict[str, Dict[str, str]]] = None) -> OutPlan:
    """The rules an entry's out= contract test covers. fits: what
    out_rules.applicable() found for the chosen OpInfo and dtype (computed
    here when not given)."""
    e = p.entry
    if p.untested:
        return OutPlan(e, "", None, "", [], {}, why_none="no OpInfo test: " + p.untested)
    if not p.out:
        why = p.gaps.get("out") or p.not_applicable.get("out") or "no out= check"
        return OutPlan(e, "", None, "", [], {}, why_none=why)
    info, dtype = _choice(p)
    skipped: Dict[str, str] = {}
    if fits is None:
        fits = out_rules.applicable([(info.name, info.variant, dtype)])
    found = fits[out_rules._name(info.name, info.variant, dtype)]
    rules = []
    for r in OUT_RULES:
        if r in out_rules.DEVICE_RULES and not _has_tensor_inputs(e):
            skipped[r] = "a factory: the out tensor's device decides where it runs"
        elif r == "alias_input" and "inplace" not in e.family:
            skipped[r] = "the op has no in-place form, so out= aliasing self is not defined"
        elif (info.name, r) in out_rules.CPU_REFERENCE_UNSAFE:
            skipped[r] = out_rules.CPU_REFERENCE_UNSAFE[(info.name, r)]
        elif found[r]:
            skipped[r] = found[r]
        else:
            rules.append(r)
    return OutPlan(e, p.out, info, dtype, rules, skipped)


def _choice(p: "op_tests.Plan"):
    """The OpInfo and dtype of the out= contract: the first OpInfo the out
    check uses, in float32 when it can (so requires_grad applies)."""
    info = next(c.opinfo for c in p.cases if c.check == "out")
    wanted = [c.dtype for c in p.cases if c.check == "out" and c.opinfo is info]
    dtypes = [d for d in _PREFERRED if d in wanted] or wanted
    return info, dtypes[0]


def _has_tensor_inputs(e: Entry) -> bool:

    up = upstream.lookup(e.op)
    return up is not None and any(a.type.is_tensor_like() for a in up.func.arguments.flat_non_out)


def promotion_plan(p: "op_tests.Plan") -> PromotionPlan:
    e = p.entry
    binary = [f for f in p.opinfos if f.binary is not None]
    if p.untested or not binary:
        return PromotionPlan(e, None, [], why_none="no binary-ufunc OpInfo")
    info = binary[0]
    kinds = [k for k in PROMOTION_KINDS
             if not (k == "scalar_tensor" and not info.binary.one_python_scalar)
             and not (k == "tensor_scalar" and not info.binary.rhs_python_scalar)
             and not (k == "out" and not info.supports_out)]
    return PromotionPlan(e, info, kinds)


def plans(entries: List[Entry], index: Optional[Index] = None):
    ps = op_tests.plans(entries, index)
    requests = sorted({_request(p) for p in ps if _request(p)})
    fits = out_rules.applicable(requests) if requests else {}
    return [out_plan(p, fits) for p in ps], [promotion_plan(p) for p in ps]


def _request(p: "op_tests.Plan"):
    """(opinfo, variant, dtype) the out= contract of p's entry uses, or None."""
    if p.untested or not p.out:
        return None
    info, dtype = _choice(p)
    return (info.name, info.variant, dtype)


def _py(value) -> str:
    return repr(value)


def render(entries: List[Entry], index: Optional[Index] = None) -> Dict[str, str]:
    outs, promos = plans(entries, index)
    files = {OUT_PATH: _render_out(outs), PROMOTION_PATH: _render_promotion(promos)}
    return files


_HEADER = "# Generated by `python -m codegen` from ops.yaml (codegen/testgen/contracts.py). Do not edit.\n"


def _render_out(plans_: List[OutPlan]) -> str:
    lines = [_HEADER + '"""The out= contract (tests/out_contract_harness.py) of every ops.yaml '
             'entry with\nan out= overload: one test per entry and rule."""', "",
             "import pytest", "", "from out_contract_harness import contract, run", "",
             "CASES = ["]
    untested = []
    for p in sorted(plans_, key=lambda p: p.entry.op):
        if not p.rules:
            untested.append((p.entry.op, p.why_none))
            continue
        lines.append(f"    # {p.entry.op}: " + ("; ".join(
            f"{r} n/a ({why})" for r, why in sorted(p.skipped.items())) or "every rule"))
        for rule in p.rules:
            args = [_py(p.entry.op), _py(p.out), _py(rule), _py(p.opinfo.name), _py(p.dtype)]
            if p.opinfo.variant:
                args.append(f"variant={_py(p.opinfo.variant)}")
            args += _xfail_args(p.entry, "out_contract", rule)
            lines.append(f"    contract({', '.join(args)}),")
    lines += ["]", ""]
    if untested:
        lines += ["# No out= contract test:"] + [f"#   {op}: {why}" for op, why in untested] + [""]
    lines += ["", "@pytest.mark.parametrize(\"case\", CASES)", "def test_out_contract(case):",
              "    run(case)", ""]
    return "\n".join(lines)


def _render_promotion(plans_: List[PromotionPlan]) -> str:
    lines = [_HEADER + '"""The type-promotion matrix (tests/promotion_harness.py) of every '
             'ops.yaml entry\nwhose OpInfo is a binary ufunc: one test per entry and operand '
             'kinds."""', "", "import pytest", "", "from promotion_harness import matrix, run",
             "", "CASES = ["]
    for p in sorted(plans_, key=lambda p: p.entry.op):
        if not p.kinds:
            continue
        b = p.opinfo.binary
        xfail = _xfail_args(p.entry, "promotion")
        for kind in p.kinds:
            args = [_py(p.entry.op), _py(kind), _py(p.opinfo.name)]
            if p.opinfo.variant:
                args.append(f"variant={_py(p.opinfo.variant)}")
            if b.always_returns_bool:
                args.append("returns_bool=True")
            if b.promotes_int_to_float:
                args.append("int_to_float=True")
            if p.entry.dtypes:
                args.append(f"declared={_py(tuple(p.entry.dtypes))}")
            args += xfail
            lines.append(f"    matrix({', '.join(args)}),")
    lines += ["]", "", "", "@pytest.mark.parametrize(\"case\", CASES)",
              "def test_type_promotion(case):", "    run(case)", ""]
    return "\n".join(lines)
