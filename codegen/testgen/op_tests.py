"""Renders the generated OpInfo tests (tests/generated/) from the manifest.

For each entry the generator picks OpInfos (the entry's tests.opinfo, else
the OpInfos named like the op), dtypes (the entry's declared dtypes, else a
small representative set; only those the OpInfo supports on CPU or CUDA: a
dtype only CUDA has is checked against CPU computing in a wider dtype,
tests/cuda_dtype_reference.py, in the values, meta, out and reference
checks) and checks:

  values  tpu against CPU eager over the OpInfo's samples
  meta    FakeTensor on tpu against the real tpu results
  out     out= into contiguous and non-contiguous tpu tensors (when the
          family has an out= overload registered for tpu and the OpInfo
          supports out=)
  reference  the values check over the OpInfo's reference_inputs (extremal
          and large values, odd strides), where it defines them
  grad    backward on tpu against CPU autograd (differentiable entries, with
          OpInfos that support autograd; in float32 and float64, else one
          reduced float, and complex64 where the OpInfo's backward has it)
  errors  the OpInfo's error_inputs raise on tpu as on CPU (dtype-free: one
          case per OpInfo)

and writes them as data (one Entry and one case() per test) into a few
shards; tests/opinfo_harness.py holds the logic. Known failures (tests.xfail)
become strict xfails. Entries that get no test are reported by untested(),
checks left out by gaps(): nothing is dropped silently.

Output is deterministic (sorted, no timestamps); shards are chosen by a
stable hash of the entry's op, as for the C++ files.
"""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import jinja2

from ..facts import autocast
from ..emit import output
from ..errors import ManifestError, did_you_mean
from ..facts import opinfo_index, upstream
from ..facts.autograd import autograd_source
from ..model.manifest import CHECKS, Entry, Kind, Route, XFail
from ..facts.opinfo_index import Index, OpInfoFacts

TESTS_DIR = os.path.join("tests", "generated")
NUM_SHARDS = 4
# Dtypes tested when an entry declares none (= any dtype).
REPRESENTATIVE_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "bool",
                         "complex64", "complex32")
# The grad check (forward and backward on CPU and tpu) runs in float32 and
# float64 where the OpInfo's backward has them, else in the first reduced
# float it has; and in complex64 where it has that: not in every dtype, to
# keep the suite's time bounded.
GRAD_DTYPES = ("float32", "float64")
GRAD_FALLBACK_DTYPES = ("bfloat16", "float16")
GRAD_COMPLEX_DTYPES = ("complex64",)
# The checks a dtype only CUDA has gets (the grad check's dtypes are CPU's).
CUDA_DTYPE_CHECKS = ("values", "meta", "out", "reference")
_TEMPLATES = os.path.join(os.path.dirname(__file__), "templates")


# The meta check (FakeTensor and meta-device predictions, torch's Python meta
# functions: the slowest check) runs in one dtype of each kind an entry has:
# bool, integer, float, reduced float, complex.
META_DTYPES = ("bool", "int64", "float32", "bfloat16", "float16", "complex64")
_KINDS = {"bool": ("bool",), "int64": ("int64", "int32", "int16", "int8", "uint8", "uint16",
                                       "uint32", "uint64"),
          "float32": ("float32", "float64"), "bfloat16": ("bfloat16",), "float16": ("float16",),
          "complex64": ("complex64", "complex128", "complex32")}


def _meta_dtypes(available: List[str]) -> List[str]:
    """One dtype per kind: the preferred one when the OpInfo has it, else the
    first of its kind it has."""
    out = []
    for preferred in META_DTYPES:
        kind = [d for d in _KINDS[preferred] if d in available]
        if kind:
            out.append(preferred if preferred in kind else kind[0])
    return out


def _not_differentiable(entry: Entry) -> str:
    """Why autograd cannot differentiate the entry's op ("" when it can): no
    derivatives.yaml formula for the op or its family's functional overload,
    and no decomposition. torchgen derives the _foreach_ ops' formulas from
    their base ops' (derivatives.yaml lists only a few)."""

    if entry.op.startswith("_foreach_"):
        return ""
    ops = [entry.op] + [o for k, o in entry.family.items() if k == "functional" and o != entry.op]
    sources = [autograd_source(o) for o in ops]
    if any(src.startswith(("formula", "composite")) for src in sources):
        return ""
    return f"{entry.op} is not differentiable (its autograd: {sources[0]})"


