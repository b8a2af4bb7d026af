"""The rules of the out= contract, as CPU-side case builders: each takes an
OpInfo sample and its CPU result and returns the sample with an out= that
bends the contract one way (tests/out_contract_harness.py runs the case on
CPU and tpu and compares). Torch only, no torch_tpu: the generator also runs
them on CPU (applicable()) to emit a test only for the rules an op's samples
can express, and to say why not for the others.

  resize_empty       a zero-element out is resized to the result's shape
  wrong_device_cpu   an out on the CPU, inputs on tpu: RuntimeError (as CUDA)
  wrong_device_peer  an out on tpu:1, inputs on tpu:0: RuntimeError (as CUDA)
  dtype_castable     an out dtype the result casts to safely (torch.can_cast)
  dtype_uncastable   an out dtype it does not: rejected where CPU rejects it
  alias_input        out is self, where self has the result's shape and dtype
                     (the in-place form's aliasing)
  disjoint_views     out and self are disjoint views of one storage
  partial_overlap    out overlaps self, shifted by one element
  internal_overlap   out repeats one memory location (stride 0)
  requires_grad      a floating input requires grad: out= is not differentiable
"""

from __future__ import annotations

import hashlib
import os
import zlib
from typing import Dict, Iterator, List, Optional, Tuple
from .. import json_cache, paths
from ..facts.opinfo_db import all_opinfos
from ..facts.opinfo_index import _key as opinfo_key
from ..model.manifest import OUT_RULES

RULES = OUT_RULES  # ops.yaml's vocabulary; each is checked by a function below
# Rules whose out lives on another device than the inputs.
DEVICE_RULES = ("wrong_device_cpu", "wrong_device_peer")
MAX_SAMPLES = 3          # samples a rule is checked on
# (OpInfo, rule) pairs whose CPU reference is unsafe to run: CPU's own kernel
# corrupts the process, so there is nothing to compare tpu with.
CPU_REFERENCE_UNSAFE = {
    ("nn.functional.avg_pool3d", "internal_overlap"):
        "CPU's avg_pool3d.out writes past the end of a stride-0 out (a heap overflow in "
        "CPU's kernel, torch 2.13): no CPU reference to compare with",
}
ROOT = paths.ROOT
CACHE = os.path.join(ROOT, "build", "out_rules_cache.json")


class NotApplicable(Exception):
    """The rule does not fit this sample (self unlike the result, ...)."""


def seed(opinfo: str, variant: str, dtype: str) -> int:
    """Samples are random: the generator and the test draw the same ones."""
    return zlib.crc32(f"out-contract-{opinfo}.{variant}-{dtype}".encode())


def _sentinel(dtype):
    import torch

    if dtype == torch.bool:
        return True
    return float("nan") if dtype.is_floating_point or dtype.is_complex else 12


def full(shape, dtype, device="cpu"):
    import torch

    return torch.full(shape, _sentinel(dtype), dtype=dtype, device=device)


def tensor_inputs(sample) -> list:
    import torch
    from torch.utils import _pytree as pytree

    return [x for x in pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
            if isinstance(x, torch.Tensor)]


def with_out(sample, out):
    from torch.testing._internal.opinfo.core import SampleInput

    return SampleInput(sample.input, args=sample.args, kwargs=dict(sample.kwargs, out=out),
                       output_process_fn_grad=sample.output_process_fn_grad)


def _replace(sample, old, new):
    box = [old, new]
    out = sample.transform(lambda t: box[1] if t is box[0] else t)
    box.clear()
    return out


def _like_result(sample, result):
    """The sample's self when it has the result's shape and dtype: what the
    in-place form would write to (out= aliasing another argument, like
    addmm's mat2, is not a form PyTorch defines)."""
    import torch

    t = sample.input
    if isinstance(t, torch.Tensor) and t.shape == result.shape and t.dtype == result.dtype \
            and t.numel() > 1:
        return t
    raise NotApplicable("self does not have the result's shape and dtype (or has one element)")


