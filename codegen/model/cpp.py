"""C++ dispatcher signatures for operator schemas (the types a kernel registered
with m.impl must take). SymInt arguments map to their concrete forms
(int64_t, at::IntArrayRef): the dispatcher unpacks symbolic values for kernels
that take concrete ones, and a real device always has concrete sizes. A
SymInt return stays c10::SymInt: the dispatcher converts a kernel's
arguments, not what it returns.

Only torchgen's schema model is used (FunctionSchema, Argument, types);
the mapping itself is ours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from torchgen.model import (
    Argument,
    BaseTy,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    Return,
    Type,
)

_BASE = {
    BaseTy.int: "int64_t",
    BaseTy.SymInt: "int64_t",
    BaseTy.float: "double",
    BaseTy.bool: "bool",
    BaseTy.str: "c10::string_view",
    BaseTy.ScalarType: "at::ScalarType",
    BaseTy.Layout: "at::Layout",
    BaseTy.Device: "at::Device",
    BaseTy.MemoryFormat: "at::MemoryFormat",
    BaseTy.Storage: "at::Storage",
    BaseTy.Stream: "at::Stream",
    BaseTy.DeviceIndex: "at::DeviceIndex",
    BaseTy.SymBool: "bool",
    BaseTy.Generator: "at::Generator",
}


class UnsupportedType(Exception):
    pass


def _value_type(t: Type, structured: bool = False) -> str:
    """Type of an argument passed by value or const reference (no mutation).
    `structured`: the op belongs to a structured group, whose Tensor[]
    arguments the dispatcher passes as ITensorListRef (torchgen's
    structured_type_override)."""
    if isinstance(t, BaseType):
        if t.name == BaseTy.Tensor:
            return "const at::Tensor &"
        if t.name == BaseTy.Scalar:
            return "const at::Scalar &"
        if t.name in _BASE:
            return _BASE[t.name]
    if isinstance(t, OptionalType):
        e = t.elem
        if isinstance(e, BaseType) and e.name == BaseTy.Tensor:
            return "const ::std::optional<at::Tensor> &"
        if isinstance(e, BaseType) and e.name == BaseTy.Scalar:
            return "const ::std::optional<at::Scalar> &"
        if isinstance(e, BaseType) and e.name in _BASE:
            return f"::std::optional<{_BASE[e.name]}>"
        if isinstance(e, ListType) and isinstance(e.elem, BaseType) and e.elem.name in (
                BaseTy.int, BaseTy.SymInt):
            return "at::OptionalIntArrayRef"
        if isinstance(e, ListType) and isinstance(e.elem, BaseType) and e.elem.name == BaseTy.float:
            return "::std::optional<at::ArrayRef<double>>"  # histogram's range, as ATen declares it
    if isinstance(t, ListType):
        e = t.elem
        if isinstance(e, BaseType):
            if e.name == BaseTy.Tensor:
                return "const at::ITensorListRef &" if structured else "at::TensorList"
            if e.name in (BaseTy.int, BaseTy.SymInt):
                return "at::IntArrayRef"
            if e.name == BaseTy.float:
                return "at::ArrayRef<double>"
            if e.name == BaseTy.Scalar:
                return "at::ArrayRef<at::Scalar>"
            if e.name == BaseTy.bool and t.size is not None:
                return f"::std::array<bool,{t.size}>"
        if isinstance(e, OptionalType) and isinstance(e.elem, BaseType) and \
                e.elem.name == BaseTy.Tensor:
            return "const c10::List<::std::optional<at::Tensor>> &"
    raise UnsupportedType(str(t))


def argument_type(a: Argument, const_ref_for_mutable: bool, structured: bool = False) -> str:
    is_tensor = isinstance(a.type, BaseType) and a.type.name == BaseTy.Tensor
    if is_tensor and a.annotation is not None and a.annotation.is_write:
        return "const at::Tensor &" if const_ref_for_mutable else "at::Tensor &"
    return _value_type(a.type, structured)


def _return_type(r: Return, const_ref_for_mutable: bool) -> str:
    is_tensor = isinstance(r.type, BaseType) and r.type.name == BaseTy.Tensor
    if is_tensor:
        if r.annotation is not None and r.annotation.is_write:
            return "const at::Tensor &" if const_ref_for_mutable else "at::Tensor &"
        return "at::Tensor"
    if isinstance(r.type, BaseType) and r.type.name == BaseTy.Scalar:
        return "at::Scalar"
    if isinstance(r.type, ListType) and isinstance(r.type.elem, BaseType) and \
            r.type.elem.name == BaseTy.Tensor:
        return "::std::vector<at::Tensor>"
    if isinstance(r.type, BaseType) and r.type.name == BaseTy.SymInt:
        return "c10::SymInt"
    if isinstance(r.type, BaseType) and r.type.name in _BASE:
        return _BASE[r.type.name]
    raise UnsupportedType(str(r.type))


@dataclass(frozen=True)
class Binding:
    """One C++ parameter."""
    type: str           # "const at::Tensor &"
    name: str           # "self"

    def __str__(self) -> str:
        return f"{self.type} {self.name}"


@dataclass(frozen=True)
class Signature:
    returns: str
    params: List[Binding]

    def declaration(self, name: str) -> str:
        return f"{self.returns} {name}({', '.join(map(str, self.params))})"

    def names(self) -> List[str]:
        return [p.name for p in self.params]


def dispatcher_signature(schema: str, const_ref_for_mutable: bool, structured: bool = False) -> Signature:
    """Raises UnsupportedType for argument types this generator cannot map."""
    func = FunctionSchema.parse(schema)
    return signature_of(func.arguments.flat_all, func.returns, const_ref_for_mutable, structured)


def signature_of(arguments, returns, const_ref_for_mutable: bool, structured: bool = False) -> Signature:
    """The signature for parsed arguments and returns (custom operators:
    their schemas need not follow native_functions.yaml's naming rules)."""
    params = [Binding(argument_type(a, const_ref_for_mutable, structured), a.name) for a in arguments]
    rets = [_return_type(r, const_ref_for_mutable) for r in returns]
    if not rets:
        returns = "void"
    elif len(rets) == 1:
        returns = rets[0]
    else:
        returns = "::std::tuple<" + ",".join(rets) + ">"
    return Signature(returns, params)
