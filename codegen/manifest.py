"""ops.yaml: the operator manifest. Loading and validation against the installed
torch. Every problem becomes a ManifestError with file:line, op, key and fix."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List

from torchgen.model import OperatorName

from . import cpp, upstream
from .errors import ManifestError, did_you_mean
from .yaml_lines import LINE_KEY, load_with_lines

ROUTES = ("direct", "stub", "composite", "fallback")
# Routes this generator emits today; the others are reserved names that
# ops.yaml may not use yet (see README, "Routes").
IMPLEMENTED_ROUTES = ("direct",)
KEYS = {
    "op": "aten overload name, e.g. 'add.Tensor' (required)",
    "route": "one of " + ", ".join(ROUTES) + " (required)",
    "impl": "direct route: the C++ function (in torch_tpu::aten, or a qualified "
            "at::native:: function) registered for the op",
}
_CPP_NAME = re.compile(r"^(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*$")


@dataclass(frozen=True)
class OpEntry:
    op: str                 # "empty.memory_format"
    route: str
    impl: str               # C++ function name
    line: int
    signature: cpp.Signature

    @property
    def is_native_reuse(self) -> bool:
        """impl names an existing ATen native function instead of our own."""
        return "::" in self.impl

    @property
    def native_header(self) -> str:
        # ATen names per-operator headers after the base name without the
        # in-place underscore: set_ -> ATen/ops/set_native.h.
        base = OperatorName.parse(self.op).name.base
        return f"ATen/ops/{base}_native.h"


def load(path: str) -> List[OpEntry]:
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ManifestError(path, None, f"cannot read the manifest: {e.strerror}",
                            "run python -m codegen from the repository root, or pass --manifest")
    try:
        data = load_with_lines(text)
    except Exception as e:  # yaml.YAMLError and friends
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ManifestError(path, line, f"not valid YAML: {getattr(e, 'problem', e)}",
                            "fix the YAML syntax at this line")
    if data is None:
        return []
    if not isinstance(data, list):
        raise ManifestError(path, 1, "the manifest must be a YAML list of entries",
                            "start each entry with '- op: <name>'")
    entries: List[OpEntry] = []
    seen: Dict[str, int] = {}
    for item in data:
        entry = _entry(path, item)
        if entry.op in seen:
            raise ManifestError(path, entry.line, f"duplicate entry (first at line {seen[entry.op]})",
                                "keep one entry per operator overload", op=entry.op)
        seen[entry.op] = entry.line
        entries.append(entry)
    return sorted(entries, key=lambda e: e.op)


def _entry(path: str, item) -> OpEntry:
    if not isinstance(item, dict):
        raise ManifestError(path, None, f"each entry must be a mapping, got {item!r}",
                            "write entries as '- op: add.Tensor' followed by indented keys")
    line = item.get(LINE_KEY)
    op = item.get("op")
    for key in item:
        if key != LINE_KEY and key not in KEYS:
            raise ManifestError(path, line, f"unknown key{did_you_mean(key, KEYS)}",
                                "valid keys: " + "; ".join(f"{k}: {v}" for k, v in KEYS.items()),
                                op=op if isinstance(op, str) else None, key=key)
    if not isinstance(op, str) or not op:
        raise ManifestError(path, line, "missing or empty 'op'",
                            "name the aten overload, e.g. 'op: add.Tensor'", key="op")
    up = upstream.lookup(op)
    if up is None:
        raise ManifestError(path, line,
                            f"no such operator in torch's native_functions.yaml"
                            f"{did_you_mean(op, upstream.upstream_ops())}",
                            "use the exact 'name.overload' from "
                            "torchgen/packaged/ATen/native/native_functions.yaml "
                            "(no overload: just the name)", op=op, key="op")
    route = item.get("route")
    if route not in ROUTES:
        raise ManifestError(path, line,
                            f"route must be one of {', '.join(ROUTES)}, got {route!r}"
                            f"{did_you_mean(str(route), ROUTES)}",
                            "set 'route: direct' for a handwritten kernel", op=op, key="route")
    if route not in IMPLEMENTED_ROUTES:
        raise ManifestError(path, line, f"route '{route}' is not supported by this generator yet",
                            "use 'route: direct' with an 'impl:' function", op=op, key="route")
    if up.composite_implicit:
        raise ManifestError(path, line,
                            "is CompositeImplicitAutograd upstream: it decomposes into other "
                            "ops, and registering a kernel for it would bypass autograd",
                            "remove the entry and cover the ops it decomposes into", op=op)
    impl = item.get("impl")
    if not isinstance(impl, str) or not _CPP_NAME.match(impl):
        raise ManifestError(path, line, f"'impl' must be a C++ function name, got {impl!r}",
                            "e.g. 'impl: empty_strided' (defined in csrc/aten) or "
                            "'impl: at::native::view'", op=op, key="impl")
    try:
        sig = cpp.dispatcher_signature(up.schema, up.const_ref_for_mutable)
    except cpp.UnsupportedType as e:
        raise ManifestError(path, line, f"the generator cannot map argument type '{e}' to C++",
                            "extend codegen/cpp.py for this type", op=op)
    return OpEntry(op=op, route=route, impl=impl, line=line, signature=sig)
