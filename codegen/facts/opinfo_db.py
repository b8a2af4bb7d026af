"""The OpInfos the generator and the generated tests draw samples from:
torch's op_db plus its foreach databases (ForeachFuncInfo, named like the op,
"_foreach_add"), which op_db does not include, and the project's OpInfos for
core overloads op_db has none for (codegen/facts/opinfo_extra.py). Imports the
(slow) torch test modules only when called."""

from __future__ import annotations

import functools
import sys
import unittest
from typing import Callable, List, Optional

from .opinfo_extra import extra_opinfos

FOREACH_DBS = ("foreach_unary_op_db", "foreach_binary_op_db", "foreach_pointwise_op_db",
               "foreach_reduce_op_db", "foreach_other_op_db")


def _extract_test_fn() -> Optional[Callable]:
    """torch's common_utils.extract_test_fn, same answer, without
    inspect.stack(): that reads the source lines of every frame (a scan of
    sys.modules each) and runs once per sample_inputs/error_inputs call.
    It was ~60% of `python -m codegen generate` and of the generated tests'
    sample time, to find no unittest.TestCase (ours are pytest functions)."""
    try:
        frame = sys._getframe(1)
        while frame is not None:
            self_val = frame.f_locals.get("self")
            if isinstance(self_val, unittest.TestCase):
                *_, cls_name, test_name = self_val.id().rsplit(".", 2)
                if cls_name == type(self_val).__name__ and test_name.startswith("test"):
                    return getattr(self_val, test_name).__func__
            frame = frame.f_back
    except Exception:
        pass
    return None


def _use_fast_extract_test_fn() -> None:
    import torch.testing._internal.common_utils as common_utils
    import torch.testing._internal.opinfo.core as opinfo_core

    for module in (common_utils, opinfo_core):  # core imported the name
        assert callable(module.extract_test_fn), module
        module.extract_test_fn = _extract_test_fn


@functools.lru_cache(maxsize=1)
def all_opinfos() -> List:
    import torch.testing._internal.common_methods_invocations as cmi

    _use_fast_extract_test_fn()

    infos = list(cmi.op_db)
    for name in FOREACH_DBS:
        infos.extend(getattr(cmi, name, ()))

    infos.extend(extra_opinfos())
    return infos
