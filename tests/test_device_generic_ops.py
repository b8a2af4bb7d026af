"""TestCommon-style checks over op_db on tpu, through PyTorch's own
device-generic machinery: `instantiate_device_type_tests(..., only_for="tpu")`
builds TestCommonTPUPRIVATEUSE1 from PrivateUse1TestBase, and the @ops
decorator gives every OpInfo its tests and dtypes.

The OpInfos are the ones the generated tests use (tests/generated/test_ops_*.py:
the ops ops.yaml gives a tpu route). Those tests already compare each op with
CPU over its samples, reference inputs, out=, non-contiguous inputs, grads,
errors and autocast; this file adds what torch's TestCommon checks beyond that
(re-derived from what its tests mean; torch's test/ is not in the wheel):

  test_variant_consistency   the function, method, in-place and operator
        variants and the aliases of an op agree on tpu (one dtype, its first
        samples), forward and, for the out-of-place ones, backward; an in-place
        variant returns its input, and raises where CPU's raises.
  test_non_standard_bool_values   bool inputs holding bytes other than 0 and
        1 (what a kernel writing `x != 0` as 2 would leave, or a uint8 view)
        give the results of standard bools.
  test_dtypes   every dtype: an op runs on tpu exactly where it runs on CPU
        (the first samples of each dtype; an error has CPU's type). A dtype
        CPU supports and tpu rejects is the NotImplementedError a user hits.
        A dtype the OpInfo supports on CUDA and not on CPU may run on tpu
        where CPU refuses it: tpu follows CUDA there (its values are checked
        by the generated tests, tests/cuda_dtype_reference.py).

All tpu calls run inside torch_tpu.no_fallback(): an op that reached the host
fallback fails. Known failures are strict xfails from the one XFAILS table
below (counted in docs/coverage.md).
"""

from __future__ import annotations

import glob
import itertools
import os
import re

import pytest
import torch
import torch_tpu
from torch.testing._internal.common_device_type import OpDTypes, ops
from torch.testing._internal.common_dtype import all_types_and_complex_and
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase
from torch.utils import _pytree as pytree

import cuda_dtype_reference
from device_generic import expecting, instantiate
from opinfo_harness import _reaches_device, _seeded, call, moved

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_SAMPLES = 8           # variant consistency and non-standard bools: the first samples
MAX_GRAD_SAMPLES = 3
MAX_DTYPE_SAMPLES = 2     # test_dtypes: per dtype
DTYPES = all_types_and_complex_and(torch.half, torch.bfloat16, torch.bool)

# The known failures, strict xfails, in two tables (counted in docs/coverage.md):
# (test, OpInfo name with its variant as "name.variant", dtype or "*") ->
# (the exception type the test fails with, why): the test must fail with
# that type, and fails once it passes.
XFAILS = {
}
# test_dtypes: why -> {OpInfo name: the dtypes (space-separated) where tpu
# and CPU differ for that reason}. Strict: an OpInfo's differing dtypes must
# be exactly those its rows name (a dtype that starts working, or a new
# difference, fails the test until the table is updated).
DTYPE_GAPS = {
}


def _dtype_gaps() -> dict:
    """OpInfo name -> (set of dtype names, why), DTYPE_GAPS inverted."""
    out = {}
    for why, ops in DTYPE_GAPS.items():
        for name, dtypes in ops.items():
            known, reasons = out.get(name, (set(), []))
            out[name] = (known | set(dtypes.split()), reasons + [why])
    return {name: (dtypes, "; ".join(reasons)) for name, (dtypes, reasons) in out.items()}


GAPS = _dtype_gaps()


def _generated_opinfos() -> set:
    """(name, variant) of every OpInfo a generated case names: case(ENTRY,
    'check', 'opinfo', 'dtype'[, variant='...'])."""
    pattern = re.compile(r"case\(\w+, '\w+', '([^']+)', '[^']*'(?:, variant='([^']*)')?")
    found = set()
    for path in glob.glob(os.path.join(HERE, "generated", "test_ops_*.py")):
        with open(path) as f:
            found.update(pattern.findall(f.read()))
    return found


GENERATED = _generated_opinfos()
assert GENERATED, "tests/generated has no OpInfo cases: run python -m codegen"
OPS = sorted((op for op in op_db if (op.name, op.variant_test_name) in GENERATED),
             key=lambda op: (op.name, op.variant_test_name))
BOOL_OPS = [op for op in OPS if torch.bool in op.supported_dtypes("cpu")]


def _full_name(op) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def _expecting(test: str, op, dtype, body) -> None:
    expecting(XFAILS, test, _full_name(op), str(dtype).removeprefix("torch.") if dtype else "*", body)


def _samples(op, dtype, requires_grad=False, limit=MAX_SAMPLES):
    """The OpInfo's first CPU samples that put a tensor on the device."""
    gen = _seeded(op.sample_inputs_func(op, "cpu", dtype, requires_grad))
    return list(itertools.islice((s for s in gen if _reaches_device(s)), limit))


