"""Writing generated files, for every emitter (C++ registrations, tests):
the role of torchgen's FileManager. A file is written only when its content
changes, so an unchanged output keeps its timestamp and nothing rebuilds;
files the generator no longer produces are removed; shards are chosen by a
stable hash, so an entry stays in its shard from run to run."""

from __future__ import annotations

import os
import zlib
from typing import Callable, Dict, List


def shard_of(key: str, num_shards: int) -> int:
    """The shard of an entry (by its op name): stable across runs and Pythons."""
    return zlib.crc32(key.encode()) % num_shards


def write_tree(root: str, folder: str, files: Dict[str, str], check: bool = False,
               owned: Callable[[str], bool] = lambda name: True) -> List[str]:
    """Writes the changed files of `files` (repository-relative path ->
    content) and removes the files under `folder` that `files` lacks and the
    generator owns (`owned(name)`). With check, only reports. Returns the
    repository-relative paths that differ, sorted."""
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
    for base, _, names in sorted(os.walk(os.path.join(root, folder))):
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(base, name), root)
            if rel not in files and owned(name):
                changed.append(rel)
                if not check:
                    os.remove(os.path.join(base, name))
    return changed
