"""Known failures are strict xfails that name the exception they expect
(pytest's raises=): a crash must not pass for the rounding difference an
xfail was written for. The generated tests take the name from ops.yaml
(tests.xfail `raises:`) and tests/module_xfails.yaml; this module resolves
it, and defines the harnesses' own failures an xfail may name (the generator
validates names against codegen.model.manifest.XFAIL_RAISES)."""

from __future__ import annotations

import builtins

import pytest


class RouteError(Exception):
    """The call did not go where the manifest says (e.g. a host fallback, or
    the entry's stub never ran). Not an AssertionError: an xfail for a value
    mismatch is not satisfied by a wrong route."""


class NothingCompared(Exception):
    """A check found no sample to compare (every sample was refused on CPU,
    or none reached the entry)."""


HARNESS = {cls.__name__: cls for cls in (RouteError, NothingCompared)}


def exception(name: str) -> type:
    """The exception class an xfail names: one of HARNESS, or a builtin."""
    cls = HARNESS.get(name) or getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise ValueError(f"xfail raises {name!r}: neither a builtin exception nor one of "
                         f"{', '.join(sorted(HARNESS))}")
    return cls


def xfail(reason: str, raises: str):
    """The strict xfail mark of a known failure that raises `raises`."""
    if not reason or not raises:
        raise ValueError("a known failure needs its reason and the exception it raises")
    return pytest.mark.xfail(strict=True, raises=exception(raises), reason=reason)
