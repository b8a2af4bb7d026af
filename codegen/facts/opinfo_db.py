"""The OpInfos the generator and the generated tests draw samples from:
torch's op_db plus its foreach databases (ForeachFuncInfo, named like the op,
"_foreach_add"), which op_db does not include, and the project's OpInfos for
core overloads op_db has none for (codegen/facts/opinfo_extra.py). Imports the
(slow) torch test modules only when called."""

from __future__ import annotations

import functools
from typing import List

from .opinfo_extra import extra_opinfos

FOREACH_DBS = ("foreach_unary_op_db", "foreach_binary_op_db", "foreach_pointwise_op_db",
               "foreach_reduce_op_db", "foreach_other_op_db")


@functools.lru_cache(maxsize=1)
def all_opinfos() -> List:
    import torch.testing._internal.common_methods_invocations as cmi

    infos = list(cmi.op_db)
    for name in FOREACH_DBS:
        infos.extend(getattr(cmi, name, ()))

    infos.extend(extra_opinfos())
    return infos