# ATen's tags of ops whose outputs depend on the data: FakeTensor refuses them
# (DynamicOutputShapeException, DataDependentOutputException), and so does the
# meta device (no Meta kernel, or item() on meta).
DATA_DEPENDENT_TAGS = ("dynamic_output_shape", "data_dependent_output")
# Tagged overloads that some OpInfo samples still get predicted for.
PREDICTED_DESPITE_TAG = {
    "repeat_interleave.Tensor": "FakeTensor predicts it when output_size is given (fake_impls)",
    "index.Tensor": "data-dependent only for boolean indices (FakeTensor's own exception)",
    "_ctc_loss": "its lengths are int lists, from which the meta device's kernel sizes the outputs",
}


def _data_dependent(entry: Entry) -> str:
    """Why no meta check can predict the entry's outputs ("" when one can):
    every overload it registers carries a data-dependent tag."""
    ops = [upstream.lookup(v.op) for v in entry.variants] or [upstream.lookup(entry.op)]
    tags = [sorted(set(o.tags) & set(DATA_DEPENDENT_TAGS))
            if o and o.name not in PREDICTED_DESPITE_TAG else [] for o in ops]
    if not ops or not all(tags):
        return ""
    return (f"its outputs depend on the data (ATen tags it {', '.join(sorted({t for ts in tags for t in ts}))}): "
            "neither FakeTensor nor the meta device predicts them")


def _backward_dtypes(f: OpInfoFacts, wanted) -> List[str]:
    """The wanted dtypes f's backward supports, where torch compares values
    (gradients of random or uninitialized values are not compared either)."""
    return [d for d in wanted if d in f.backward_dtypes and d in f.dtypes
            and f.comparable(d) is None]


def _grad_dtypes(available: List[str]) -> List[str]:
    """The grad check's dtypes among those the OpInfo's backward has."""
    out = [d for d in GRAD_DTYPES if d in available]
    if not out:
        out = [d for d in GRAD_FALLBACK_DTYPES if d in available][:1]
    return out + [d for d in GRAD_COMPLEX_DTYPES if d in available]


@dataclass(frozen=True)
class Case:
    check: str
    opinfo: OpInfoFacts
    dtype: str
    compare_values: bool
    xfail: str                      # the known failure's reason ("" for none)
    cpu_lacks: bool = False         # a dtype the OpInfo has on CUDA only: a widened reference
    raises: str = ""                # the exception the known failure raises


@dataclass
class Plan:
    """What the generator decided for one entry."""
    entry: Entry
    opinfos: List[OpInfoFacts]
    out: str                                        # out= overload the out check calls
    cases: List[Case] = field(default_factory=list)
    gaps: Dict[str, str] = field(default_factory=dict)   # check or "dtypes" -> why not (all) tested
    not_applicable: Dict[str, str] = field(default_factory=dict)  # check -> why it cannot apply
    untested: str = ""                              # why no test at all


def _index(index: Optional[Index]) -> Index:
    if index is not None:
        return index

    return opinfo_index.load()


def _names(entry: Entry) -> List[str]:
    """Names an OpInfo of this op would have: the op without its overload
    name ("fill_", "add") and the upstream base name ("fill")."""
    names = [entry.op.split(".", 1)[0]]
    if entry.variants:
        names.append(entry.variants[0].upstream.base)
    else:

        up = upstream.lookup(entry.op)
        if up is not None:
            names.append(up.base)
    return sorted(set(names), key=names.index)


def _opinfos(entry: Entry, index: Index, manifest_path: str) -> List[OpInfoFacts]:
    if not entry.tests.opinfo:
        return index.matching(_names(entry))
    found: List[OpInfoFacts] = []
    for name in entry.tests.opinfo:
        named = index.named(name)
        if not named:
            raise ManifestError(manifest_path, entry.line,
                                f"tests.opinfo names no OpInfo of this torch: '{name}'"
                                f"{did_you_mean(name, index.all_names())}",
                                "use an OpInfo name from torch.testing._internal."
                                "common_methods_invocations.op_db ('name' for all its "
                                "variants, 'name.variant' for one)", op=entry.op, key="tests")
        found += [f for f in named if f not in found]
    return found


def _xfail(entry: Entry, check: str, dtype: str, f: OpInfoFacts) -> Optional[XFail]:
    for x in entry.tests.xfail:
        if ((not x.dtypes or dtype in x.dtypes) and (not x.checks or check in x.checks)
                and (not x.opinfos or f.full_name in x.opinfos)):
            return x
    return None


def _case(check: str, f: OpInfoFacts, dtype: str, comparable: bool, known: Optional[XFail],
          cpu_lacks: bool = False) -> Case:
    return Case(check, f, dtype, comparable, known.reason if known else "", cpu_lacks,
                known.raises if known else "")


