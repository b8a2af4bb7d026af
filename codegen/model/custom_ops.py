"""Custom operators in the `tpu` namespace (torch.ops.tpu.*), declared in
ops.yaml next to the aten entries. One entry carries all of an operator's
registrations:

  op           tpu::name or tpu::name.overload: the stable name
  schema       "(Tensor x, ...) -> Tensor": its stable schema, with alias and
               mutation annotations (Tensor(a!)), registered verbatim
  mutates_args the arguments it writes: must be exactly the schema's (a!) ones
  tags         torch.Tag names: pt2_compliant_tag, and inplace / out for the
               mutating forms (2.13: how functionalization handles them)
  impl         the device kernel: a function in torch_tpu::aten::custom
               (csrc/aten), declared by the generator in the op's signature
  meta         the fake implementation: a function of the same signature
               registered for Meta (what FakeTensor, torch.compile and
               torch.export run); it must check what impl checks
  derivatives  autograd, as in derivatives.yaml: {"x": formula} or
               {"x, w": formula returning a tuple}, C++ over the inputs'
               names, grad (grads[i] for several outputs), result (resultN)
               and grad_input_mask; or not_implemented (backward raises).
               Out= forms are not differentiable: no key (an input that
               requires grad is rejected, as for aten out= ops)
  autocast     the AutocastPrivateUse1 policy (codegen/facts/autocast.py)
  dtypes       what impl supports; others raise NotImplementedError
  tests        samples: a function of tests/custom_op_samples.py (default:
               the op's name) giving sample and error inputs; reference: a
               function of torch_tpu/reference.py computing the op with aten
               ops (default: the op's name, for functional ops); atol, rtol
  notes        free text for docs/coverage.md
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from types import SimpleNamespace

from torchgen.model import Arguments, parse_returns

from ..facts import autocast
from . import cpp
from ..facts.dtypes import DTYPES, parse_dtypes
from ..errors import ManifestError, did_you_mean
from .yaml_lines import LINE_KEY

NAMESPACE = "tpu"
KEYS = {
    "op": "tpu::name[.overload] (required)",
    "schema": "the argument list and returns, \"(Tensor x) -> Tensor\" (required)",
    "mutates_args": "the arguments the op writes (as the schema's (a!) annotations say)",
    "tags": "torch.Tag names (pt2_compliant_tag; inplace / out for mutating forms)",
    "impl": "the device kernel, a function in torch_tpu::aten::custom (required)",
    "meta": "the fake implementation (Meta kernel) of the same signature (required)",
    "derivatives": "autograd formulas {inputs: C++ formula}, or not_implemented",
    "autocast": "the AutocastPrivateUse1 policy: " + ", ".join(autocast.POLICIES),
    "dtypes": "dtypes the kernel supports (default: any)",
    "tests": "samples, reference, atol, rtol (see codegen/model/custom_ops.py)",
    "notes": "free text shown in docs/coverage.md",
}
TEST_KEYS = {
    "samples": "the function of tests/custom_op_samples.py giving samples (default: the op's name)",
    "reference": "the function of torch_tpu/reference.py computing the op (default: the op's name)",
    "atol": "absolute tolerance against the reference: a number or {dtype: number}",
    "rtol": "relative tolerance against the reference: a number or {dtype: number}",
}
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_TAGS_WITH_RULES = ("inplace", "out")


@dataclass(frozen=True)
class Argument:
    name: str
    type: str          # the schema type ("Tensor?", "float", ...)
    cpp_type: str      # its C++ dispatcher type
    is_tensor: bool    # Tensor or Tensor? (what autograd sees)
    optional: bool     # Tensor?
    written: bool      # (a!)
    kwarg_only: bool


@dataclass(frozen=True)
class Derivative:
    inputs: Tuple[str, ...]    # the inputs the formula gives gradients for
    formula: str
    line: int


@dataclass(frozen=True)
class CustomTests:
    samples: str
    reference: str
    atol: Optional[object] = None
    rtol: Optional[object] = None


@dataclass(frozen=True)
class CustomOp:
    qualname: str                   # "tpu::bias_gelu.out"
    name: str                       # "bias_gelu"
    overload: str                   # "out" ("" for none)
    schema: str                     # "(Tensor x, ...) -> Tensor", as written
    arguments: Tuple[Argument, ...]
    returns: str                    # C++ return type
    return_count: int
    kind: str                       # functional / inplace / out
    impl: str
    meta: str
    derivatives: Tuple[Derivative, ...]
    not_differentiable: bool        # derivatives: not_implemented
    autocast: str
    tags: Tuple[str, ...]
    dtypes: Tuple[str, ...]
    tests: CustomTests
    line: int
    notes: str = ""

    @property
    def op(self) -> str:
        """The manifest's spelling (coverage, messages)."""
        return self.qualname

    @property
    def schema_name(self) -> str:
        """name.overload, as the dispatcher's schema names it."""
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def full_schema(self) -> str:
        return f"{self.schema_name}{self.schema}"

    @property
    def cpp_name(self) -> str:
        """The C++ identifier of the op's call (torch_tpu::ops::<cpp_name>)."""
        return self.name + (f"_{self.overload}" if self.overload else "")

    @property
    def written(self) -> Tuple[str, ...]:
        return tuple(a.name for a in self.arguments if a.written)

    def signature(self, function: str) -> str:
        params = ", ".join(f"{a.cpp_type} {a.name}" for a in self.arguments)
        return f"{self.returns} {function}({params})"

    @property
    def function_type(self) -> str:
        return f"{self.returns}({', '.join(a.cpp_type for a in self.arguments)})"


