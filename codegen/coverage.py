"""docs/coverage.md: what the manifest covers, and how far it is from the
Core ATen IR. Rendered by `python -m codegen coverage`; `python -m codegen
check` fails when the committed file is stale (check_stale).

The content depends only on the manifest, the installed torch and static facts
about it (native_functions.yaml, derivatives.yaml, the dispatcher's kernel
table, libtorch_cpu.so, OpInfo sample inputs): no timings, no test results,
no dates. Sorted everywhere, so two runs give the same bytes.

This module gathers the facts; codegen/coverage_sections.py lays them out
(a summary table first, contents, entries by op family, reason codes).

  per entry   registered overloads, route, kernel or stub (and the stub
              check against libtorch_cpu.so), dtypes, meta kernel, autocast
              policy, autograd source, generated tests, composite proof
  core        the 193 Core ATen IR overloads of torch 2.13 by how they reach
              tpu, what would already work through its upstream composite
              kernel without an entry, and the uncovered ones with what their
              upstream implementation is and whether the stub route fits
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from . import autocast, closure, stub_check, upstream
from .dtypes import DTYPES, GROUPS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COVERAGE_PATH = os.path.join("docs", "coverage.md")

DASH = "—"

# Core summary categories, in table order.
DIRECT, STUB, COMPOSITE, FALLBACK, NONE = (
    "direct kernel", "stub kernel", "proven composite entry", "host fallback", "not covered")
CATEGORIES = (DIRECT, STUB, COMPOSITE, FALLBACK, NONE)
_ROUTE_CATEGORY = {"direct": DIRECT, "stub": STUB, "fallback": FALLBACK}


# --------------------------------------------------------------------------
# Public entry points


def render(entries, proofs: Optional[Dict[str, "closure.Proof"]] = None,
           findings: Optional[List["stub_check.Finding"]] = None,
           analyses: Optional[Dict[str, "stub_check.Analysis"]] = None,
           tests: Optional[Dict[str, "tests_emit.Plan"]] = None,
           cache_dir: Optional[str] = closure.CACHE_DIR, customs=()) -> str:
    """The whole of docs/coverage.md (customs: the custom operators). Pieces not passed in are computed
    (proofs: closure.prove over the composite entries and the core composites
    without an entry; findings/analyses: stub_check; tests: test_plans).
    Raises closure.ProofUnavailable if the closure cannot be traced."""
    import torch

    from . import contracts, coverage_sections, modules_emit

    entries = sorted(entries, key=lambda e: e.op)
    registered = {v.op: e.route for e in entries for v in e.variants}
    core = core_overloads()
    if proofs is None:
        proofs = closure.prove(entries, extra_ops=core_candidates(core, registered),
                               cache_dir=cache_dir)
    skip_reason = stub_check.unavailable_reason()
    if findings is None:
        findings = stub_check.check(entries, cache_dir)
    rows = core_rows(entries, core, proofs)
    if analyses is None:
        analyses = {}
        if skip_reason is None:
            queries = [q for r in rows if r.category == NONE for q in [_stub_query(r.op)] if q]
            analyses = stub_check.analyse(queries, cache_dir)
    if tests is None:
        tests = test_plans(entries)
    outs, promos = contracts.plans(list(entries))
    return coverage_sections.document(coverage_sections.Facts(
        torch_version=torch.__version__, entries=entries,
        customs=sorted(customs, key=lambda c: c.qualname), proofs=proofs, findings=findings,
        analyses=analyses, skip_reason=skip_reason, plans=tests, outs=outs, promos=promos,
        core=rows, modules=modules_emit.counts()))


def write(path: str, entries, **kwargs) -> bool:
    """Writes the file if its content changed; returns whether it did."""
    content = render(entries, **kwargs)
    try:
        with open(path) as f:
            if f.read() == content:
                return False
    except OSError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(content)
    return True


def check_stale(path: str, entries=None, **kwargs) -> bool:
    """True if the file at path differs from what render() gives now (or is
    missing). entries default to the repository's ops.yaml."""
    if entries is None:
        from . import manifest

        entries = manifest.load(os.path.join(ROOT, "ops.yaml"))
        kwargs.setdefault("customs", manifest.load_custom(os.path.join(ROOT, "ops.yaml")))
    try:
        with open(path) as f:
            current = f.read()
    except OSError:
        return True
    return current != render(entries, **kwargs)


# --------------------------------------------------------------------------
# Facts about one overload


def autocast_policy(entry) -> str:
    """The entry's autocast policy (and why it differs from CUDA's, if it does)."""
    if not entry.autocast:
        return DASH
    if entry.autocast_reason:
        return f"{entry.autocast} (CUDA: {autocast.reference_policy(entry.op)}; {entry.autocast_reason})"
    return entry.autocast


def _has(op: str, key: str) -> bool:
    import torch

    return torch._C._dispatch_has_kernel_for_dispatch_key(_qualified(op), key)


def _qualified(op: str) -> str:
    return op if "::" in op else "aten::" + op


