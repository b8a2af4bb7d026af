"""`python -m codegen new OP`: a manifest entry and a kernel skeleton for a new
operator, chosen from what the installed torch says about it."""

from __future__ import annotations

from typing import List, Optional

from torchgen.model import SchemaKind

from ..facts import autocast, stubs, upstream
from ..model import cpp, kernel_ops, manifest
from ..errors import ManifestError, did_you_mean
from ..model.manifest import Entry, Route


def _suggest_route(up: upstream.UpstreamOp) -> str:
    if up.composite_implicit:
        return "composite"
    members = upstream.family(up) or {up.kind: up}
    for m in members.values():
        impl = upstream.lookup(m.structured_delegate) if m.structured_delegate else m
        if impl.generic_cpu_kernel:
            return "stub"
    return "direct"


def _stub_candidates(up: upstream.UpstreamOp) -> List[str]:
    declared = stubs.declared_stubs()
    exact = [s for s in (f"{up.base}_stub", f"{up.base}_kernel") if s in declared]
    return exact or sorted(s for s in declared if s.startswith(up.base + "_"))[:5]


def new_custom_entry(op: str) -> str:
    """A custom operator's entry: every key, with what to write next."""
    name = op.split("::", 1)[1]
    base = name.split(".", 1)[0]
    return "\n".join([
        f"- op: {op}",
        '  schema: "(Tensor x) -> Tensor"',
        f"  impl: {base}",
        f"  meta: {base}_meta",
        "  derivatives:",
        '    x: "grad"                  # C++ over the inputs, grad, result, grad_input_mask',
        "  autocast: none              # lower_precision_fp, fp32, promote or none",
        "  tags: [pt2_compliant_tag]",
        "  dtypes: [floating]",
        "",
        "# Define torch_tpu::aten::custom::" + base + " (the device kernel) and " + base +
        "_meta (the fake",
        "# implementation: checks and result metadata) in csrc/aten; python -m codegen",
        "# declares both in csrc/generated/custom_ops.h. Add samples and error inputs",
        f"# ({base}, {base}_errors) to tests/custom_op_samples.py and a reference to",
        "# torch_tpu/reference.py; python -m codegen test runs the generated checks.",
        ""])


def _structured_out(up):
    """The structured out= op of up's family, when ATen has a meta() for it."""
    out_op = up.structured_kernel
    if out_op is None or SchemaKind.functional not in upstream.family(out_op):
        return None
    return out_op


def new_entry(op: str, route: Optional[str], stub: Optional[str], entries: List[Entry]) -> str:
    if "::" in op:
        return new_custom_entry(op)
    up = upstream.lookup(op)
    if up is None:
        raise ManifestError("<command line>", None,
                            f"no such operator{did_you_mean(op, upstream.upstream_ops())}",
                            "use the overload name from native_functions.yaml", op=op)
    for e in entries:
        if op == e.op or op in [v.op for v in e.variants]:
            return f"# {op} is already covered by the entry for {e.op} (ops.yaml:{e.line})"
    route = route or _suggest_route(up)
    lines = [f"- op: {op}", f"  route: {route}"]
    policy = autocast.reference_policy(op)
    if policy != "none":
        lines.append(f"  autocast: {policy}   # CUDA's (ATen/autocast_mode.h)")
    notes: List[str] = []
    if route == Route.STUB:
        candidates = _stub_candidates(up)
        stub = stub or (candidates[0] if candidates else "<stub>")
        kernel = f"{up.base}_kernel"
        lines += [f"  stub: {stub}", f"  kernel: {kernel}", "  dtypes: [floating, integral, bool]"]
        signature = stubs.kernel_signature(stub, kernel) if stub in stubs.declared_stubs() else ""
        params = manifest.elementwise_params(signature) if signature else None
        if params:
            name = "".join(part.capitalize() for part in up.base.split("_"))
            lines.append(f"  elementwise: {name}")
            scalars = (f", passing its scalars ({', '.join(params[1])}) in order as the op's "
                       "ScalarArgs") if params[1] else ""
            notes.append(f"The kernel takes the TensorIterator{' and scalars' if params[1] else ''}: "
                         f"the generator writes it, running ElementwiseOp::k{name} in the "
                         f"iterator's common dtype{scalars}. Add the "
                         f"row X({name}, BASE) to TORCH_TPU_ELEMENTWISE_OPS "
                         f"({kernel_ops.ELEMENTWISE_HEADER}) and its functor and table entry in "
                         "csrc/kernels/elementwise/ (docs/adding-an-operator.md, \"An elementwise op\"); or drop "
                         "'elementwise' and write the kernel in csrc/aten")
        elif signature:
            notes.append("Define in csrc/aten (python -m codegen declares it in "
                         "csrc/generated/stub_kernels.h):\n  " +
                         stubs.kernel_signature(stub, f"torch_tpu::aten::{kernel}"))
        if len(candidates) > 1:
            notes.append("Other stubs named like the op: " + ", ".join(candidates[1:]))
    elif route == Route.DIRECT and _structured_out(up) is not None:
        out_op = _structured_out(up)
        impl = out_op.name.split(".")[0] + "_out"
        lines.append(f"  structured_impl: {impl}")
        params = ", ".join(map(str, manifest.structured_impl_params(out_op)))
        notes.append("ATen's meta() checks the arguments and sizes the outputs; the generator "
                     "registers the functional, in-place and out= overloads around it. Define "
                     "in csrc/aten, including the header python -m codegen declares it in, "
                     f"\"generated/ops/{op.replace('.', '_')}.h\":\n  void {impl}({params});")
    elif route == Route.DIRECT:
        impl = up.name.replace(".", "_")
        lines.append(f"  impl: {impl}")
        sig = cpp.dispatcher_signature(up.schema, up.const_ref_for_mutable,
                                       structured=bool(up.structured or up.structured_delegate))
        notes.append("Define in csrc/aten, including the header python -m codegen declares it "
                     f"in, \"generated/ops/{op.replace('.', '_')}.h\":\n  " + sig.declaration(impl) + ";")
    elif route == Route.COMPOSITE:
        notes.append("python -m codegen check proves that the ops it decomposes into are covered.")
    text = "\n".join(lines)
    if notes:
        text += "\n\n" + "\n".join(f"# {n}" for note in notes for n in note.splitlines())
    return text + "\n"
