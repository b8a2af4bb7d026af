"""The known failures of the device-generic tests (tests/test_device_generic_ops.py:
TestCommon-style over op_db; tests/test_device_generic_modules.py: TestModule-
and TestOptim-style over module_db and optim_db; all through PyTorch's
instantiate_device_type_tests) for docs/coverage.md: their tables, read
statically (ast, no import: the report runs without a built extension)."""

from __future__ import annotations

import ast
import os
from typing import Dict, List, NamedTuple, Optional

from .. import paths

OPS_PATH = os.path.join("tests", "test_device_generic_ops.py")
MODULES_PATH = os.path.join("tests", "test_device_generic_modules.py")


class Xfail(NamedTuple):
    file: str
    test: str
    name: str     # OpInfo / ModuleInfo / OptimizerInfo name
    dtype: str    # a dtype name, or "*"
    raises: str
    reason: str


class DtypeGap(NamedTuple):
    name: str     # OpInfo name
    dtypes: str   # space-separated
    reason: str


class Tables(NamedTuple):
    xfails: List[Xfail]
    gaps: List[DtypeGap]


def _tables(path: str, names) -> Optional[Dict[str, object]]:
    try:
        with open(path) as f:
            tree = ast.parse(f.read(), filename=path)
    except FileNotFoundError:
        return None
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id in names:
                    found[t.id] = ast.literal_eval(node.value)
    missing = [n for n in names if n not in found]
    if missing:
        raise ValueError(f"{os.path.relpath(path, paths.ROOT)}: no {', '.join(missing)} table "
                         "(a dict literal at module level)")
    return found


def tables(root: str = paths.ROOT) -> Optional[Tables]:
    """The rows of both files, in file order; None if either file is missing."""
    ops = _tables(os.path.join(root, OPS_PATH), ("XFAILS", "DTYPE_GAPS"))
    modules = _tables(os.path.join(root, MODULES_PATH), ("XFAILS",))
    if ops is None or modules is None:
        return None
    xfails = [Xfail(os.path.basename(path), *key, *value)
              for path, t in ((OPS_PATH, ops), (MODULES_PATH, modules)) for key, value in t["XFAILS"].items()]
    gaps = [DtypeGap(name, dtypes, why) for why, rows in ops["DTYPE_GAPS"].items()
            for name, dtypes in rows.items()]
    return Tables(xfails, gaps)
