"""The known failures of tests/test_optim_db.py (torch.optim on tpu against
CPU, drawn from optim_db) for docs/coverage.md: its one XFAILS table, read
statically (ast, no import: the report runs without a built extension)."""

from __future__ import annotations

import ast
import os
from typing import List, NamedTuple, Optional

from .. import paths

PATH = os.path.join("tests", "test_optim_db.py")


class OptimXfail(NamedTuple):
    optimizer: str
    impl: str
    config: str   # an optim_db configuration desc, or "*"
    dtype: str    # a dtype name, or "*"
    raises: str   # the exception the cases raise
    reason: str


def xfails(root: str = paths.ROOT) -> Optional[List[OptimXfail]]:
    """The XFAILS rows, in file order; None if the file is missing."""
    path = os.path.join(root, PATH)
    try:
        with open(path) as f:
            tree = ast.parse(f.read(), filename=path)
    except FileNotFoundError:
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "XFAILS"
                                                for t in node.targets):
            table = ast.literal_eval(node.value)
            return [OptimXfail(*key, *value) for key, value in table.items()]
    raise ValueError(f"{PATH}: no XFAILS table (a dict literal at module level)")