def _check_xfail_opinfos(entry: Entry, opinfos: List[OpInfoFacts], manifest_path: str) -> None:
    names = [f.full_name for f in opinfos]
    for x in entry.tests.xfail:
        for name in x.opinfos:
            if name not in names:
                raise ManifestError(manifest_path, entry.line,
                                    f"tests.xfail names OpInfo '{name}', which the entry's tests "
                                    f"do not use{did_you_mean(name, names)}",
                                    "name one of: " + ", ".join(names), op=entry.op, key="tests")


def plan(entry: Entry, index: Optional[Index] = None, manifest_path: str = "ops.yaml",
         elsewhere: Optional[Dict[str, str]] = None) -> Plan:
    """elsewhere: overload -> the entry registering it (a composite's out=
    overload may have an entry of its own, whose tests cover it)."""
    index = _index(index)
    if entry.tests.handwritten and not entry.tests.opinfo:
        p = Plan(entry, [], out="")
        p.untested = f"no OpInfo reaches it; tested by hand in {entry.tests.handwritten}"
        return p
    opinfos = _opinfos(entry, index, manifest_path)
    registered = {v.op for v in entry.variants}
    family = entry.family
    out = family.get("out", "")
    p = Plan(entry, opinfos, out="")
    if not out:
        p.not_applicable["out"] = "the op's family has no out= overload"
    if not opinfos:
        tried = ", ".join(_names(entry))
        p.untested = (f"no OpInfo named {tried} (by name or aten_name); "
                      "name one in the entry's tests.opinfo if another OpInfo calls it")
        return p

    _check_xfail_opinfos(entry, opinfos, manifest_path)
    # autocast: _plan_autocast; out_contract, promotion: codegen/testgen/contracts.py
    checks = [c for c in CHECKS if c in ("values", "meta", "out", "reference", "grad", "errors")]
    if entry.route == Route.DIRECT and entry.variants and all(v.kind == Kind.OUT for v in entry.variants):
        for c in ("values", "meta", "reference", "grad", "errors"):
            p.gaps[c] = (f"the entry registers only the out= overload {entry.op}; "
                         "the out check covers it")
            checks.remove(c)
    if "meta" in checks and _data_dependent(entry):
        p.not_applicable["meta"] = _data_dependent(entry)
        checks.remove("meta")
    if "grad" in checks and _not_differentiable(entry):
        p.not_applicable["grad"] = _not_differentiable(entry)
        checks.remove("grad")
    # What the OpInfos do not provide cannot be generated: inputs they do not
    # define (not applicable), autograd they do not test (a gap: the op is
    # differentiable).
    for c, has, what in (("reference", lambda f: f.reference_inputs, "defines reference_inputs"),
                         ("grad", lambda f: f.backward_dtypes, "supports autograd"),
                         ("errors", lambda f: f.error_inputs,
                          "defines error_inputs that reach a device")):
        if c in checks and not any(has(f) for f in opinfos):
            why = f"no OpInfo used here {what} ({', '.join(f.full_name for f in opinfos)})"
            (p.gaps if c == "grad" else p.not_applicable)[c] = why
            checks.remove(c)
    if not out:
        checks.remove("out")
    elif entry.route == Route.COMPOSITE and out in (elsewhere or {}):
        p.gaps["out"] = f"{out} has an entry of its own ({elsewhere[out]}), tested there"
        checks.remove("out")
    elif entry.route != Route.COMPOSITE and out not in registered:
        p.gaps["out"] = (f"{out} is not registered for tpu by this entry (it registers "
                         f"{', '.join(sorted(registered))})")
        checks.remove("out")
    elif not any(f.supports_out for f in opinfos):
        p.gaps["out"] = (f"{out} exists but no OpInfo used here supports out= "
                         f"({', '.join(f.full_name for f in opinfos)})")
        checks.remove("out")
    if "out" in checks:
        p.out = out

    wanted = entry.tests.dtypes or entry.dtypes or REPRESENTATIVE_DTYPES
    if entry.tests.dtypes:
        p.gaps["dtypes"] = f"tested only in {', '.join(wanted)} (tests.dtypes)"
    unsupported = [d for d in wanted if not any(d in f.dtypes or d in f.cuda_dtypes for f in opinfos)]
    if unsupported and (entry.dtypes or entry.tests.dtypes):
        p.gaps["dtypes"] = (f"not tested: {', '.join(unsupported)} (no OpInfo used here "
                            "supports them on CPU or CUDA)")
    for f in opinfos:
        meta_dtypes = _meta_dtypes([d for d in wanted if d in f.dtypes or d in f.cuda_dtypes])
        # A known meta failure in some dtype stays a (strict) test of that dtype.
        meta_dtypes += [d for x in entry.tests.xfail if not x.checks or "meta" in x.checks
                        for d in x.dtypes if d not in meta_dtypes]
        grad_dtypes = _grad_dtypes(_backward_dtypes(f, wanted))
        for dtype in wanted:
            cpu_lacks = dtype not in f.dtypes
            if cpu_lacks and dtype not in f.cuda_dtypes:
                continue
            comparable = f.comparable(dtype) is None
            for check in checks:
                if cpu_lacks and check not in CUDA_DTYPE_CHECKS:
                    continue
                if check == "out" and not f.supports_out:
                    continue
                if check == "meta" and dtype not in meta_dtypes:
                    continue
                if check == "reference" and not f.reference_inputs:
                    continue
                if check == "grad" and dtype not in grad_dtypes:
                    continue
                if check == "errors":
                    continue  # dtype-free: one case per OpInfo, below
                p.cases.append(_case(check, f, dtype, comparable, _xfail(entry, check, dtype, f),
                                     cpu_lacks))
        if "errors" in checks and f.error_inputs:
            p.cases.append(_case("errors", f, "", True, _xfail(entry, "errors", "", f)))
    meta_done = {c.dtype for c in p.cases if c.check == "meta"}
    meta_skipped = [d for d in wanted if d not in meta_done
                    and any(d in f.dtypes or d in f.cuda_dtypes for f in opinfos)]
    if "meta" in checks and meta_done and meta_skipped:
        p.gaps.setdefault("meta", f"not in {', '.join(meta_skipped)}: predicted in one dtype of "
                                  "each kind (bool, integer, float, bfloat16, float16, complex)")
    grad_done = {c.dtype for c in p.cases if c.check == "grad"}
    grad_skipped = [d for d in wanted if d not in grad_done
                    and any(d in _backward_dtypes(f, wanted) for f in opinfos)]
    if "grad" in checks and not grad_done:
        p.gaps.setdefault("grad", f"none of the dtypes tested ({', '.join(wanted)}) is one the "
                                  "OpInfos' backward supports, with values torch compares")
    elif "grad" in checks and grad_skipped:
        p.gaps.setdefault("grad", f"not in {', '.join(grad_skipped)}: run in float32 and float64 "
                                  "(else one reduced float) and complex64")
    _plan_autocast(p, opinfos)
    if not p.cases:
        p.untested = (f"the OpInfos ({', '.join(f.full_name for f in opinfos)}) support none of "
                      f"the dtypes {', '.join(wanted)} on CPU or CUDA")
    return p