def meta_kind(op: str) -> str:
    """Can the installed torch compute this overload's output metadata
    (shapes, strides, dtype) without data: what FakeTensor and the meta
    device run."""
    up = upstream.lookup(op)
    if up is not None and up.composite_implicit:
        return "decomposes (CompositeImplicit)"
    if _has(op, "Meta"):
        if up is not None and (up.structured or up.structured_delegate):
            return "structured meta"
        return "Meta kernel"
    if _has(op, "CompositeExplicitAutograd"):
        return "composite (CompositeExplicit)"
    if _has(op, "CompositeExplicitAutogradNonFunctional"):
        return "composite (NonFunctional)"
    return "none"


@functools.lru_cache(maxsize=1)
def _derivatives() -> Dict[str, dict]:
    import torchgen
    import yaml

    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "autograd",
                        "derivatives.yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        rows = yaml.load(f, Loader=loader)
    return {r["name"].split("(", 1)[0]: r for r in rows}


def _formula_kind(row: dict) -> str:
    formulas = row.get("dispatch", {}).get("Default", row) if "dispatch" in row else row
    grads = {k: v for k, v in formulas.items()
             if k not in ("name", "output_differentiability", "result", "dispatch")}
    outputs = row.get("output_differentiability")
    if (outputs and not any(outputs)) or (grads and all(
            str(v).strip() == "non_differentiable" for v in grads.values())):
        return "not differentiable (derivatives.yaml)"
    return "formula (derivatives.yaml)"


def autograd_source(op: str) -> str:
    """Where the op's backward comes from in libtorch."""
    derivs = _derivatives()
    up = upstream.lookup(op)
    if up is not None and up.composite_implicit:
        # derivatives.yaml has formulas for a few of these (linear, matmul):
        # they apply only to backends that override the decomposition.
        return "composite (through its decomposition)"
    if op in derivs:
        return _formula_kind(derivs[op])
    if up is None:
        return "none"
    members = upstream.family(up)
    functional = members.get(_functional_kind())
    if up.func.kind() == _inplace_kind() and functional is not None and functional.name in derivs:
        return _formula_kind(derivs[functional.name]).replace("(derivatives.yaml)",
                                                            f"(of {functional.name})")
    if up.func.kind() == _out_kind():
        return "none (out= is not differentiable)"
    if not any(a.type.is_tensor_like() for a in up.func.arguments.flat_all):
        return "no tensor inputs"
    return "none"


def _functional_kind():
    from torchgen.model import SchemaKind

    return SchemaKind.functional


def _inplace_kind():
    from torchgen.model import SchemaKind

    return SchemaKind.inplace


def _out_kind():
    from torchgen.model import SchemaKind

    return SchemaKind.out


def upstream_kind(op: str) -> str:
    """How torch implements the overload, for planning kernels:
    structured generic / structured cpu-only / ufunc / plain generic /
    plain cpu-only (CPU kernel shared with CUDA or not), CIA, CEA, CEA-NF,
    no CPU kernel."""
    up = upstream.lookup(op)
    if up is None:
        return "not in native_functions.yaml"
    if up.composite_implicit:
        return "CIA"
    impl, via = up, ""
    if up.structured_delegate:
        impl = upstream.lookup(up.structured_delegate)
        via = f" (via {impl.name})"
    if impl.kernel_for("CPU") or impl.ufunc:
        generic = "generic" if impl.generic_cpu_kernel else "cpu-only"
        if impl.ufunc:
            return "ufunc" + via
        return ("structured " if impl.structured else "plain ") + generic + via
    if up.has_key("CompositeExplicitAutograd"):
        return "CEA"
    if up.has_key("CompositeExplicitAutogradNonFunctional"):
        return "CEA-NF"
    return "no CPU kernel"


def _stub_query(op: str) -> Optional[str]:
    """The native implementation a stub entry for op would reuse (the
    generator's choice, codegen/manifest.py), as a stub_check query."""
    up = upstream.lookup(op)
    if up is None or up.composite_implicit:
        return None
    impl = upstream.lookup(up.structured_delegate) if up.structured_delegate else up
    if impl.structured or impl.ufunc:
        return f"at::native::{impl.native_class}::impl("
    kernel = impl.kernel_for("CPU")
    if not kernel:
        return None
    return f"at::native::{kernel}(|{len(impl.func.arguments.flat_all)}"


