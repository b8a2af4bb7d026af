"""The out= overloads that reach tpu through ATen's CompositeExplicitAutograd
kernel: no entry registers them (math_addr_out for addr.out, torchgen's
autogen out= kernels), and that kernel copies the result into `out` wherever
it lives, so an out on the CPU or on another tpu got through. Each is
registered with a kernel that checks the devices first
(csrc/aten/device/composite_out_check.cpp), as torchgen's wrappers check
CUDA's kernels."""

from __future__ import annotations

from typing import Iterable, List

from ..facts import upstream


# Copies between devices by definition: their tensors may differ in device.
CROSS_DEVICE = ("_copy_from.out", "_copy_from_and_resize.out", "_pin_memory.out")


def _tensor_args_of_out_overload(name: str) -> int:
    """How many Tensor-like arguments the overload has, out= included; 0 if
    it is not an out= overload (or this torch has no such schema)."""
    import torch

    base, _, overload = name.partition(".")
    try:
        schema = torch._C._get_schema("aten::" + base, overload)
    except RuntimeError:
        return 0
    if not any(a.is_out for a in schema.arguments):
        return 0
    return sum(1 for a in schema.arguments if "Tensor" in str(a.type))


def _device_check(name: str) -> bool:
    """upstream's device_check (an autogen overload: its source entry's)."""
    op = upstream.lookup(name) or upstream.lookup(upstream.autogen_ops().get(name, ""))
    return op is None or op.device_check


def composite_out_overloads(registered: Iterable[str], excluded: Iterable[str]) -> List[str]:
    """Sorted overload names: out= overloads with a CompositeExplicitAutograd
    kernel and no CompositeImplicitAutograd one, that no entry registers,
    that are not excluded, whose upstream checks devices, with two or more
    tensor arguments (out included)."""
    skip = set(registered) | set(excluded) | set(CROSS_DEVICE)
    names = set(upstream.upstream_ops()) | set(upstream.autogen_ops())
    out = []
    for name in sorted(names - skip):
        if not _device_check(name) or _tensor_args_of_out_overload(name) < 2:
            continue
        if upstream.has_kernel(name, "CompositeExplicitAutograd") and \
                not upstream.has_kernel(name, "CompositeImplicitAutograd"):
            out.append(name)
    return out