def _plan_autocast(p: Plan, opinfos: List[OpInfoFacts]) -> None:
    """autocast cases: per OpInfo and autocast dtype the entry's kernel
    declares, with samples in the dtype that shows the policy."""
    entry = p.entry
    if entry.autocast in ("", "none"):
        return
    declared = entry.dtypes or autocast.AUTOCAST_DTYPES
    skipped = [d for d in autocast.AUTOCAST_DTYPES if d not in declared]
    if skipped:
        p.gaps["autocast"] = (f"not tested in {', '.join(skipped)}: the entry's kernel does "
                              "not declare it")
    for f in opinfos:
        for low in autocast.AUTOCAST_DTYPES:
            if low in skipped:
                continue
            sample_dtype = autocast.input_dtype(entry.autocast, low)
            if sample_dtype not in f.dtypes:
                continue
            p.cases.append(_case("autocast", f, low, f.comparable(low) is None,
                                 _xfail(entry, "autocast", low, f)))
    if not any(c.check == "autocast" for c in p.cases) and "autocast" not in p.gaps:
        p.gaps["autocast"] = "no OpInfo used here has samples in the dtypes the policy needs"


def plans(entries: List[Entry], index: Optional[Index] = None,
          manifest_path: str = "ops.yaml") -> List[Plan]:
    index = _index(index)
    elsewhere = {v.op: e.op for e in entries for v in e.variants}
    return [plan(e, index, manifest_path, elsewhere) for e in sorted(entries, key=lambda e: e.op)]


def untested(entries: List[Entry], index: Optional[Index] = None) -> Dict[str, str]:
    """op -> why the entry has no generated test (for the coverage table)."""
    return {p.entry.op: p.untested for p in plans(entries, index) if p.untested}


def gaps(entries: List[Entry], index: Optional[Index] = None) -> Dict[str, Dict[str, str]]:
    """op -> {check or "dtypes": why it is not (fully) generated}, for entries
    that do get tests (the others are in untested()). A check that cannot
    apply (no out= overload in the family) is not a gap: see not_applicable()."""
    return {p.entry.op: dict(sorted(p.gaps.items())) for p in plans(entries, index)
            if p.gaps and not p.untested}