def _seed():
    torch.manual_seed(0)
    torch.tpu.manual_seed_all(0)


def _variants(op):
    """(label, callable, in_place) of every variant of the op and its aliases."""
    out = []
    for owner, prefix in [(op, "")] + [(a, f"alias {a.name}: ") for a in op.aliases]:
        fn = owner.op if owner is not op else None
        for label, v, in_place in ((f"{prefix}function", fn, False),
                                   (f"{prefix}method", owner.method_variant, False),
                                   (f"{prefix}in-place", owner.inplace_variant, True)):
            if v is not None:
                out.append((label, v, in_place))
    if getattr(op, "operator_variant", None) is not None:
        out.append(("operator", op.operator_variant, False))
    if getattr(op, "inplace_operator_variant", None) is not None:
        out.append(("in-place operator", op.inplace_operator_variant, True))
    return out


def _same_outcome(cpu_error, tpu_error) -> bool:
    """Where CPU runs, tpu runs. Where CPU raises, tpu raises an error CPU's
    `except` would catch (NotImplementedError is a RuntimeError), except where
    CPU's kernel lacks the dtype (NotImplementedError): there tpu may run, as
    CUDA's kernels have dtypes CPU's lack (float16 avg_pool3d, ...)."""
    if cpu_error is None:
        return tpu_error is None
    if isinstance(cpu_error, NotImplementedError):
        return tpu_error is None or isinstance(tpu_error, RuntimeError)
    return isinstance(tpu_error, type(cpu_error))


# ops with a method, in-place or operator variant, or an alias
VARIANT_OPS = [op for op in OPS if _variants(op)]


