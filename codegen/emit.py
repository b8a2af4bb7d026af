"""Renders the generated sources from the manifest. Output is deterministic
(sorted, no timestamps) and a file is rewritten only when its bytes change,
so ninja recompiles only what really changed."""

from __future__ import annotations

import os
from typing import Dict, List

import jinja2

from .manifest import OpEntry

GENERATED_DIR = os.path.join("csrc", "generated")
_TEMPLATES = os.path.join(os.path.dirname(__file__), "templates")


def _param_type(param: str) -> str:
    return param.rsplit(" ", 1)[0]


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(_TEMPLATES),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["param_type"] = _param_type
    return env


class _View:
    """What templates see of an entry."""

    def __init__(self, e: OpEntry):
        self.op, self.route, self.signature = e.op, e.route, e.signature
        self.impl = e.impl
        self.qualified = e.impl if e.is_native_reuse else f"torch_tpu::aten::{e.impl}"


def render(entries: List[OpEntry]) -> Dict[str, str]:
    """Maps repository-relative path -> file content."""
    env = _environment()
    entries = sorted(entries, key=lambda e: e.op)
    views = [_View(e) for e in entries]
    own = [v for v, e in zip(views, entries) if not e.is_native_reuse]
    headers = sorted({e.native_header for e in entries if e.is_native_reuse})
    return {
        os.path.join(GENERATED_DIR, "aten_ops.h"):
            env.get_template("aten_ops.h.j2").render(own=own),
        os.path.join(GENERATED_DIR, "register_aten.cpp"):
            env.get_template("register_aten.cpp.j2").render(entries=views,
                                                           native_headers=headers),
    }


def write(root: str, files: Dict[str, str], check: bool = False) -> List[str]:
    """Writes changed files (or, with check, only reports them). Returns the
    repository-relative paths that differ, including stale generated files."""
    changed = []
    for rel, content in sorted(files.items()):
        path = os.path.join(root, rel)
        try:
            with open(path) as f:
                same = f.read() == content
        except OSError:
            same = False
        if same:
            continue
        changed.append(rel)
        if not check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(content)
    gen_dir = os.path.join(root, GENERATED_DIR)
    if os.path.isdir(gen_dir):
        for name in sorted(os.listdir(gen_dir)):
            rel = os.path.join(GENERATED_DIR, name)
            if rel not in files:
                changed.append(rel)
                if not check:
                    os.remove(os.path.join(gen_dir, name))
    return changed