def _shared_storage(first, second_shape, second_dtype, offset_elems: int):
    """first's values at the start of a new storage, and a sentinel-filled
    tensor of second_shape/second_dtype offset_elems elements (of first's
    dtype) into it."""
    import torch

    itemsize = torch.empty(0, dtype=second_dtype).element_size()
    start = offset_elems * first.element_size()
    if start % itemsize:
        raise NotApplicable("the out view would be misaligned for its dtype")
    n2 = int(torch.Size(second_shape).numel()) * itemsize
    size = max(first.numel() * first.element_size(), start + n2) + 16
    storage = torch.empty(size, dtype=torch.uint8).untyped_storage()
    a = torch.empty(0, dtype=first.dtype).set_(storage, 0, first.shape)
    a.copy_(first.contiguous())
    b = torch.empty(0, dtype=second_dtype).set_(storage, start // itemsize, second_shape)
    b.fill_(_sentinel(second_dtype))
    return a, b


def _other_dtype(result, castable: bool):
    import torch

    for d in (torch.float64, torch.complex128, torch.float32, torch.int64, torch.int32,
              torch.int16, torch.bool):
        if d != result and torch.can_cast(result, d) == castable:
            return d
    raise NotApplicable(f"no dtype that {result} {'casts' if castable else 'does not cast'} to "
                        "(torch.can_cast)")


def build(rule: str, sample, expected) -> Tuple[object, Optional[str]]:
    """The CPU sample with out= set as the rule says, and where the out goes
    instead of the inputs' device ("cpu", "tpu:1"), else None."""
    import torch
    from torch.utils import _pytree as pytree

    leaves, spec = pytree.tree_flatten(expected)
    res = leaves[0]

    def outs(make):
        return pytree.tree_unflatten([make(k, e) for k, e in enumerate(leaves)], spec)

    if rule == "resize_empty":
        return with_out(sample, outs(lambda k, e: torch.empty(0, dtype=e.dtype))), None
    if rule in DEVICE_RULES:
        out = outs(lambda k, e: full(e.shape, e.dtype))
        return with_out(sample, out), ("cpu" if rule == "wrong_device_cpu" else "tpu:1")
    if rule in ("dtype_castable", "dtype_uncastable"):
        dtype = _other_dtype(res.dtype, rule == "dtype_castable")
        return with_out(sample, outs(lambda k, e: full(e.shape, dtype if k == 0 else e.dtype))), \
            None
    if len(leaves) != 1:
        raise NotApplicable("the op has more than one out= tensor")
    if rule == "internal_overlap":
        if res.numel() < 2:
            raise NotApplicable("the result has fewer than two elements")
        return with_out(sample, full((1,), res.dtype).expand(res.shape)), None
    if rule == "requires_grad":
        floating = [t for t in tensor_inputs(sample) if t.is_floating_point() or t.is_complex()]
        if not floating:
            raise NotApplicable("no floating input that could require grad")
        grad_in = floating[0].detach().clone().requires_grad_(True)
        return with_out(_replace(sample, floating[0], grad_in), full(res.shape, res.dtype)), None
    like = _like_result(sample, res)
    if rule == "alias_input":
        mine = like.clone()
        return with_out(_replace(sample, like, mine), mine), None
    if rule == "disjoint_views":
        a, b = _shared_storage(like, res.shape, res.dtype, like.numel())
        return with_out(_replace(sample, like, a), b), None
    if rule == "partial_overlap":
        a, b = _shared_storage(like, res.shape, res.dtype, 1)
        return with_out(_replace(sample, like, a), b), None
    raise AssertionError(f"unknown out= rule {rule!r}")


def cases(op, dtype_name: str, rule: str, opinfo: str, variant: str) -> Iterator[tuple]:
    """(sample, expected, cpu_case, out_device) for up to MAX_SAMPLES samples
    the rule fits; raises NotApplicable with the reasons if it fits none."""
    import torch
    from torch.utils import _pytree as pytree

    torch.manual_seed(seed(opinfo, variant, dtype_name))
    applied, reasons = 0, set()
    for sample in op.sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False):
        if applied == MAX_SAMPLES:
            return
        try:
            expected = op(sample.input, *sample.args, **sample.kwargs)
        except Exception:
            continue
        leaves = pytree.tree_leaves(expected)
        if not leaves or not all(isinstance(x, torch.Tensor) for x in leaves):
            continue
        try:
            plain = pytree.tree_map_only(torch.Tensor, torch.empty_like, expected)
            try:
                op(sample.input, *sample.args, **sample.kwargs, out=plain)
            except Exception:
                raise NotApplicable("CPU refuses the plain out= call")
            cpu_case, out_device = build(rule, sample, expected)
        except NotApplicable as e:
            reasons.add(str(e))
            continue
        applied += 1
        yield sample, expected, cpu_case, out_device
    if not applied:
        raise NotApplicable("; ".join(sorted(reasons)) or "no sample runs with out= on CPU")


# --- which rules an op's samples can express (for the generator) ---------------

def _file_hash() -> str:
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def applicable(requests: List[Tuple[str, str, str]], cache: str = CACHE) -> Dict[str, Dict[str, str]]:
    """For (opinfo, variant, dtype) requests: {key: {rule: "" if it applies,
    else why not}}, key "opinfo.variant-dtype". Runs the OpInfo samples on CPU;
    cached in build/ (keyed by this file and the OpInfo sources)."""

    key = [_file_hash(), opinfo_key()]
    results = json_cache.read_keyed(cache, key)
    if not isinstance(results, dict):
        results = {}
    missing = [r for r in requests if _name(*r) not in results]
    if missing:
        import warnings

        import torch


        by_name = {(o.name, o.variant_test_name): o for o in all_opinfos()}
        with warnings.catch_warnings(), torch.random.fork_rng(devices=[]):
            warnings.simplefilter("ignore")
            for name, variant, dtype in missing:
                op = by_name[(name, variant)]
                found = {}
                for rule in RULES:
                    try:
                        for _ in cases(op, dtype, rule, name, variant):
                            pass
                        found[rule] = ""
                    except NotApplicable as e:
                        found[rule] = str(e)
                results[_name(name, variant, dtype)] = found
        json_cache.write_keyed(cache, key, results)
    return {_name(*r): results[_name(*r)] for r in requests}


def _name(opinfo: str, variant: str, dtype: str) -> str:
    return f"{opinfo}.{variant}-{dtype}"
