"""Renders the generated sources from the manifest. Output is deterministic
(sorted, no timestamps) and a file is rewritten only when its bytes change,
so ninja recompiles only what really changed. Registrations are sharded by a
stable hash of the entry's op, so editing one entry recompiles one shard."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Tuple

import jinja2

from ..facts import autocast, stubs
from . import custom_glue, output
from .composite_out_checks import composite_out_overloads
from ..model.manifest import Entry, Via, elementwise_params
from .wrappers import Wrapper, structured_impl_declaration, wrapper

GENERATED_DIR = os.path.join("csrc", "generated")
# Eight shards: after editing one entry, one shard recompiles (~12 s with
# the precompiled header instead of ~27 s for a quarter of the wrappers); a
# clean build pays ~3 s per extra shard.
NUM_SHARDS = 8
_TEMPLATES = os.path.join(os.path.dirname(__file__), "templates")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(_TEMPLATES),
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True)


def shard_of(entry: Entry) -> int:
    return output.shard_of(entry.op, NUM_SHARDS)


@dataclass(frozen=True)
class _EntryView:
    op: str
    route: str
    stub: str
    kernel: str
    wrappers: List[Wrapper]
    replaces_decomposition: bool


@dataclass(frozen=True)
class _Declaration:
    op: str
    declaration: str


def _headers(entries: List[Entry]) -> List[str]:
    headers = set()
    for e in entries:
        if e.stub_header:
            headers.add(e.stub_header)
        headers.update(h for _, h, _ in e.also_stubs)
        for v in e.variants:
            if v.via in (Via.STRUCTURED, Via.NATIVE):
                headers.add(f"ATen/ops/{v.upstream.base}_native.h")
            if v.via == Via.STRUCTURED_IMPL:
                headers.add(f"ATen/ops/{v.upstream.base}_meta.h")
            if v.via == Via.IMPL and "::" in e.impl:
                headers.add(f"ATen/ops/{v.upstream.base}_native.h")
    return sorted(headers)


@dataclass(frozen=True)
class _StubKernel:
    stub: str
    header: str
    kernel: str
    signature: str     # the stub's function type, spelled out for the reader


def stub_kernels(entries: List[Entry]) -> List[_StubKernel]:
    """One declaration per (stub, kernel) the manifest registers (manifest.py
    checks that a stub has one kernel and a kernel one stub)."""
    pairs = {(stub, header, kernel) for e in entries
             for stub, header, kernel in ([(e.stub, e.stub_header, e.kernel)] if e.stub else [])
             + list(e.also_stubs)}
    return [_StubKernel(s, h, k, stubs.kernel_signature(s, k))
            for s, h, k in sorted(pairs, key=lambda p: p[2])]


@dataclass(frozen=True)
class _ElementwiseKernel:
    op: str
    stub: str
    kernel: str
    iterator: str           # the stub's iterator parameter type
    scalars: Tuple[str, ...]  # the stub's scalar parameter types, passed on in order
    elementwise: str        # ElementwiseOp::k<elementwise>


def elementwise_kernels(entries: List[Entry]) -> List[_ElementwiseKernel]:
    """The stub kernels the generator defines (entries with `elementwise:`)."""
    first = {}  # kernel -> the first entry (by op) naming it: shared kernels are defined once
    for e in sorted(entries, key=lambda e: e.op):
        if e.elementwise:
            first.setdefault(e.kernel, e)
    return [_ElementwiseKernel(e.op, e.stub, e.kernel,
                               *elementwise_params(stubs.kernel_signature(e.stub, e.kernel)),
                               e.elementwise) for _, e in sorted(first.items())]


def declarations_of(e: Entry) -> List[_Declaration]:
    """The handwritten functions an entry names: its impl in each variant's
    dispatcher signature, or its structured_impl in the signature of ATen's
    structured impl()."""
    pre = []
    if e.precheck:
        params = ", ".join(f"{t} {a}" for t, a in zip(e.precheck_types, e.precheck_args))
        pre = [_Declaration(f"{e.op} precheck: before the dtype checks", f"void {e.precheck}({params})")]
    if e.structured_impl:
        return pre + [_Declaration(f"{e.op} family: structured impl after ATen's meta()",
                                   structured_impl_declaration(e))]
    if e.impl and "::" not in e.impl:
        return pre + [_Declaration(v.op, v.signature.declaration(e.impl)) for v in e.variants]
    return pre


def op_header(e: Entry) -> str:
    """csrc/generated/ops/<op>.h: the declarations of one entry."""
    return os.path.join(GENERATED_DIR, "ops", e.op.replace(".", "_") + ".h")


def render(entries: List[Entry], customs=(), excluded=()) -> Dict[str, str]:
    """Maps repository-relative path -> file content. customs: the custom
    operators (codegen/model/custom_ops.py); excluded: the overloads ops.yaml
    declares with `exclude:`."""
    env = _environment()
    entries = sorted(entries, key=lambda e: e.op)
    files: Dict[str, str] = {}
    shard_template = env.get_template("register_shard.cpp.j2")
    for k in range(NUM_SHARDS):
        mine = [e for e in entries if shard_of(e) == k]
        views = [_EntryView(e.op, e.route, e.stub, e.kernel, [wrapper(e, v) for v in e.variants],
                            bool(e.replaces_decomposition)) for e in mine]
        files[os.path.join(GENERATED_DIR, f"register_shard_{k}.cpp")] = shard_template.render(
            shard=k, num_shards=NUM_SHARDS, entries=views,
            wrappers=[w for v in views for w in v.wrappers if w.name],
            headers=_headers(mine), has_stubs=any(e.stub or e.also_stubs for e in mine),
            op_headers=[os.path.relpath(op_header(e), "csrc") for e in mine if declarations_of(e)],
            also_stubs={e.op: e.also_stubs for e in mine})
    op_template = env.get_template("op_decl.h.j2")
    for e in entries:
        declarations = declarations_of(e)
        if declarations:
            files[op_header(e)] = op_template.render(op=e.op, declarations=declarations)
    kernels = stub_kernels(entries)
    files[os.path.join(GENERATED_DIR, "stub_kernels.h")] = env.get_template(
        "stub_kernels.h.j2").render(kernels=kernels, headers=sorted({k.header for k in kernels}))
    files[os.path.join(GENERATED_DIR, "elementwise_kernels.cpp")] = env.get_template(
        "elementwise_kernels.cpp.j2").render(kernels=elementwise_kernels(entries))
    files[os.path.join(GENERATED_DIR, "register_aten.cpp")] = env.get_template(
        "register_aten.cpp.j2").render(num_shards=NUM_SHARDS, composite_outs=composite_out_overloads(
            [v.op for e in entries for v in e.variants], excluded))
    customs = sorted(customs, key=lambda c: c.qualname)
    files[os.path.join(GENERATED_DIR, "register_autocast.cpp")] = env.get_template(
        "register_autocast.cpp.j2").render(aten=_autocast_rows(entries),
                                           custom=_custom_autocast_rows(customs),
                                           custom_includes=bool(customs))
    views = [custom_glue.view(c) for c in customs]
    files[os.path.join(GENERATED_DIR, "custom_ops.h")] = env.get_template(
        "custom_ops.h.j2").render(views=views)
    path = os.path.join(GENERATED_DIR, "register_custom_ops.cpp")
    files[path] = custom_glue.restore_lines(
        env.get_template("register_custom_ops.cpp.j2").render(views=views), path)
    return files


@dataclass(frozen=True)
class _CustomAutocastRow:
    op: str
    name: str
    line: int
    policy: str
    register_signature: str
    redispatch_signature: str
    function: str


def _custom_autocast_rows(customs) -> List[_CustomAutocastRow]:
    rows = []
    for c in customs:
        if c.autocast in ("", "none"):
            continue
        fn = f"torch_tpu::ops::{c.cpp_name}"
        rows.append(_CustomAutocastRow(c.qualname, c.schema_name, c.line, c.autocast,
                                       f"decltype({fn})", f"decltype({fn})", fn))
    return rows


@dataclass(frozen=True)
class _AutocastRow:
    op: str
    line: int
    policy: str
    register_signature: str
    redispatch_signature: str
    function: str


def _autocast_rows(entries: List[Entry]) -> List[_AutocastRow]:
    """One WrapFunction registration per entry with a policy. The redispatch
    target is the op's own at::_ops::<op>::call (the dispatcher entry), except
    for fp32_append_dtype, which redispatches to the overload ATen's
    AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE names."""
    rows = []
    for e in entries:
        if e.autocast in ("", "none"):
            continue
        if e.autocast == "fp32_append_dtype":
            r = autocast.reference().redispatch[e.op]
            rows.append(_AutocastRow(e.op, e.line or 0, e.autocast, r.register_signature,
                                     r.redispatch_signature, r.function))
            continue
        fn = "at::_ops::" + e.op.replace(".", "_") + "::call"
        rows.append(_AutocastRow(e.op, e.line or 0, e.autocast, f"decltype({fn})",
                                 f"decltype({fn})", fn))
    return rows


def write(root: str, files: Dict[str, str], check: bool = False) -> List[str]:
    """Writes changed files under csrc/generated/ and removes stale ones (with
    check, only reports them). Returns the repository-relative paths that differ."""
    return output.write_tree(root, GENERATED_DIR, files, check=check)