class TestCommonTPU(TestCase):
    exact_dtype = True

    @ops(VARIANT_OPS, dtypes=OpDTypes.any_one)
    def test_variant_consistency(self, device, dtype, op):
        _expecting("test_variant_consistency", op, dtype,
                   lambda: self._variant_consistency(device, dtype, op))

    def _variant_consistency(self, device, dtype, op):
        variants = _variants(op)
        compared = 0
        for i, sample in enumerate(_samples(op, dtype)):
            s = moved(sample, device)
            _seed()
            with torch_tpu.no_fallback():
                expected = call(op, s)
            for label, fn, in_place in variants:
                if in_place:
                    compared += self._in_place(op, label, fn, sample, expected, device)
                    continue
                s = moved(sample, device)
                _seed()
                with torch_tpu.no_fallback():
                    actual = call(fn, s)
                self.assertEqual(actual, expected, msg=f"{label} differs from the function (sample {i})")
                compared += 1
        grad_variants = [(label, fn) for label, fn, in_place in variants if not in_place]
        if op.supports_autograd and dtype.is_floating_point and len(grad_variants) > 1:
            compared += self._grad_consistency(op, dtype, device, grad_variants)
        if not compared:
            self.skipTest(f"no sample of {op.name} in {dtype} reaches the device, or its variants all return something else than a tensor")

    def _in_place(self, op, label, fn, sample, expected, device) -> int:
        """In-place on a copy of the input: CPU decides whether it may run (an
        input that would broadcast or change dtype raises there); where it
        does, tpu returns its input holding the function's result."""
        cpu = moved(sample, "cpu")
        try:
            call(fn, cpu)
        except Exception as cpu_error:
            s = moved(sample, device)
            with self.assertRaises(type(cpu_error), msg=f"{label}: CPU raises {cpu_error!r}"):
                call(fn, s)
            return 1
        if not isinstance(expected, torch.Tensor) or not isinstance(sample.input, torch.Tensor):
            return 0
        s = moved(sample, device)
        _seed()
        with torch_tpu.no_fallback():
            returned = call(fn, s)
        self.assertIs(returned, s.input, msg=f"{label} returns a new tensor, not its input")
        # the result in the input's dtype (x.eq_(y) keeps x's dtype)
        self.assertEqual(s.input, expected.to(s.input.dtype), msg=f"{label} differs from the function")
        return 1

    def _grad_consistency(self, op, dtype, device, grad_variants) -> int:
        compared = 0
        for i, sample in enumerate(_samples(op, dtype, requires_grad=True, limit=MAX_GRAD_SAMPLES)):
            grads = []
            for label, fn in grad_variants:
                s = moved(sample, device)
                inputs = [t for t in pytree.tree_leaves((s.input, s.args, s.kwargs))
                          if isinstance(t, torch.Tensor) and t.requires_grad]
                _seed()
                with torch_tpu.no_fallback():
                    out = [t for t in pytree.tree_leaves(sample.output_process_fn_grad(call(fn, s)))
                           if isinstance(t, torch.Tensor) and t.requires_grad]
                    if not inputs or not out:
                        break
                    torch.manual_seed(i)
                    seeds = [torch.randn(t.shape, dtype=t.dtype).to(device) for t in out]
                    grads.append((label, torch.autograd.grad(out, inputs, seeds, allow_unused=True)))
            for label, g in grads[1:]:
                self.assertEqual(g, grads[0][1], msg=f"{label}: gradients differ from the function's (sample {i})")
                compared += 1
        return compared

    @ops(BOOL_OPS, allowed_dtypes=(torch.bool,))
    def test_non_standard_bool_values(self, device, dtype, op):
        _expecting("test_non_standard_bool_values", op, dtype,
                   lambda: self._non_standard_bools(device, dtype, op))

    def _non_standard_bools(self, device, dtype, op):
        gen = torch.Generator().manual_seed(0)

        def non_standard(t):
            if not isinstance(t, torch.Tensor) or t.dtype != torch.bool:
                return t
            # False stays 0, True becomes a byte in [2, 255), on CPU, over the
            # whole storage, so a view keeps its strides and offset; the copy
            # to tpu (opinfo_harness.mirror) moves the bytes as they are
            n = t.untyped_storage().nbytes()
            raw = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage(), 0, (n,), (1,))
            true = torch.randint(2, 255, (n,), dtype=torch.uint8, generator=gen)
            odd = torch.where(raw != 0, true, torch.zeros((), dtype=torch.uint8))
            return torch.empty(0, dtype=torch.bool).set_(odd.untyped_storage(), t.storage_offset(),
                                                          t.size(), t.stride())

        def truth(x):  # bool results compared by truth value, not by byte
            if isinstance(x, torch.Tensor) and x.dtype == torch.bool:
                return x.cpu().view(torch.uint8) != 0
            return x

        compared = 0
        for i, sample in enumerate(_samples(op, dtype)):
            odd = sample.transform(non_standard)
            if not any(isinstance(t, torch.Tensor) and t.dtype == torch.bool and t.numel()
                       and bool((t.view(torch.uint8) > 1).any())
                       for t in pytree.tree_leaves((odd.input, odd.args, odd.kwargs))):
                continue  # no True in any bool input: nothing non-standard to see
            s, o = moved(sample, device), moved(odd, device)
            _seed()
            with torch_tpu.no_fallback():
                expected = call(op, s)
            _seed()
            with torch_tpu.no_fallback():
                actual = call(op, o)
            self.assertEqual(pytree.tree_map(truth, actual), pytree.tree_map(truth, expected),
                             atol=0, rtol=0, msg=f"non-standard bools change the result (sample {i})")
            compared += 1
        if not compared:
            self.skipTest(f"no bool sample of {op.name} holds a True")

    @ops(OPS, dtypes=OpDTypes.none)
    def test_dtypes(self, device, op):
        differ = self._dtypes(device, op)
        gap = GAPS.get(_full_name(op))
        if gap is None:
            self.assertFalse(differ, f"{op.name}: dtypes where tpu and CPU differ:\n" + "\n".join(differ.values()))
            return
        # strict: exactly the dtypes DTYPE_GAPS names differ
        self.assertEqual(set(differ), gap[0],
                         f"{op.name}: the dtypes where tpu and CPU differ are not DTYPE_GAPS' "
                         f"({' '.join(sorted(gap[0]))}): update the table\n" + "\n".join(differ.values()))
        pytest.xfail(gap[1])

    def _dtypes(self, device, op) -> dict:
        """{dtype name: how tpu and CPU differ} over DTYPES."""
        differ = {}
        for dtype in DTYPES:
            name = str(dtype).removeprefix("torch.")
            try:
                samples = _samples(op, dtype, limit=MAX_DTYPE_SAMPLES)
            except Exception:
                continue  # the OpInfo cannot make samples of this dtype at all
            for sample in samples:
                cpu_error = tpu_error = None
                try:
                    _seed()
                    call(op, moved(sample, "cpu"))
                except Exception as e:
                    cpu_error = e
                try:
                    _seed()
                    with torch_tpu.no_fallback():
                        call(op, moved(sample, device))
                except Exception as e:
                    tpu_error = e
                try:  # a kernel that fails after its launch was accepted is a defect whatever CPU does
                    torch.tpu.synchronize()
                except RuntimeError as e:
                    differ[name] = f"{name}: the tpu kernel failed after the launch: {str(e)[:200]}"
                    break
                if cpu_error is not None and tpu_error is None and cuda_dtype_reference.cpu_lacks(op, dtype):
                    continue  # CUDA's dtype, which CPU lacks
                if not _same_outcome(cpu_error, tpu_error):
                    differ[name] = (f"{name}: cpu {'runs' if cpu_error is None else repr(cpu_error)[:120]}"
                                    f", tpu {'runs' if tpu_error is None else repr(tpu_error)[:200]}")
                    break
        return differ


instantiate(TestCommonTPU, globals())


def test_tables_name_existing_tests():
    """Every XFAILS and DTYPE_GAPS row names an OpInfo tested here (a stale or
    mistyped row is an error, not a silent no-op)."""
    names = {_full_name(op) for op in OPS}
    stale = sorted({name for name in GAPS if name not in names} |
                   {key[1] for key in XFAILS if key[1] not in names})
    assert not stale, f"rows naming no OpInfo of the generated tests: {stale}"
