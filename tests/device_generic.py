"""Shared by the device-generic test files (tests/test_device_generic_*.py):
PyTorch's instantiate_device_type_tests for tpu, and their one rule for
known failures."""

from __future__ import annotations

import traceback

import pytest
from torch.testing._internal.common_device_type import PrivateUse1TestBase, instantiate_device_type_tests


def instantiate(generic_cls, scope: dict) -> None:
    """instantiate_device_type_tests(..., only_for="tpu"), the class named
    <generic>PRIVATEUSE1 whatever ran before: instantiating calls the base's
    setUpClass, which renames PrivateUse1TestBase.device_type to "tpu" (the
    next class would be <generic>TPU, and the names would depend on which
    file pytest collected first). The attribute is restored afterwards."""
    saved = PrivateUse1TestBase.device_type
    PrivateUse1TestBase.device_type = "privateuse1"
    try:
        instantiate_device_type_tests(generic_cls, scope, only_for="tpu")
    finally:
        PrivateUse1TestBase.device_type = saved


def expecting(xfails: dict, test: str, name: str, dtype: str, body) -> None:
    """body(), held to the xfails row of (test, name, dtype), or of (test,
    name, "*") for every dtype, if there is one: a strict xfail, so the body
    must fail with the row's exception type (or a subclass), and a body that
    passes fails. The frames of a failure are cleared: the report keeps the
    traceback, not the device tensors its frames hold (the leak check would
    see them)."""
    row = xfails.get((test, name, dtype)) or xfails.get((test, name, "*"))
    try:
        body()
    except Exception as e:
        traceback.clear_frames(e.__traceback__)
        if row is None or row[0] not in {t.__name__ for t in type(e).__mro__}:
            raise
        got = f"{type(e).__name__}: {str(e)[:160]}"
    else:
        if row is not None:
            pytest.fail(f"{test} of {name} ({dtype}) passes: remove its XFAILS row")
        return
    # outside the except block: the xfail does not carry the failure (and its tensors) along
    pytest.xfail(f"{row[1]} [got {got}]")