def not_applicable(entries: List[Entry], index: Optional[Index] = None) -> Dict[str, Dict[str, str]]:
    """op -> {check: why the check cannot apply to the entry}."""
    return {p.entry.op: dict(sorted(p.not_applicable.items())) for p in plans(entries, index)
            if p.not_applicable}


def shard_of(entry: Entry) -> int:
    return output.shard_of(entry.op, NUM_SHARDS)


def _py(value) -> str:
    """A Python literal (deterministic repr)."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, tuple) and len(value) == 1:
        return f"({value[0]!r},)"
    return repr(value)


def _var(op: str, taken: set) -> str:
    name = re.sub(r"\W", "_", op).upper()
    if name[0].isdigit():
        name = "_" + name
    base, k = name, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name


@dataclass(frozen=True)
class _EntryView:
    var: str
    op: str
    line: int
    route: str
    args: str           # the Entry(...) arguments after op
    comment: str


@dataclass(frozen=True)
class _CaseView:
    args: str


def _entry_view(p: Plan, var: str) -> _EntryView:
    e = p.entry
    args = [f"route={_py(e.route)}"]
    if e.variants:
        args.append(f"variants={_py(tuple(v.op for v in e.variants))}")
    if e.stub:
        args.append(f"stub={_py(e.stub)}")
    if e.also_stubs:
        args.append(f"also_stubs={_py(tuple(stub for stub, _, _ in e.also_stubs))}")
    if p.out:
        args.append(f"out={_py(p.out)}")
    if e.route == Route.COMPOSITE:
        args.append(f"family={_py(tuple(sorted(set(e.family.values()) | {e.op})))}")
    if e.tests.atol is not None:
        args.append(f"atol={_py(e.tests.atol)}")
    if e.tests.rtol is not None:
        args.append(f"rtol={_py(e.tests.rtol)}")
    if e.tests.float32_reference:
        args.append(f"float32_reference={_py(e.tests.float32_reference)}")
    if e.tests.follows_fake:
        args.append(f"follows_fake={_py(e.tests.follows_fake)}")
    if e.autocast not in ("", "none"):
        args.append(f"autocast={_py(e.autocast)}")
    # What the plan leaves out: gaps, and checks that cannot apply.
    notes = [f"{k}: {v}" for k, v in sorted({**p.not_applicable, **p.gaps}.items())]
    return _EntryView(var, e.op, e.line or 0, e.route, ", ".join(args), "; ".join(notes))


def _case_view(var: str, c: Case) -> _CaseView:
    args = [var, _py(c.check), _py(c.opinfo.name), _py(c.dtype)]
    if c.opinfo.variant:
        args.append(f"variant={_py(c.opinfo.variant)}")
    if not c.compare_values:
        args.append("compare_values=False")
    if c.cpu_lacks:
        args.append("cpu_lacks=True")
    if c.xfail:
        args.append(f"xfail={_py(c.xfail)}")
        args.append(f"raises={_py(c.raises)}")
    return _CaseView(", ".join(args))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(_TEMPLATES),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["py"] = _py
    return env


def render(entries: List[Entry], index: Optional[Index] = None,
           manifest_path: str = "ops.yaml") -> Dict[str, str]:
    """Maps repository-relative path -> file content: one test module per
    non-empty shard. Raises ManifestError for a tests.opinfo naming no OpInfo."""
    template = _environment().get_template("test_ops_shard.py.j2")
    all_plans = plans(entries, index, manifest_path)
    files: Dict[str, str] = {}
    for k in range(NUM_SHARDS):
        mine = [p for p in all_plans if shard_of(p.entry) == k]
        tested = [p for p in mine if p.cases]
        if not tested:
            continue
        taken: set = set()
        views, cases = [], []
        for p in tested:
            var = _var(p.entry.op, taken)
            views.append(_entry_view(p, var))
            cases += [_case_view(var, c) for c in p.cases]
        files[os.path.join(TESTS_DIR, f"test_ops_{k}.py")] = template.render(
            shard=k, num_shards=NUM_SHARDS, entries=views, cases=cases,
            untested=[(p.entry.op, p.untested) for p in mine if p.untested])
    return files


def write(root: str, files: Dict[str, str], check: bool = False) -> List[str]:
    """Writes changed files under tests/generated/ and removes stale test
    files (with check, only reports them). Returns the repository-relative
    paths that differ."""
    return output.write_tree(root, TESTS_DIR, files, check=check,
                             owned=lambda name: name.endswith(".py"))
