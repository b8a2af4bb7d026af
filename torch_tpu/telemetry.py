"""What ran where: operator calls by route, host<->device copies, host syncs.

    torch_tpu.reset_stats()
    y = model(x)
    s = torch_tpu.stats()
    s["ops"]["aten::add.Tensor"]     # {"fallback": 3}
    s["copies"]["h2d"]                # {"calls": 2, "bytes": 4096}
    s["syncs"]                        # {"item": 1, "copy_d2h": 2}

    with torch_tpu.no_fallback():     # raises if any op ran on the host
        y = model(x)
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict

from . import _C


def stats() -> Dict[str, Any]:
    """Counters since the last reset_stats() (or process start)."""
    return _C._stats()


def reset_stats() -> None:
    _C._reset_stats()


def fallback_calls(snapshot: Dict[str, Any] | None = None) -> Dict[str, int]:
    """{op: calls} of the operators that ran through the host fallback."""
    snap = stats() if snapshot is None else snapshot
    return {op: routes["fallback"] for op, routes in snap["ops"].items() if "fallback" in routes}


@contextlib.contextmanager
def no_fallback():
    """Asserts that no operator inside the block ran through the host fallback."""
    before = fallback_calls()
    yield
    after = fallback_calls()
    new = {op: n - before.get(op, 0) for op, n in after.items() if n > before.get(op, 0)}
    if new:
        raise AssertionError("host fallback happened inside torch_tpu.no_fallback(): " +
                             ", ".join(f"{op} x{n}" for op, n in sorted(new.items())))
