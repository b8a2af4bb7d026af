"""Where an op's backward comes from in the installed torch: a
derivatives.yaml formula (its own or its functional overload's), its
decomposition, or nothing."""

from __future__ import annotations

import functools
import os
from typing import Dict

import torchgen
import yaml
from torchgen.model import SchemaKind

from . import upstream


@functools.lru_cache(maxsize=1)
def _derivatives() -> Dict[str, dict]:
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
    functional = members.get(SchemaKind.functional)
    if up.func.kind() == SchemaKind.inplace and functional is not None and functional.name in derivs:
        return _formula_kind(derivs[functional.name]).replace("(derivatives.yaml)",
                                                            f"(of {functional.name})")
    if up.func.kind() == SchemaKind.out:
        return "none (out= is not differentiable)"
    if not any(a.type.is_tensor_like() for a in up.func.arguments.flat_all):
        return "no tensor inputs"
    return "none"
