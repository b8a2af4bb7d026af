"""What ran where: operator calls by route, host<->device copies, host syncs.

    torch_tpu.reset_stats()
    y = model(x)
    s = torch_tpu.stats()
    s["ops"]["aten::add.Tensor"]     # {"stub": 3}
    s["stubs"]["add_stub"]            # 3: the stub kernel was reached
    s["copies"]["h2d"]                # {"calls": 2, "bytes": 4096}
    s["syncs"]                        # {"item": 1, "copy_d2h": 2}
    s["launches"]                     # kernels enqueued on tpu streams
    s["program"]["h2d_inputs"]        # torch_tpu.program calls: inputs copied in, ...

    with torch_tpu.no_fallback():     # raises if any op ran on the host
        y = model(x)

    with torch_tpu.trace_ops():       # also count ops that decomposed ("composite")
        y = model(x)
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict

from . import _C


def stats() -> Dict[str, Any]:
    """Counters since the last reset_stats() (or process start)."""
    from . import program

    out = _C._stats()
    out["program"] = dict(program._stats)
    return out


def reset_stats() -> None:
    from . import program

    _C._reset_stats()
    program._reset_stats()


def fallback_calls(snapshot: Dict[str, Any] | None = None) -> Dict[str, int]:
    """{op: calls} of the operators that ran through the host fallback."""
    snap = stats() if snapshot is None else snapshot
    return {op: routes["fallback"] for op, routes in snap["ops"].items() if "fallback" in routes}


@contextlib.contextmanager
def trace_ops():
    """Inside the block, ops called with tpu tensors that have no tpu kernel
    but decompose into other ops are counted under route "composite" too.
    (Off by default: it observes every op the process dispatches.)"""
    _C._enable_composite_tracing()
    try:
        yield
    finally:
        _C._disable_composite_tracing()


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
