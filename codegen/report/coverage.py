"""docs/coverage.md: what the manifest covers, and how far it is from the
Core ATen IR. Rendered by `python -m codegen coverage`; `python -m codegen
check` fails when the committed file is stale (check_stale).

The content depends only on the manifest, the installed torch and static facts
about it (native_functions.yaml, derivatives.yaml, the dispatcher's kernel
table, libtorch_cpu.so, OpInfo sample inputs): no timings, no test results,
no dates. Sorted everywhere, so two runs give the same bytes.

This module gathers the facts; codegen/report/sections.py lays them out
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

from ..facts import autocast, upstream
from ..proofs import closure, stub_check
from ..facts.dtypes import DTYPES, GROUPS
from .. import paths
from ..model.manifest import Route

ROOT = paths.ROOT
COVERAGE_PATH = os.path.join("docs", "coverage.md")

DASH = "—"

# Core summary categories, in table order.
DIRECT, STUB, COMPOSITE, FALLBACK, NONE = (
    "direct kernel", "stub kernel", "proven composite entry", "host fallback", "not covered")
CATEGORIES = (DIRECT, STUB, COMPOSITE, FALLBACK, NONE)
_ROUTE_CATEGORY = {"direct": DIRECT, "stub": STUB, "fallback": FALLBACK}


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


def stub_query(op: str) -> Optional[str]:
    """The native implementation a stub entry for op would reuse (the
    generator's choice, codegen/model/manifest.py), as a stub_check query."""
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
    query = stub_query(op)
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
    composite_entries = {e.op for e in entries if e.route == Route.COMPOSITE}
    family_route = {}
    for e in entries:
        if e.route != Route.COMPOSITE:
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
# Rendering helpers (the sections: codegen/report/sections.py)


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
    if entry.route == Route.DIRECT and entry.structured_impl:
        return f"`{entry.structured_impl}` (after ATen's meta)"
    if entry.route == Route.DIRECT:
        return f"`{entry.impl}`"
    if entry.route == Route.STUB:
        return f"`{entry.stub}` → `{entry.kernel}`"
    if entry.route == Route.FALLBACK:
        return "host fallback"
    return "— (decomposes)"
