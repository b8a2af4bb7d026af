"""The DispatchStubs the installed torch declares (DECLARE_DISPATCH in
torch/include/ATen/native/**/*.h): stub name -> the header to include."""

from __future__ import annotations

import functools
import os
import re
from typing import Dict

_DECLARE = re.compile(r"^\s*DECLARE_DISPATCH\(\s*(.+?)\s*,\s*(\w+)\s*\)[ \t]*$", re.S | re.M)


def include_dir() -> str:
    import torch.utils  # header lookup only; python -m codegen disables backend autoload

    return os.path.join(os.path.dirname(os.path.dirname(torch.utils.__file__)), "include")


_USING = re.compile(r"using\s+(\w+)\s*=\s*([^;]+);")


@functools.lru_cache(maxsize=1)
def declared_stubs() -> Dict[str, str]:
    """stub name -> header (relative to torch/include)."""
    return {name: header for name, (header, _) in _declarations().items()}


def kernel_signature(stub: str, kernel: str) -> str:
    """The C++ declaration a kernel for `stub` must have, resolved from the
    header's `using` alias when there is one."""
    header, fn_type = _declarations()[stub]
    fn_type = " ".join(_aliases(header).get(fn_type, fn_type).split())
    m = re.match(r"^(.*?)\(\s*\*\s*\)\s*\((.*)\)$", fn_type, re.S)
    if not m:
        return f"// {kernel}: must have the type {fn_type} ({header})"
    ret, params = m.group(1).strip(), m.group(2).strip()
    for short in ("TensorIteratorBase", "TensorIterator", "Tensor", "TensorBase", "Scalar",
                  "IntArrayRef", "Generator"):
        params = re.sub(rf"(?<![\w:]){short}\b", f"at::{short}", params)
    return f"{ret} {kernel}({params});"


@functools.lru_cache(maxsize=None)
def _aliases(header: str) -> Dict[str, str]:
    """The `using` aliases a stub header declares (its FnPtr types)."""
    with open(os.path.join(include_dir(), header), errors="replace") as f:
        return dict(_USING.findall(f.read()))


@functools.lru_cache(maxsize=1)
def _declarations():
    root = include_dir()
    native = os.path.join(root, "ATen", "native")
    stubs = {}
    for folder, _, files in sorted(os.walk(native)):
        for name in sorted(files):
            if not name.endswith(".h"):
                continue
            path = os.path.join(folder, name)
            with open(path, errors="replace") as f:
                text = f.read()
            if "DECLARE_DISPATCH" not in text:
                continue
            for fn_type, stub in _DECLARE.findall(text):
                stubs.setdefault(stub, (os.path.relpath(path, root), fn_type.strip()))
    return stubs