class _Checker:
    def __init__(self, path: str, line: Optional[int], op: Optional[str]):
        self.path, self.line, self.op = path, line, op

    def fail(self, message: str, fix: str, key: Optional[str] = None):
        raise ManifestError(self.path, self.line, message, fix, op=self.op, key=key)


def is_custom(item) -> bool:
    return isinstance(item, dict) and isinstance(item.get("op"), str) and "::" in item["op"]


def parse(path: str, item: dict) -> CustomOp:
    line = item.get(LINE_KEY)
    qualname = item["op"]
    check = _Checker(path, line, qualname)
    for key in item:
        if key != LINE_KEY and key not in KEYS:
            check.fail(f"unknown key for a custom operator{did_you_mean(key, KEYS)}",
                       "custom operator keys: " + "; ".join(f"{k}: {v}" for k, v in KEYS.items()),
                       key=key)
    ns, _, rest = qualname.partition("::")
    if ns != NAMESPACE:
        check.fail(f"custom operators live in the '{NAMESPACE}' namespace, not '{ns}'",
                   f"write op: {NAMESPACE}::{rest}", key="op")
    name, _, overload = rest.partition(".")
    if not _IDENT.match(name) or (overload and not _IDENT.match(overload)):
        check.fail(f"'{qualname}' is not a valid operator name",
                   f"write op: {NAMESPACE}::name or {NAMESPACE}::name.overload", key="op")
    schema = item.get("schema")
    if not isinstance(schema, str) or not schema.strip().startswith("("):
        check.fail("missing or malformed 'schema'",
                   "write the argument list and returns: schema: \"(Tensor x) -> Tensor\"",
                   key="schema")
    schema = " ".join(schema.split())
    func = _parse_schema(check, f"{name}{'.' + overload if overload else ''}", schema)
    try:
        sig = cpp.signature_of(func.arguments.flat_all, func.returns, const_ref_for_mutable=False)
    except cpp.UnsupportedType as e:
        check.fail(f"the generator cannot map argument type '{e}' to C++",
                   "extend codegen/model/cpp.py for this type", key="schema")
    arguments = _arguments(func, sig)
    kind = _kind(func)
    tags = _tags(check, item.get("tags"), func, kind)
    mutates = item.get("mutates_args", [])
    if not isinstance(mutates, list) or not all(isinstance(m, str) for m in mutates):
        check.fail("'mutates_args' must be a list of argument names", "mutates_args: [out]",
                   key="mutates_args")
    written = [a.name for a in arguments if a.written]
    if sorted(mutates) != sorted(written):
        check.fail(f"mutates_args {mutates} but the schema writes {written} (its (a!) arguments)",
                   "list exactly the arguments annotated Tensor(a!) in the schema",
                   key="mutates_args")
    for key in ("impl", "meta"):
        value = item.get(key)
        if not isinstance(value, str) or not _IDENT.match(value):
            check.fail(f"a custom operator needs '{key}', a C++ function name, got {value!r}",
                       KEYS[key], key=key)
    derivs, not_diff = _derivatives(check, item.get("derivatives"), arguments, kind, func)
    policy = _autocast(check, item.get("autocast"), arguments, kind)
    try:
        dtypes = parse_dtypes(item["dtypes"]) if item.get("dtypes") is not None else ()
    except ValueError as e:
        check.fail(str(e), "list dtype names: " + ", ".join(DTYPES), key="dtypes")
    tests = _tests(check, item.get("tests"), name, kind)
    notes = item.get("notes", "")
    if not isinstance(notes, str):
        check.fail("'notes' must be a string", "write notes: \"...\"", key="notes")
    return CustomOp(f"{NAMESPACE}::{name}{'.' + overload if overload else ''}", name, overload,
                    schema, arguments, sig.returns, len(func.returns), kind, item["impl"],
                    item["meta"], derivs, not_diff, policy, tags, dtypes, tests, line or 0, notes)


