"""The device kernel library's op lists, as ops.yaml may name them: the
elementwise ops are the X rows of TORCH_TPU_ELEMENTWISE_OPS in
csrc/kernels/elementwise/elementwise.h (one list for the enum, the count,
the externs and the per-ISA tables; this reads the same list)."""

from __future__ import annotations

import functools
import os
import re
from typing import Tuple

from .. import paths

ELEMENTWISE_HEADER = os.path.join("csrc", "kernels", "elementwise", "elementwise.h")
_ROW = re.compile(r"^\s*X\((\w+),\s*\w+\)")


@functools.lru_cache(maxsize=1)
def elementwise_ops() -> Tuple[str, ...]:
    """The names of ElementwiseOp's enumerators, without their k prefix."""
    with open(os.path.join(paths.ROOT, ELEMENTWISE_HEADER)) as f:
        text = f.read()
    body = text.split("#define TORCH_TPU_ELEMENTWISE_OPS(X)", 1)[1]
    names = []
    for line in body.splitlines():
        if not line.rstrip().endswith("\\") and not _ROW.match(line):
            break
        m = _ROW.match(line)
        if m:
            names.append(m.group(1))
    return tuple(names)
