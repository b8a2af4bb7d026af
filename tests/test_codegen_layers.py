"""The generator's stages import only from the stages before them
(codegen/__init__.py), at module level: a cycle or a backward import is a
design error, not something to hide in a function-level import."""

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "codegen")
STAGES = ("facts", "model", "emit", "testgen", "proofs", "report")
SHARED = {"errors", "paths", "json_cache"}  # top-level modules every stage may use
# The one function-level import: pytest loads runner.py as a plugin, which
# must not pull in the whole generator.
LAZY_ALLOWED = {("testgen/runner.py", "op_tests")}


def _modules():
    for stage in STAGES:
        for name in sorted(os.listdir(os.path.join(ROOT, stage))):
            if name.endswith(".py"):
                yield stage, f"{stage}/{name}"


def _codegen_imports(tree, stage):
    """(target stage or shared module, module-level?, imported names) per
    relative import."""
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            parts = (node.module or "").split(".")
            target = stage if node.level == 1 else parts[0] or None
            if node.level == 2 and not node.module:          # from .. import x
                target = None
            names = [a.name for a in node.names]
            yield target, id(node) in top, names


@pytest.mark.parametrize("stage,path", list(_modules()), ids=lambda x: x)
def test_stage_imports_only_earlier_stages(stage, path):
    with open(os.path.join(ROOT, path)) as f:
        tree = ast.parse(f.read())
    for target, module_level, names in _codegen_imports(tree, stage):
        targets = [target] if target else names
        for t in targets:
            if t in SHARED:
                continue
            assert t in STAGES, f"{path} imports codegen.{t}, which is no stage"
            assert STAGES.index(t) <= STAGES.index(stage), \
                f"{path} ({stage}) imports from the later stage {t}"
        if not module_level:
            assert all((path, n) in LAZY_ALLOWED for n in names), \
                f"{path} imports {names} inside a function: import at module level"


def test_every_stage_is_checked():
    assert sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
                  and not d.startswith("__") and d != "templates") == sorted(STAGES)
