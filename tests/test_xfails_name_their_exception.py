"""Every expected failure names the exception it expects (issue 46): a strict
xfail without `raises=` is satisfied by any crash, so a test written for a
rounding difference would go on "passing" after the op starts raising.

Scans tests/*.py and tests/generated/*.py with `ast`:
- a `pytest.mark.xfail` mark needs `raises=` and must not say strict=False
  (pyproject's `xfail_strict = true` makes the others strict);
- a generated case with `xfail=` needs a non-empty `raises=`;
- an imperative `pytest.xfail(...)` (no raises= possible) only where the
  exception was checked first: ALLOWED_IMPERATIVE says where and how.
"""

from __future__ import annotations

import ast
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (file, function) -> why its imperative pytest.xfail is pinned all the same.
ALLOWED_IMPERATIVE = {
    ("tests/device_generic.py", "expecting"):
        "reached only after the body raised the XFAILS row's exception type (or a subclass); "
        "another exception re-raises, and a pass fails",
    ("tests/test_device_generic_ops.py", "test_dtypes"):
        "reached only after asserting that the dtypes where tpu and CPU differ are exactly "
        "DTYPE_GAPS' row; the check raises nothing of its own to pin",
}


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _keyword(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def problems(root: str) -> list:
    """Every xfail under root's tests/ that does not name its exception, as
    "path:line: what"."""
    out = []
    files = sorted(glob.glob(os.path.join(root, "tests", "*.py")) +
                   glob.glob(os.path.join(root, "tests", "generated", "*.py")))
    for path in files:
        rel = os.path.relpath(path, root)
        with open(path) as f:
            tree = ast.parse(f.read(), rel)
        owner = {}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    owner.setdefault(id(node), fn.name)
        calls = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                calls.add(id(node.func))
                name = _dotted(node.func)
                if name.endswith("mark.xfail"):
                    strict = _keyword(node, "strict")
                    if _keyword(node, "raises") is None:
                        out.append(f"{rel}:{node.lineno}: pytest.mark.xfail without raises=")
                    if isinstance(strict, ast.Constant) and strict.value is False:
                        out.append(f"{rel}:{node.lineno}: pytest.mark.xfail(strict=False)")
                elif name == "pytest.xfail":
                    if (rel, owner.get(id(node))) not in ALLOWED_IMPERATIVE:
                        out.append(f"{rel}:{node.lineno}: imperative pytest.xfail() cannot name "
                                   "its exception: use a mark with raises=")
                elif _keyword(node, "xfail") is not None:
                    raises = _keyword(node, "raises")
                    if raises is None or (isinstance(raises, ast.Constant) and not raises.value):
                        out.append(f"{rel}:{node.lineno}: {name or 'a call'}(xfail=...) "
                                   "without raises=")
        for node in ast.walk(tree):
            # a bare decorator: @pytest.mark.xfail
            if (isinstance(node, ast.Attribute) and _dotted(node).endswith("mark.xfail")
                    and id(node) not in calls):
                out.append(f"{rel}:{node.lineno}: bare pytest.mark.xfail (no raises=)")
    return out


def test_every_xfail_names_its_exception():
    found = problems(ROOT)
    assert not found, "xfails that do not name their exception:\n" + "\n".join(found)


def test_xfails_are_strict_by_default():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        options = f.read().split("[tool.pytest.ini_options]", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^xfail_strict = true$", options, re.M), options


def test_the_allow_list_names_live_calls():
    for (path, function), why in ALLOWED_IMPERATIVE.items():
        with open(os.path.join(ROOT, path)) as f:
            tree = ast.parse(f.read())
        fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
        assert fns and any(isinstance(n, ast.Call) and _dotted(n.func) == "pytest.xfail"
                           for n in ast.walk(fns[0])), (path, function, why)


@pytest.mark.parametrize("source, expected", [
    ("import pytest\n@pytest.mark.xfail(reason='x', strict=True)\ndef test_a(): pass\n",
     "without raises="),
    ("import pytest\n@pytest.mark.xfail\ndef test_a(): pass\n", "bare pytest.mark.xfail"),
    ("import pytest\n@pytest.mark.xfail(raises=ValueError, strict=False)\ndef test_a(): pass\n",
     "strict=False"),
    ("import pytest\ndef test_a():\n    pytest.xfail('x')\n", "imperative pytest.xfail()"),
    ("CASES = [case(1, xfail='why')]\n", "case(xfail=...) without raises="),
    ("CASES = [case(1, xfail='why', raises='')]\n", "case(xfail=...) without raises="),
])
def test_the_scan_finds_each_kind(tmp_path, source, expected):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(source)
    found = problems(str(tmp_path))
    assert len(found) == 1 and expected in found[0], found


def test_the_scan_accepts_pinned_xfails(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import pytest\n@pytest.mark.xfail(raises=ValueError, reason='x')\ndef test_a(): pass\n"
        "CASES = [case(1, xfail='why', raises='AssertionError'), case(2)]\n")
    assert problems(str(tmp_path)) == []