def _parse_schema(check: _Checker, name: str, schema: str):
    """Validated by the dispatcher's own parser (what registration runs), read
    with torchgen's argument and return parsers (without native_functions.yaml's
    naming rules, which custom operators need not follow)."""
    import torch

    fix = "use torch's schema syntax, e.g. \"(Tensor x, float eps=1e-06) -> Tensor\""
    try:
        torch._C.parse_schema(f"{name}{schema}")
    except RuntimeError as e:
        check.fail(f"the schema does not parse: {str(e).strip().splitlines()[0]}", fix, key="schema")
    m = re.match(r"^\((.*)\)\s*->\s*(.*)$", schema)
    if m is None:
        check.fail("the schema must be \"(arguments) -> returns\"", fix, key="schema")
    try:
        return SimpleNamespace(arguments=Arguments.parse(m.group(1)),
                               returns=parse_returns(m.group(2)))
    except Exception as e:  # torchgen's parsers assert
        check.fail(f"the schema does not parse: {e}", fix, key="schema")


def _arguments(func, sig: cpp.Signature) -> Tuple[Argument, ...]:
    kwarg_only = {a.name for a in func.arguments.flat_kwarg_only} | {
        a.name for a in func.arguments.out}
    out = []
    for a, param in zip(func.arguments.flat_all, sig.params):
        t = str(a.type)
        out.append(Argument(a.name, t, param.type, t in ("Tensor", "Tensor?"),
                            t == "Tensor?", a.annotation is not None and a.annotation.is_write,
                            a.name in kwarg_only))
    return tuple(out)


def _kind(func) -> str:
    if func.arguments.out:
        return "out"
    if any(a.annotation is not None and a.annotation.is_write for a in func.arguments.flat_all):
        return "inplace"
    return "functional"


def _tags(check: _Checker, value, func, kind: str) -> Tuple[str, ...]:
    import torch

    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        check.fail("'tags' must be a list of torch.Tag names", "tags: [pt2_compliant_tag]",
                   key="tags")
    known = [t for t in dir(torch.Tag) if not t.startswith("_") and t not in ("name", "value")]
    for t in value:
        if t not in known:
            check.fail(f"unknown tag '{t}'{did_you_mean(t, known)}", "tags: " + ", ".join(known),
                       key="tags")
    # What the inplace / out tags promise (torch/_library: how 2.13
    # functionalizes a custom op that returns an alias of its argument).
    if kind == "out" and "out" not in value:
        check.fail("an out= form (it writes keyword-only out arguments) needs tags: [out] so "
                   "that torch.compile and torch.export can functionalize it",
                   "add 'out' to tags", key="tags")
    if kind == "inplace" and "inplace" not in value:
        check.fail("an in-place form (it writes an argument) needs tags: [inplace] so that "
                   "torch.compile and torch.export can functionalize it",
                   "add 'inplace' to tags", key="tags")
    if "inplace" in value:
        first = func.arguments.flat_positional[0] if func.arguments.flat_positional else None
        ok = (first is not None and first.annotation is not None and first.annotation.is_write
              and len(func.returns) == 1 and func.returns[0].annotation == first.annotation
              and sum(1 for a in func.arguments.flat_all
                      if a.annotation is not None and a.annotation.is_write) == 1)
        if not ok:
            check.fail("tag 'inplace' means: the first positional argument is the only one "
                       "written (Tensor(a!)), and the op returns it (-> Tensor(a!))",
                       "e.g. schema: \"(Tensor(a!) x, Tensor y) -> Tensor(a!)\"", key="tags")
    if "out" in value:
        outs = func.arguments.out
        ok = bool(outs) and len(func.returns) == len(outs) and all(
            r.annotation == o.annotation for r, o in zip(func.returns, outs))
        if not ok:
            check.fail("tag 'out' means: the written arguments are keyword-only (after *) and "
                       "returned in order",
                       "e.g. schema: \"(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\"", key="tags")
    return tuple(value)


