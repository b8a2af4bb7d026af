"""The C++ wrapper of each registered overload: what runs when the dispatcher
calls the op on tpu. Every wrapper counts the call (telemetry), checks the
declared dtypes, then reaches the device through its route:

  impl        the entry's handwritten function (csrc/aten)
  structured  ATen's structured class: meta() computes and allocates the
              outputs, impl() calls the DispatchStub, which reaches the tpu
              stub kernel
  structured_impl  ATen's meta() class as above, then the entry's
              handwritten structured_impl fills the outputs
  native      ATen's device-generic native function, which calls the stub
  fallback    registered as the boxed host fallback (no wrapper)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from ..facts.dtypes import DTYPES, cpp_mask
from ..model.manifest import (Entry, Kind, Route, Variant, Via, is_tensor, structured_impl_params,
                              tensor_inputs)

ROUTE_ENUM = {Route.DIRECT: "kDirect", Route.STUB: "kStub", Route.FALLBACK: "kFallback"}


@dataclass(frozen=True)
class Wrapper:
    op: str              # overload registered
    name: str            # C++ function name of the wrapper ("" for the fallback)
    declaration: str     # return type, name and parameters
    body: List[str]      # statements


def cpp_name(op: str) -> str:
    return "tpu_" + op.replace(".", "_")


def _param_names(v: Variant) -> List[str]:
    return v.signature.names()


def wrapper(entry: Entry, v: Variant) -> Wrapper:
    if v.via == Via.FALLBACK:
        return Wrapper(v.op, "", "", [])
    name = cpp_name(v.op)
    body = [f'static auto& calls = telemetry::op_counter("aten::{v.op}");',
            f"calls.count(telemetry::Route::{ROUTE_ENUM[entry.route]});",
            # names the op in the errors its kernels find later (device/launch_origin.h)
            f'const OpScope op_scope("aten::{v.op}");']
    func = v.upstream.func
    # Inputs only: an out= tensor's dtype is the op's own business (ATen
    # casts into it or rejects it with PyTorch's error, as on CPU). An input
    # declared 'all' (or an entry without dtypes) is not checked.
    checks = []
    for arg in tensor_inputs(func):
        allowed = entry.input_dtypes(arg)
        if allowed and set(allowed) != set(DTYPES):
            checks.append(f'check_dtype("{v.op}", {cpp_mask(allowed)}, "{", ".join(allowed)}", {arg});')
    if entry.precheck:  # CPU's own argument check, before "no kernel for this dtype"
        checks.insert(0, f"torch_tpu::aten::{entry.precheck}({', '.join(entry.precheck_args)});")
    guard = [] if entry.device_check_reason else _guard(v)
    # A structured op checks its dtypes after ATen's meta(): CPU raises
    # meta's errors (shapes, "does not support bool") before it finds no
    # kernel for a dtype, so tpu raises the same error type for the same call.
    if v.via == Via.IMPL:
        body += checks + guard + _call(v, f"torch_tpu::aten::{entry.impl}" if "::" not in entry.impl else entry.impl)
    elif v.via == Via.NATIVE:
        body += checks + guard + _call(v, f"at::native::{v.native}")
    elif v.via == Via.STRUCTURED_IMPL:
        body += guard + _structured(v, f"torch_tpu::aten::{entry.structured_impl}", checks)
    else:
        body += guard + _structured(v, "op.impl", checks)
    return Wrapper(v.op, name, v.signature.declaration(name), body)


def structured_impl_declaration(entry: Entry) -> str:
    """The declaration a structured_impl function must match (generated/ops/<op>.h)."""
    params = ", ".join(map(str, structured_impl_params(entry.variants[0].upstream.structured_kernel)))
    return f"void {entry.structured_impl}({params})"


def _call(v: Variant, function: str) -> List[str]:
    call = f"{function}({', '.join(_param_names(v))})"
    return [f"return {call};" if v.signature.returns != "void" else f"{call};"]


def _guard(v: Variant) -> List[str]:
    """Device checks and guard as torchgen emits them for CUDA: only where the
    upstream op asks for them (device_check / device_guard). The checks cover
    every Tensor and Tensor? argument; the guard takes its device from self,
    else the first out=, else the first tensor argument (torchgen's order)."""
    func = v.upstream.func
    tensors = [a.name for a in func.arguments.flat_all if is_tensor(a.type)]
    lines = []
    if v.upstream.device_check and len(tensors) > 1:
        lines.append("std::optional<c10::Device> common_device;")
        lines += [f'c10::impl::check_and_update_common_device(common_device, {t}, "{cpp_name(v.op)}", "{t}");'
                  for t in tensors]
    candidates = ([func.arguments.self_arg.argument] if func.arguments.self_arg else []) + \
        list(func.arguments.out) + list(func.arguments.flat_positional)
    device_of = next((a.name for a in candidates if is_tensor(a.type)), None)
    if v.upstream.device_guard and device_of:
        lines.append(f"const c10::OptionalDeviceGuard guard(at::device_of({device_of}));")
    return lines


def _precomputed_impl_args(v: Variant, args: List[str]) -> List[str]:
    """impl()'s arguments when the structured kernel has 'precomputed'
    values: meta() returns them (`precompute`), each replacing the argument
    named before '->' in place; names without '->' are appended (torchgen's
    rule)."""
    out = list(args)
    appended = []
    for replaced, values in v.upstream.structured_kernel.precomputed_values:
        names = [f"precompute.{name}" for _, name in values]
        if replaced:
            i = out.index(replaced)
            out[i:i + 1] = names
        else:
            appended += names
    return out + appended


def _structured_arg(a) -> str:
    """A structured kernel takes `Tensor?` and `Scalar?` as
    at::OptionalTensorRef / at::OptionalScalarRef (as torchgen converts them)."""
    if str(a.type) == "Tensor?":
        return (f"(({a.name}.has_value() && (*{a.name}).defined()) ? at::OptionalTensorRef(*{a.name}) "
                f": at::OptionalTensorRef())")
    if str(a.type) == "Scalar?":
        return f"({a.name}.has_value() ? at::OptionalScalarRef(&{a.name}.value()) : at::OptionalScalarRef())"
    return a.name


def _meta_is_iterator(v: Variant) -> bool:
    return v.upstream.structured_kernel.structured_inherits == "TensorIteratorBase"


def _structured(v: Variant, impl: str, checks: List[str]) -> List[str]:
    """ATen's structured class computes (meta) and allocates or checks the
    outputs; `checks` run next, then `impl` (the class's own impl() or the
    entry's structured_impl) fills them."""
    func = v.upstream.func
    outs = [a.name for a in func.arguments.out]
    names = [a.name for a in func.arguments.flat_non_out]
    converted = {a.name: _structured_arg(a) for a in func.arguments.flat_non_out}
    args = [converted[n] for n in names]
    impl_names = _precomputed_impl_args(v, names)
    impl_args = [converted.get(n, n) for n in impl_names]
    meta = "auto precompute = op.meta" if impl_names != names else "op.meta"
    if impl != "op.impl" and _meta_is_iterator(v):
        impl_args = ["op"] + impl_args  # the structured_impl's iterator
    n_out = len(func.returns)
    cls = v.native if "::" in v.native else f"at::native::{v.native}"
    if v.kind == Kind.FUNCTIONAL:
        outputs = [f"op.output({i})" for i in range(n_out)]
        lines = [f"structured::Functional<{cls}, {n_out}> op;",
                 f"{meta}({', '.join(args)});", *checks,
                 f"{impl}({', '.join(impl_args + outputs)});"]
        moved = [f"std::move(op.outputs_[{i}])" for i in range(n_out)]
        lines.append(f"return {moved[0]};" if n_out == 1 else
                     f"return ::std::make_tuple({', '.join(moved)});")
        return lines
    if v.kind == Kind.INPLACE:
        self_name = args[0]
        return [f"structured::Inplace<{cls}> op({self_name});",
                f"{meta}({', '.join(args)});", *checks,
                f"{impl}({', '.join(impl_args + ['op.output(0)'])});",
                "op.finish();",
                f"return {self_name};"]
    outputs = [f"op.output({i})" for i in range(len(outs))]
    lines = [f"structured::Out<{cls}, {len(outs)}> op({', '.join(outs)});",
             f"{meta}({', '.join(args)});", *checks,
             f"{impl}({', '.join(impl_args + outputs)});",
             "op.finish();"]
    lines.append(f"return {outs[0]};" if len(outs) == 1 else
                 f"return ::std::forward_as_tuple({', '.join(outs)});")
    return lines
