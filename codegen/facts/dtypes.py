"""dtype names as ops.yaml writes them, and what C++ and Python call them."""

from __future__ import annotations

from typing import Tuple
from ..errors import did_you_mean

# name -> (at::ScalarType enumerator, torch attribute)
DTYPES = {
    "bool": ("Bool", "bool"),
    "uint8": ("Byte", "uint8"),
    "int8": ("Char", "int8"),
    "int16": ("Short", "int16"),
    "int32": ("Int", "int32"),
    "int64": ("Long", "int64"),
    "uint16": ("UInt16", "uint16"),
    "uint32": ("UInt32", "uint32"),
    "uint64": ("UInt64", "uint64"),
    "float16": ("Half", "float16"),
    "bfloat16": ("BFloat16", "bfloat16"),
    "float32": ("Float", "float32"),
    "float64": ("Double", "float64"),
    "complex64": ("ComplexFloat", "complex64"),
    "complex128": ("ComplexDouble", "complex128"),
    "complex32": ("ComplexHalf", "complex32"),
}
# Shorthands that expand to several dtypes.
GROUPS = {
    "floating": ("float16", "bfloat16", "float32", "float64"),
    "signed": ("int8", "int16", "int32", "int64"),
    "unsigned": ("uint8", "uint16", "uint32", "uint64"),
    "complex": ("complex64", "complex128"),
}
GROUPS["integral"] = GROUPS["signed"] + GROUPS["unsigned"]
GROUPS["all"] = tuple(DTYPES)


def parse_dtypes(value) -> Tuple[str, ...]:
    """A list of names and groups -> sorted unique dtype names (ValueError)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ValueError("'dtypes' must be a non-empty list")
    out = set()
    for name in value:
        if name in GROUPS:
            out.update(GROUPS[name])
        elif name in DTYPES:
            out.add(name)
        else:

            raise ValueError(f"unknown dtype '{name}'{did_you_mean(str(name), list(DTYPES) + list(GROUPS))}")
    order = list(DTYPES)
    return tuple(sorted(out, key=order.index))


def cpp_mask(names) -> str:
    return " | ".join(f"dtype_bit(at::ScalarType::{DTYPES[n][0]})" for n in names) or "0"
