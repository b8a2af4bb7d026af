"""The generator's caches in build/: JSON files written atomically (a
parallel run or an interrupted one never leaves half a file), and ignored
when unreadable or keyed to another torch or generator version. A read-only
checkout still works, just slower."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Optional


def read(path: str) -> Optional[Any]:
    """The file's JSON, or None if it is missing or not valid JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write(path: str, data: Any) -> bool:
    """Writes data as JSON, atomically; False if the folder is not writable."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=0, sort_keys=True)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def read_keyed(path: str, key: Any) -> Optional[Any]:
    """The value stored with write_keyed under this key, else None."""
    data = read(path)
    if isinstance(data, dict) and data.get("key") == key:
        return data.get("value")
    return None


def write_keyed(path: str, key: Any, value: Any) -> bool:
    return write(path, {"key": key, "value": value})