def _derivatives(check: _Checker, value, arguments, kind: str, func) -> Tuple[tuple, bool]:
    if value is None:
        if kind == "functional":
            check.fail("a functional custom operator needs 'derivatives' (formulas, or "
                       "not_implemented if its backward is not written yet)",
                       "derivatives: {x: \"formula\"}", key="derivatives")
        return (), False
    if kind == "out":
        check.fail("out= forms are not differentiable (as aten's): remove 'derivatives'",
                   "an input that requires grad is rejected with aten's message", key="derivatives")
    if value == "not_implemented":
        return (), True
    if kind == "inplace":
        check.fail("in-place forms take derivatives: not_implemented (their backward "
                   "would need the overwritten input)", "derivatives: not_implemented",
                   key="derivatives")
    if not isinstance(value, dict):
        check.fail("'derivatives' must map input names to formulas, or be not_implemented",
                   "derivatives: {\"x, weight\": \"backward(grad, x, weight, grad_input_mask)\"}",
                   key="derivatives")
    tensors = [a.name for a in arguments if a.is_tensor]
    seen: Dict[str, str] = {}
    out = []
    first_line = value.get(LINE_KEY, 0)
    for index, (key, formula) in enumerate(k for k in value.items() if k[0] != LINE_KEY):
        names = tuple(n.strip() for n in str(key).split(","))
        for n in names:
            if n not in tensors:
                check.fail(f"derivatives name '{n}', which is not a tensor input"
                           f"{did_you_mean(n, tensors)}",
                           "name tensor inputs: " + ", ".join(tensors), key="derivatives")
            if n in seen:
                check.fail(f"derivatives give '{n}' twice", "one formula per input",
                           key="derivatives")
            seen[n] = key
        if not isinstance(formula, str) or not formula.strip():
            check.fail(f"the formula for '{key}' must be a C++ expression",
                       "e.g. x: \"grad * y\"", key="derivatives")
        # Block style puts one formula per line, from the mapping's first line.
        out.append(Derivative(names, formula.strip(), first_line + index if first_line else 0))
    return tuple(out), False


def _autocast(check: _Checker, value, arguments, kind: str) -> str:
    if value is None:
        return ""
    if value not in autocast.POLICIES:
        check.fail(f"unknown autocast policy {value!r}{did_you_mean(str(value), autocast.POLICIES)}",
                   "policies: " + "; ".join(f"{k}: {v}" for k, v in autocast.POLICIES.items()),
                   key="autocast")
    if value != "none" and kind != "functional":
        check.fail(f"autocast policy '{value}' on a form that writes its arguments: the cast "
                   "copies would be written instead", "declare it on the functional op",
                   key="autocast")
    if value in ("fp32_set_opt_dtype", "fp32_append_dtype"):
        check.fail(f"'{value}' needs a dtype argument ATen knows how to set; custom operators "
                   "take lower_precision_fp, fp32, promote or none", "use 'fp32'", key="autocast")
    return value


def _tests(check: _Checker, value, name: str, kind: str) -> CustomTests:
    value = value or {}
    if not isinstance(value, dict):
        check.fail("'tests' must be a mapping", "tests: {samples: rms_norm}", key="tests")
    for key in value:
        if key != LINE_KEY and key not in TEST_KEYS:
            check.fail(f"unknown key in 'tests'{did_you_mean(key, TEST_KEYS)}",
                       "valid keys: " + "; ".join(f"{k}: {v}" for k, v in TEST_KEYS.items()),
                       key="tests")
    samples = value.get("samples", name)
    reference = value.get("reference", name if kind == "functional" else "")
    for key, v in (("samples", samples), ("reference", reference)):
        if not isinstance(v, str) or (v and not _IDENT.match(v)):
            check.fail(f"'tests.{key}' must name a Python function, got {v!r}",
                       TEST_KEYS[key], key="tests")
    return CustomTests(samples, reference, value.get("atol"), value.get("rtol"))


def names_in(formula: str) -> set:
    """Identifiers a formula uses (which inputs and results it needs saved)."""
    return set(re.findall(r"\b[A-Za-z_]\w*\b", formula))
