"""What the generated tests need to know about torch's OpInfos, without
importing op_db on every `python -m codegen` run.

Importing torch.testing._internal.common_methods_invocations.op_db costs ~3 s
(702 OpInfos). The facts the generator uses are small (names, CPU dtypes
and the dtypes only CUDA adds, out= support, which dtypes torch itself does
not compare against CPU, backward dtypes, whether reference inputs are
defined, how many error inputs reach a device), so they are extracted once and cached in build/opinfo_index.json,
keyed by the stat() of the installed torch's OpInfo sources: a torch upgrade
rebuilds it.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
from .. import json_cache, paths

from .dtypes import DTYPES
from .opinfo_db import all_opinfos

ROOT = paths.ROOT
CACHE = os.path.join(ROOT, "build", "opinfo_index.json")
# 2: foreach OpInfos included (opinfo_db.py); 3: binary-ufunc facts; 4: backward
# dtypes, reference_inputs, error inputs that reach a device; 5: CUDA-only
# dtypes; 6: complex32
_FORMAT = 6


@dataclass(frozen=True)
class BinaryFacts:
    """What a BinaryUfuncInfo says about its operands and result dtype."""
    rhs_python_scalar: bool         # tensor x Python scalar
    one_python_scalar: bool         # also Python scalar x tensor
    always_returns_bool: bool       # comparisons, logical ops
    promotes_int_to_float: bool     # true division, atan2, ...


@dataclass(frozen=True)
class OpInfoFacts:
    name: str                       # "div"
    variant: str                    # "no_rounding_mode" ("" for none)
    aten_name: str                  # "div"
    supports_out: bool
    dtypes: Tuple[str, ...]         # supported on CPU, ops.yaml names, DTYPES order
    # dtype -> why torch's own device-vs-CPU test (TestCommon.test_compare_cpu)
    # does not compare values ("output is non-deterministic", ...): the
    # generated tests then compare metadata only.
    not_comparable: Tuple[Tuple[str, str], ...] = ()
    binary: Optional[BinaryFacts] = None    # None: not a BinaryUfuncInfo
    # dtypes autograd is tested in on CPU (OpInfo.supported_backward_dtypes: none
    # without supports_autograd; floating and complex only), DTYPES order
    backward_dtypes: Tuple[str, ...] = ()
    reference_inputs: bool = False  # defines reference_inputs_func (extremal values, ...)
    # ErrorInputs with a tensor argument or a device= (the others, Python
    # scalars only, never reach a device)
    error_inputs: int = 0
    # supported on CUDA and not on CPU (tpu runs CUDA's dtypes too; the
    # tests' reference widens them: tests/cuda_dtype_reference.py), DTYPES order
    cuda_dtypes: Tuple[str, ...] = ()

    @property
    def full_name(self) -> str:
        """How tests and ops.yaml name one OpInfo: "div.no_rounding_mode"."""
        return f"{self.name}.{self.variant}" if self.variant else self.name

    @property
    def formatted_name(self) -> str:
        """torch's own test-name spelling: "div_no_rounding_mode"."""
        base = self.name.replace(".", "_")
        return f"{base}_{self.variant}" if self.variant else base

    def comparable(self, dtype: str) -> Optional[str]:
        """None when values are comparable for dtype, else torch's reason."""
        return dict(self.not_comparable).get(dtype)


def _sources() -> List[str]:
    spec = importlib.util.find_spec("torch")
    torch_dir = os.path.dirname(spec.origin)
    internal = os.path.join(torch_dir, "testing", "_internal")
    files = [os.path.join(torch_dir, "version.py"),
             os.path.join(internal, "common_methods_invocations.py")]
    opinfo = os.path.join(internal, "opinfo")
    for folder, _, names in sorted(os.walk(opinfo)):
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".py")]
    here = os.path.dirname(os.path.abspath(__file__))
    return files + [os.path.join(here, "opinfo_extra.py"), os.path.join(here, "opinfo_db.py")]


def _key() -> List:
    key: List = [_FORMAT]
    for path in _sources():
        try:
            st = os.stat(path)
            key.append([os.path.relpath(path, os.path.dirname(os.path.dirname(path))),
                        st.st_size, st.st_mtime_ns])
        except OSError:
            key.append([path, None, None])
    return key


def _skip_reason(decorator) -> Optional[str]:
    """The reason of a unittest.skip-style decorator, else None."""
    def probe():
        pass

    try:
        decorated = decorator(probe)
    except Exception:
        return None
    if getattr(decorated, "__unittest_skip__", False):
        return str(getattr(decorated, "__unittest_skip_why__", "") or "skipped")
    return None


def _device_error_inputs(op) -> int:
    """How many of the OpInfo's CPU ErrorInputs have a tensor argument or name
    a device (the harness's _reaches_device)."""
    import torch
    from torch.utils import _pytree as pytree

    if op.error_inputs_func is None:
        return 0
    n = 0
    for ei in op.error_inputs("cpu"):
        s = ei.sample_input
        n += s.kwargs.get("device") is not None or any(
            isinstance(x, torch.Tensor) for x in pytree.tree_leaves((s.input, s.args, s.kwargs)))
    return n


