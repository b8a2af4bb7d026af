"""The DispatchStubs the installed torch declares (DECLARE_DISPATCH in
torch/include/ATen/native/**/*.h): stub name -> the header to include."""

from __future__ import annotations

import functools
import os
import re
from typing import Dict

_DECLARE = re.compile(r"^\s*DECLARE_DISPATCH\(\s*(.+?)\s*,\s*(\w+)\s*\)", re.S | re.M)


def include_dir() -> str:
    import torch.utils  # header lookup only; python -m codegen disables backend autoload

    return os.path.join(os.path.dirname(os.path.dirname(torch.utils.__file__)), "include")


@functools.lru_cache(maxsize=1)
def declared_stubs() -> Dict[str, str]:
    root = include_dir()
    native = os.path.join(root, "ATen", "native")
    stubs: Dict[str, str] = {}
    for folder, _, files in sorted(os.walk(native)):
        for name in sorted(files):
            if not name.endswith(".h"):
                continue
            path = os.path.join(folder, name)
            with open(path, errors="replace") as f:
                text = f.read()
            if "DECLARE_DISPATCH" not in text:
                continue
            for _, stub in _DECLARE.findall(text):
                stubs.setdefault(stub, os.path.relpath(path, root))
    return stubs
