"""What the installed torch declares about its operators: torchgen's packaged
native_functions.yaml (shipped in the torch wheel), indexed by overload name,
with the facts the generator needs (structured kernels, dispatch, variants).

Only torchgen's schema model (FunctionSchema) is used from torchgen; it
promises no backward compatibility beyond that."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import yaml
from torchgen.model import FunctionSchema, SchemaKind


@dataclass(frozen=True)
class UpstreamOp:
    name: str                      # "add.Tensor"
    schema: str                    # the full func: string
    dispatch: Dict[str, str]       # dispatch key(s) -> kernel, as written upstream
    const_ref_for_mutable: bool    # use_const_ref_for_mutable_tensors
    structured: bool               # has a structured kernel (meta + impl)
    structured_delegate: str       # "add.out" for add.Tensor, else ""
    structured_inherits: str       # "TensorIteratorBase" for TensorIterator metas
    ufunc: bool                    # implementation generated from ufunc_inner_loop
    precomputed: bool              # structured impl() takes precomputed values
    precomputed_spec: tuple        # upstream's lines ("indices -> DimVector sizes, DimVector strides")
    device_check: bool             # False for "device_check: NoCheck"
    device_guard: bool             # False for "device_guard: False"
    tags: tuple
    line: int

    @functools.cached_property
    def func(self) -> FunctionSchema:
        return FunctionSchema.parse(self.schema)

    @property
    def base(self) -> str:
        """Base name without the in-place underscore: add_ -> add."""
        return self.func.name.name.base

    @property
    def kind(self) -> SchemaKind:
        return self.func.kind()

    @property
    def structured_kernel(self) -> Optional["UpstreamOp"]:
        """The structured op whose meta()/impl() this op runs: itself, the
        out= op it delegates to, or None when it is not structured."""
        if self.structured:
            return self
        return lookup(self.structured_delegate) if self.structured_delegate else None

    @functools.cached_property
    def precomputed_values(self) -> Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...]:
        """The `precomputed:` lines parsed: (argument replaced, or "" when the
        values are appended; ((type, name), ...) of the values meta() returns)."""
        parsed = []
        for line in self.precomputed_spec:
            replaced, _, values = line.rpartition("->")
            parsed.append((replaced.strip(), tuple(tuple(v.split()) for v in values.split(","))))
        return tuple(parsed)

    def kernel_for(self, key: str) -> Optional[str]:
        for keys, kernel in self.dispatch.items():
            if key in [k.strip() for k in keys.split(",")]:
                return kernel
        return None

    def has_key(self, key: str) -> bool:
        return self.kernel_for(key) is not None

    @property
    def composite_implicit(self) -> bool:
        # No dispatch section (and no structured delegate) means
        # CompositeImplicitAutograd upstream.
        if not self.dispatch:
            return not self.structured_delegate
        return self.has_key("CompositeImplicitAutograd")

    @property
    def composite_explicit(self) -> bool:
        return self.has_key("CompositeExplicitAutograd") or \
            self.has_key("CompositeExplicitAutogradNonFunctional")

    @property
    def generic_cpu_kernel(self) -> bool:
        """The CPU kernel is also another device's (CUDA's, or MPS's as for
        histogram), or generated from a ufunc: it takes its device from the
        tensors, so a PrivateUse1 stub kernel is reached. CPU-only kernels
        may call their stub with a hard-coded CPU device."""
        if self.ufunc:
            return True
        cpu = self.kernel_for("CPU")
        return cpu is not None and cpu in (self.kernel_for("CUDA"), self.kernel_for("MPS"))

    @property
    def native_class(self) -> str:
        """The structured implementation class ATen/ops/<base>_native.h declares."""
        if self.ufunc:
            return f"structured_ufunc_{self.base}_CPU"
        return f"structured_{self.kernel_for('CPU')}"


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
    lines = [n + 1 for n, line in enumerate(text.splitlines()) if line.startswith("- func:")]
    ops: Dict[str, UpstreamOp] = {}
    for i, entry in enumerate(yaml.load(text, Loader=loader)):
        func = entry["func"]
        name = func.split("(", 1)[0]
        tags = entry.get("tags", ())
        ops[name] = UpstreamOp(
            name=name,
            schema=func,
            dispatch=dict(entry.get("dispatch", {})),
            const_ref_for_mutable=bool(entry.get("use_const_ref_for_mutable_tensors", False)),
            structured=bool(entry.get("structured", False)),
            structured_delegate=entry.get("structured_delegate", ""),
            structured_inherits=entry.get("structured_inherits", ""),
            ufunc="ufunc_inner_loop" in entry,
            precomputed="precomputed" in entry,
            precomputed_spec=tuple(str(x) for x in entry.get("precomputed", ())),
            device_check=entry.get("device_check", "ExactSame") != "NoCheck",
            device_guard=bool(entry.get("device_guard", True)),
            tags=tuple([tags] if isinstance(tags, str) else tags),
            line=lines[i] if i < len(lines) else 0,
        )
    return ops


def lookup(name: str) -> Optional[UpstreamOp]:
    return upstream_ops().get(name)


@functools.lru_cache(maxsize=1)
def autogen_ops() -> Dict[str, str]:
    """Overloads that torchgen generates from an entry's `autogen:` list
    (_ctc_loss.out, _ctc_loss.Tensor_out, ...): they have no `- func:` of
    their own in native_functions.yaml, so lookup() does not know them.
    Maps each to the entry it is generated from. Kept apart from
    upstream_ops(): adding them there would change every family() (an entry
    would register, and be tested on, overloads it never declared)."""
    path = native_functions_path()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        data = yaml.load(f, Loader=loader)
    out: Dict[str, str] = {}
    for entry in data:
        source = entry["func"].split("(", 1)[0]
        for name in str(entry.get("autogen", "")).split(","):
            if name.strip():
                out[name.strip()] = source
    return out


def has_kernel(name: str, key: str) -> bool:
    """The installed torch's dispatcher has a kernel for the overload under
    the dispatch key: what torchgen registered, including for autogen
    overloads (their CompositeExplicitAutograd out= kernels)."""
    import torch

    return torch._C._dispatch_has_kernel_for_dispatch_key(name if "::" in name else "aten::" + name, key)


@functools.lru_cache(maxsize=1)
def _by_base() -> Dict[str, List[UpstreamOp]]:
    index: Dict[str, List[UpstreamOp]] = {}
    for op in upstream_ops().values():
        index.setdefault(op.base, []).append(op)
    return index


def family(op: UpstreamOp) -> Dict[SchemaKind, UpstreamOp]:
    """The functional / in-place / out= variants that share op's signature
    (torchgen's NativeFunctionsGroup), keyed by kind."""
    sig = op.func.signature()
    members: Dict[SchemaKind, UpstreamOp] = {}
    for other in _by_base()[op.base]:
        if other.func.signature() == sig and other.kind in (
                SchemaKind.functional, SchemaKind.inplace, SchemaKind.out):
            members.setdefault(other.kind, other)
    return members
