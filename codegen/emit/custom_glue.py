"""C++ for the custom operators of ops.yaml (codegen/model/custom_ops.py):

  csrc/generated/custom_ops.h            torch_tpu::ops::<op>(...): calls through the
                                         dispatcher (what formulas, autocast and C++
                                         users call); the declarations of the
                                         handwritten impl and meta functions
  csrc/generated/register_custom_ops.cpp the schema (TORCH_LIBRARY(tpu) with tags), the
                                         PrivateUse1 wrapper of impl, the Meta kernel,
                                         the Autograd kernel built from the formulas

Formulas are pasted under a #line directive naming ops.yaml, so a C++ error
in a formula points at the manifest line that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from ..model.custom_ops import CustomOp, names_in
from ..facts.dtypes import cpp_mask

_SAVED_AS = {  # C++ argument type -> (IValue accessor, local type)
    "double": ("toDouble()", "double"),
    "int64_t": ("toInt()", "int64_t"),
    "bool": ("toBool()", "bool"),
    "c10::string_view": ("toStringView()", "c10::string_view"),
}
RESTORE_LINE = "#line RESTORE"


@dataclass(frozen=True)
class View:
    op: CustomOp
    call_decl: str           # torch_tpu::ops::<name> signature
    call_body: List[str]
    wrapper_decl: str        # PrivateUse1 wrapper
    wrapper_body: List[str]
    autograd: List[str]      # class + wrapper lines ("" kinds use the fallback)
    autograd_kernel: str     # the function registered for Autograd, or "" for the fallback
    tags: List[str]


def _names(op: CustomOp) -> str:
    return ", ".join(a.name for a in op.arguments)


def _call(op: CustomOp) -> List[str]:
    lines = [f'static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow('
             f'"{op.qualname.split(".")[0]}", "{op.overload}").typed<{op.function_type}>();',
             f"return op.call({_names(op)});"]
    return lines


def _wrapper(op: CustomOp) -> List[str]:
    body = [f'static auto& calls = telemetry::op_counter("{op.qualname}");',
            "calls.count(telemetry::Route::kDirect);"]
    tensors = [a for a in op.arguments if a.is_tensor]
    if op.dtypes:

        body.append(f"constexpr uint64_t kDtypes = {cpp_mask(op.dtypes)};")
        body.append(f'constexpr const char* kDeclared = "{", ".join(op.dtypes)}";')
        for a in tensors:
            if not a.kwarg_only or not a.written:
                body.append(f'check_dtype("{op.qualname}", kDtypes, kDeclared, {a.name});')
    # All tensors on one device (out= included), before anything runs.
    body.append("std::optional<c10::Device> common_device;")
    for a in tensors:
        body.append(f'c10::impl::check_and_update_common_device(common_device, {a.name}, '
                    f'"{op.qualname}", "{a.name}");')
    body.append(f"const c10::OptionalDeviceGuard guard(at::device_of({tensors[0].name}));")
    call = f"torch_tpu::aten::custom::{op.impl}({_names(op)})"
    body.append(f"return {call};" if op.returns != "void" else f"{call};")
    return body


def _autograd_functional(op: CustomOp) -> List[str]:
    """A torch::autograd::Function whose backward evaluates the formulas."""
    cls = "".join(p.capitalize() for p in op.cpp_name.split("_")) + "Autograd"
    used = set()
    for d in op.derivatives:
        used |= names_in(d.formula)
    tensors = [a for a in op.arguments if a.is_tensor]
    saved_tensors = [a for a in tensors if a.name in used]
    saved_values = [a for a in op.arguments if not a.is_tensor and a.name in used]
    for a in saved_values:
        if a.cpp_type not in _SAVED_AS:
            raise ValueError(f"{op.qualname}: the formulas use '{a.name}' ({a.cpp_type}), which "
                             "the generator cannot save for backward (codegen/emit/custom_glue.py)")
    single = op.return_count == 1
    uses_result = "result" in used
    params = ", ".join(f"{a.cpp_type} {a.name}" for a in op.arguments)
    lines = [f"struct {cls} : public torch::autograd::Function<{cls}> {{",
             f"  static {op.returns} forward(torch::autograd::AutogradContext* ctx, {params}) {{",
             "    at::AutoDispatchBelowADInplaceOrView below_autograd;",
             f"    auto result = torch_tpu::ops::{op.cpp_name}({_names(op)});"]
    to_save = [(f"{a.name}.value_or(at::Tensor())" if a.optional else a.name) for a in saved_tensors]
    if uses_result:
        to_save.append("result")
    if to_save:
        lines.append(f"    ctx->save_for_backward({{{', '.join(to_save)}}});")
    for a in saved_values:
        value = f"std::string({a.name})" if a.cpp_type == "c10::string_view" else a.name
        lines.append(f'    ctx->saved_data["{a.name}"] = {value};')
    for a in tensors:
        if a.optional:
            lines.append(f'    ctx->saved_data["{a.name}.defined"] = {a.name}.has_value() && '
                         f"{a.name}->defined();")
    lines += ["    return result;", "  }", "",
              "  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx, "
              "torch::autograd::variable_list grads) {"]
    if to_save:
        lines.append("    const auto saved = ctx->get_saved_variables();")
    for k, a in enumerate(saved_tensors):
        if a.optional:
            lines.append(f"    const std::optional<at::Tensor> {a.name} = saved[{k}].defined() ? "
                         f"std::optional<at::Tensor>(saved[{k}]) : std::nullopt;")
        else:
            lines.append(f"    const at::Tensor& {a.name} = saved[{k}];")
    if uses_result:
        lines.append(f"    const at::Tensor& result = saved[{len(saved_tensors)}];")
    for a in saved_values:
        accessor, local = _SAVED_AS[a.cpp_type]
        lines.append(f'    const {local} {a.name} = ctx->saved_data["{a.name}"].{accessor};')
    if single:
        lines.append("    const at::Tensor& grad = grads[0];")
    # needs_input_grad counts the tensor inputs autograd saw: an absent
    # optional tensor has no edge.
    lines.append("    size_t edge = 0;")
    for a in tensors:
        if a.optional:
            lines.append(f'    const bool need_{a.name} = ctx->saved_data["{a.name}.defined"].toBool() '
                         f"&& ctx->needs_input_grad(edge++);")
        else:
            lines.append(f"    const bool need_{a.name} = ctx->needs_input_grad(edge++);")
    lines.append(f"    torch::autograd::variable_list out({len(op.arguments)});")
    position = {a.name: i for i, a in enumerate(op.arguments)}
    for d in op.derivatives:
        needs = [f"need_{n}" for n in d.inputs]
        lines.append(f"    if ({' || '.join(needs)}) {{")
        lines.append(f"      const std::array<bool, {len(d.inputs)}> grad_input_mask{{{', '.join(needs)}}};")
        lines.append("      (void)grad_input_mask;")
        lines.append(f'#line {d.line} "ops.yaml"')
        lines.append(f"      auto r = ({d.formula});")
        lines.append(RESTORE_LINE)
        if len(d.inputs) == 1:
            n = d.inputs[0]
            lines.append(f"      if (need_{n}) out[{position[n]}] = r;")
        else:
            for k, n in enumerate(d.inputs):
                lines.append(f"      if (need_{n}) out[{position[n]}] = std::get<{k}>(r);")
        lines.append("    }")
    lines += ["    return out;", "  }", "};", "",
              f"{op.signature('autograd_' + op.cpp_name)} {{",
              f"  return {cls}::apply({_names(op)});", "}"]
    return lines


def _autograd_out(op: CustomOp) -> List[str]:
    """out= forms: aten's rule (an input that requires grad is an error), then
    the kernel below autograd, and the out tensors' version bumped (autograd
    notices saved tensors written later)."""
    tensors = [a for a in op.arguments if a.is_tensor]
    written = [a for a in op.arguments if a.written]
    lines = [f"{op.signature('autograd_' + op.cpp_name)} {{",
             "  if (at::GradMode::is_enabled()) {"]
    for a in tensors:
        test = f"{a.name}.has_value() && {a.name}->requires_grad()" if a.optional else \
            f"{a.name}.requires_grad()"
        lines.append(f'    TORCH_CHECK(!({test}), "{op.name}(): functions with out=... arguments '
                     "don't support automatic differentiation, but one of the arguments requires "
                     'grad.");')
    lines += ["  }", "  {", "    at::AutoDispatchBelowADInplaceOrView below_autograd;",
              f"    torch_tpu::ops::{op.cpp_name}({_names(op)});", "  }"]
    for a in written:
        lines.append(f"  torch::autograd::impl::bump_version({a.name});")
    ret = written[0].name if len(written) == 1 else \
        "std::forward_as_tuple(" + ", ".join(a.name for a in written) + ")"
    lines += [f"  return {ret};", "}"]
    return lines


def view(op: CustomOp) -> View:
    if op.kind == "out":
        autograd, kernel = _autograd_out(op), f"autograd_{op.cpp_name}"
    elif op.not_differentiable:
        autograd, kernel = [], ""
    else:
        autograd, kernel = _autograd_functional(op), f"autograd_{op.cpp_name}"
    return View(op, op.signature(op.cpp_name), _call(op), op.signature(f"tpu_custom_{op.cpp_name}"),
                _wrapper(op), autograd, kernel, [f"at::Tag::{t}" for t in op.tags])


def restore_lines(text: str, path: str) -> str:
    """Replace each RESTORE_LINE marker with a #line naming the generated file again."""
    out = []
    for i, line in enumerate(text.split("\n")):
        out.append(f'#line {i + 2} "{path}"' if line.strip() == RESTORE_LINE else line)
    return "\n".join(out)