def _extract() -> List[OpInfoFacts]:
    import torch
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, DecorateInfo


    facts = []
    for op in all_opinfos():
        dtypes = op.supported_dtypes("cpu")
        supported = tuple(n for n in DTYPES if getattr(torch, DTYPES[n][1]) in dtypes)
        cuda = op.supported_dtypes("cuda")
        cuda_only = tuple(n for n in DTYPES if getattr(torch, DTYPES[n][1]) in cuda and n not in supported)
        not_comparable = []
        for dtype in supported + cuda_only:
            for info in op.decorators:
                if not isinstance(info, DecorateInfo):
                    continue
                try:
                    active = info.is_active("TestCommon", "test_compare_cpu", "tpu",
                                            getattr(torch, DTYPES[dtype][1]), {})
                except Exception:
                    active = False
                if not active:
                    continue
                reasons = [r for r in map(_skip_reason, info.decorators) if r]
                if reasons:
                    not_comparable.append((dtype, reasons[0]))
                    break
        binary = None
        if isinstance(op, BinaryUfuncInfo):
            binary = BinaryFacts(bool(op.supports_rhs_python_scalar),
                                 bool(op.supports_one_python_scalar),
                                 bool(op.always_returns_bool), bool(op.promotes_int_to_float))
        backward = op.supported_backward_dtypes("cpu")
        facts.append(OpInfoFacts(op.name, op.variant_test_name, op.aten_name or op.name,
                                 bool(op.supports_out), supported, tuple(not_comparable),
                                 binary,
                                 tuple(n for n in supported
                                       if getattr(torch, DTYPES[n][1]) in backward),
                                 op.reference_inputs_func is not None,
                                 _device_error_inputs(op), cuda_only))
    return facts


def _to_json(facts: List[OpInfoFacts]) -> List[dict]:
    return [{"name": f.name, "variant": f.variant, "aten_name": f.aten_name,
             "supports_out": f.supports_out, "dtypes": list(f.dtypes),
             "not_comparable": [list(x) for x in f.not_comparable], "binary": (None if f.binary is None else
                                                                  vars(f.binary)),
             "backward_dtypes": list(f.backward_dtypes), "reference_inputs": f.reference_inputs,
             "error_inputs": f.error_inputs, "cuda_dtypes": list(f.cuda_dtypes)}
            for f in facts]


def _from_json(rows: List[dict]) -> List[OpInfoFacts]:
    return [OpInfoFacts(r["name"], r["variant"], r["aten_name"], r["supports_out"],
                        tuple(r["dtypes"]), tuple(tuple(x) for x in r["not_comparable"]),
                        BinaryFacts(**r["binary"]) if r.get("binary") else None,
                        tuple(r["backward_dtypes"]), r["reference_inputs"], r["error_inputs"],
                        tuple(r["cuda_dtypes"]))
            for r in rows]


@functools.lru_cache(maxsize=1)
def load(cache: str = CACHE) -> "Index":
    key = _key()
    rows = json_cache.read_keyed(cache, key)
    if rows is not None:
        try:
            return Index(_from_json(rows))
        except (KeyError, TypeError, ValueError):
            pass  # an older layout: extract again
    facts = _extract()
    json_cache.write_keyed(cache, key, _to_json(facts))
    return Index(facts)


class Index:
    """OpInfos by name, aten_name and full name."""

    def __init__(self, facts: List[OpInfoFacts]):
        self.facts = list(facts)
        self._by_name: Dict[str, List[OpInfoFacts]] = {}
        self._by_aten: Dict[str, List[OpInfoFacts]] = {}
        self._by_full: Dict[str, OpInfoFacts] = {}
        for f in self.facts:
            self._by_name.setdefault(f.name, []).append(f)
            self._by_aten.setdefault(f.aten_name, []).append(f)
            self._by_full.setdefault(f.full_name, f)
            self._by_full.setdefault(f.formatted_name, f)

    def named(self, name: str) -> List[OpInfoFacts]:
        """An OpInfo name (all its variants), "name." (only the one without a
        variant), "name.variant", or torch's formatted "name_variant"; [] if
        unknown."""
        if name.endswith(".") and name[:-1] in self._by_name:
            return [f for f in self._by_name[name[:-1]] if not f.variant]
        if name in self._by_name:
            return list(self._by_name[name])
        f = self._by_full.get(name)
        return [f] if f else []

    def matching(self, names) -> List[OpInfoFacts]:
        """OpInfos whose name or aten_name is one of names (no duplicates, op_db order)."""
        seen, out = set(), []
        wanted = set(names)
        for f in self.facts:
            if (f.name in wanted or f.aten_name in wanted) and id(f) not in seen:
                seen.add(id(f))
                out.append(f)
        return out

    def all_names(self) -> List[str]:
        return sorted(set(self._by_name) | set(self._by_full))