def stub_route(op: str, analyses: Dict[str, "stub_check.Analysis"],
               skip_reason: Optional[str]) -> str:
    """Could `route: stub` work for this overload, and through which stub."""
    up = upstream.lookup(op)
    if up is None:
        return DASH
    kind = upstream_kind(op)
    if kind == "CIA" or kind.startswith(("CEA", "no CPU")):
        return "n/a (no CPU kernel to reuse)" if kind.startswith("no CPU") else \
            "n/a (composite: cover its closure)"
    impl = upstream.lookup(up.structured_delegate) if up.structured_delegate else up
    if not impl.generic_cpu_kernel:
        static = "no: CPU-only kernel"
    else:
        static = "yes"
    query = _stub_query(op)
    a = analyses.get(query) if query else None
    if a is None:
        return static + ("" if skip_reason is None else " (not checked)")
    if not a.symbols:
        return f"{static}; implementation not found in libtorch_cpu.so"
    if a.cpu_const:
        return f"no: calls {', '.join(a.cpu_const)} with a hard-coded CPU device"
    if not a.stubs:
        calls = ", ".join(a.dispatcher_calls)
        return "no stub reached" + (f" (redispatches: {calls})" if calls else "")
    return f"{static}: {', '.join(a.stubs)}" if static == "yes" else \
        f"{static} ({', '.join(a.stubs)})"


# --------------------------------------------------------------------------
# Core ATen IR


@functools.lru_cache(maxsize=1)
def core_overloads() -> Tuple[str, ...]:
    """Every overload tagged torch.Tag.core in the installed torch, in the
    manifest's spelling ("add.Tensor"). Enumerated from the JIT schema list:
    dir(torch.ops.aten) is incomplete."""
    import torch

    found = set()
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        packet = getattr(torch.ops.aten, s.name[len("aten::"):])
        overload = getattr(packet, s.overload_name or "default")
        if torch.Tag.core in overload.tags:
            found.add(s.name[len("aten::"):] + (f".{s.overload_name}" if s.overload_name else ""))
    return tuple(sorted(found))


def core_candidates(core: Sequence[str], registered: Dict[str, str]) -> List[str]:
    """Core overloads without an entry that might work through their upstream
    composite kernel, to be traced. A structured op's functional form
    (CompositeExplicitAutogradNonFunctional) always calls its out= overload,
    so it is traced only when that is registered."""
    out = []
    for op in core:
        if op in registered:
            continue
        if not any(_has(op, k) for k in ("CompositeExplicitAutograd",
                                          "CompositeExplicitAutogradNonFunctional",
                                          "CompositeImplicitAutograd")):
            continue
        up = upstream.lookup(op)
        if up is not None and up.structured_delegate and up.structured_delegate not in registered:
            continue
        out.append(op)
    return out


@dataclass(frozen=True)
class CoreRow:
    op: str
    category: str
    works_without_entry: bool   # not covered, but its upstream composite is proven


def core_rows(entries, core: Sequence[str], proofs: Dict[str, "closure.Proof"]) -> List[CoreRow]:
    """How each core overload reaches tpu. An overload of an entry's family
    that the entry does not register itself (abs for a stub entry that
    registers abs.out: abs is CompositeExplicit upstream) counts under the
    entry's route when its traced closure is proven."""
    registered = {v.op: e.route for e in entries for v in e.variants}
    composite_entries = {e.op for e in entries if e.route == "composite"}
    family_route = {}
    for e in entries:
        if e.route != "composite":
            for member in sorted(set(e.family.values()) | {e.op}):
                family_route.setdefault(member, e.route)
    rows = []
    for op in core:
        proof = proofs.get(op)
        proven = proof is not None and proof.proven
        if op in registered:
            category = _ROUTE_CATEGORY[registered[op]]
        elif op in composite_entries and proven:
            category = COMPOSITE
        elif op in family_route and proven:
            category = _ROUTE_CATEGORY[family_route[op]]
        else:
            category = NONE
        works = category == NONE and op not in composite_entries and proven
        rows.append(CoreRow(op, category, works))
    return rows


def core_counts(rows: Sequence[CoreRow]) -> Dict[str, int]:
    counts = {c: 0 for c in CATEGORIES}
    for r in rows:
        counts[r.category] += 1
    return counts


# --------------------------------------------------------------------------
# Generated tests


def test_plans(entries) -> Optional[Dict[str, "tests_emit.Plan"]]:
    """op -> the generated tests' plan for it (codegen/tests_emit.py: the
    cases, and why an entry has none); None without tests_emit."""
    try:
        from . import tests_emit
    except ImportError:
        return None
    return {p.entry.op: p for p in tests_emit.plans(list(entries))}


# --------------------------------------------------------------------------
# Rendering helpers (the sections: codegen/coverage_sections.py)


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ") if text not in (None, "") else DASH


def _dtypes(names: Sequence[str]) -> str:
    if not names:
        return "any"
    left = list(names)
    parts = []
    for group in ("all", "floating", "integral", "signed", "unsigned", "complex"):
        members = GROUPS[group]
        if all(m in left for m in members):
            parts.append(group)
            left = [n for n in left if n not in members]
    order = list(DTYPES)
    return ", ".join(parts + sorted(left, key=order.index))


def _kernel(entry) -> str:
    if entry.route == "direct" and entry.structured_impl:
        return f"`{entry.structured_impl}` (after ATen's meta)"
    if entry.route == "direct":
        return f"`{entry.impl}`"
    if entry.route == "stub":
        return f"`{entry.stub}` → `{entry.kernel}`"
    if entry.route == "fallback":
        return "host fallback"
    return "— (decomposes)"
