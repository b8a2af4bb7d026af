"""What the installed torch declares: the operator schemas of torchgen's packaged
native_functions.yaml (shipped in the torch wheel), indexed by overload name."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Dict, Optional

import yaml


@dataclass(frozen=True)
class UpstreamOp:
    name: str                      # "add.Tensor"
    schema: str                    # the full func: string
    dispatch: Dict[str, str]       # dispatch key(s) -> kernel, as written upstream
    const_ref_for_mutable: bool    # use_const_ref_for_mutable_tensors
    structured_delegate: str       # "add.out" for add.Tensor, else ""
    line: int

    def has_key(self, key: str) -> bool:
        return any(key in [k.strip() for k in keys.split(",")] for keys in self.dispatch)

    @property
    def composite_implicit(self) -> bool:
        # No dispatch section (and no structured delegate) means
        # CompositeImplicitAutograd upstream.
        if not self.dispatch:
            return not self.structured_delegate
        return self.has_key("CompositeImplicitAutograd")


def native_functions_path() -> str:
    import torchgen

    return os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")


@functools.lru_cache(maxsize=1)
def upstream_ops() -> Dict[str, UpstreamOp]:
    path = native_functions_path()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        text = f.read()
    node_lines = _func_lines(text)
    ops: Dict[str, UpstreamOp] = {}
    for i, entry in enumerate(yaml.load(text, Loader=loader)):
        func = entry["func"]
        name = func.split("(", 1)[0]
        ops[name] = UpstreamOp(
            name=name,
            schema=func,
            dispatch=dict(entry.get("dispatch", {})),
            const_ref_for_mutable=bool(entry.get("use_const_ref_for_mutable_tensors", False)),
            structured_delegate=entry.get("structured_delegate", ""),
            line=node_lines[i] if i < len(node_lines) else 0,
        )
    return ops


def _func_lines(text: str):
    return [n + 1 for n, line in enumerate(text.splitlines()) if line.startswith("- func:")]


def lookup(name: str) -> Optional[UpstreamOp]:
    return upstream_ops().get(name)
