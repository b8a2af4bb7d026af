"""docs/coverage.md as one document: the facts gathered (coverage.py, the
proofs, the generated tests' plans) laid out by sections.py. Rendered by
`python -m codegen coverage`; `python -m codegen check` fails when the
committed file is stale (check_stale)."""

from __future__ import annotations

import os
from typing import Dict, List, Optional

from .. import paths
from ..model import manifest
from ..proofs import closure, stub_check
from ..testgen import contracts, module_tests, op_tests
from . import coverage, device_generic_tests, optim_tests, sections

ROOT = paths.ROOT


def render(entries, proofs: Optional[Dict[str, "closure.Proof"]] = None,
           findings: Optional[List["stub_check.Finding"]] = None,
           analyses: Optional[Dict[str, "stub_check.Analysis"]] = None,
           tests: Optional[Dict[str, "op_tests.Plan"]] = None,
           cache_dir: Optional[str] = closure.CACHE_DIR, customs=(), declared=()) -> str:
    """The whole of docs/coverage.md (customs: the custom operators; declared:
    the overloads without an entry, manifest.Declared). Pieces not passed in are computed
    (proofs: closure.prove over the composite entries and the core composites
    without an entry; findings/analyses: stub_check; tests: test_plans).
    Raises closure.ProofUnavailable if the closure cannot be traced."""
    import torch

    entries = sorted(entries, key=lambda e: e.op)
    registered = {v.op: e.route for e in entries for v in e.variants}
    core = coverage.core_overloads()
    if proofs is None:
        proofs = closure.prove(entries, extra_ops=coverage.core_candidates(core, registered),
                               cache_dir=cache_dir)
    skip_reason = stub_check.unavailable_reason()
    if findings is None:
        findings = stub_check.check(entries, cache_dir)
    rows = coverage.core_rows(entries, core, proofs)
    if analyses is None:
        analyses = {}
        if skip_reason is None:
            queries = [q for r in rows if r.category == coverage.NONE for q in [coverage.stub_query(r.op)] if q]
            analyses = stub_check.analyse(queries, cache_dir)
    if tests is None:
        tests = test_plans(entries)
    outs, promos = contracts.plans(list(entries))
    return sections.document(sections.Facts(
        torch_version=torch.__version__, entries=entries,
        customs=sorted(customs, key=lambda c: c.qualname), proofs=proofs, findings=findings,
        analyses=analyses, skip_reason=skip_reason, plans=tests, outs=outs, promos=promos,
        core=rows, modules=module_tests.counts(), declared=tuple(sorted(declared, key=lambda d: d.op)),
        optim_xfails=optim_tests.xfails(), device_generic=device_generic_tests.tables()))


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
        entries = manifest.load(os.path.join(ROOT, "ops.yaml"))
        kwargs.setdefault("customs", manifest.load_custom(os.path.join(ROOT, "ops.yaml")))
        kwargs.setdefault("declared", manifest.load_declared(os.path.join(ROOT, "ops.yaml")))
    try:
        with open(path) as f:
            current = f.read()
    except OSError:
        return True
    return current != render(entries, **kwargs)


def test_plans(entries) -> Dict[str, "op_tests.Plan"]:
    """op -> the generated tests' plan for it (codegen/testgen/op_tests.py: the
    cases, and why an entry has none)."""
    return {p.entry.op: p for p in op_tests.plans(list(entries))}
