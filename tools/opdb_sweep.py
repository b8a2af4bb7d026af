"""Which aten operators do torch's op_db and module_db still miss on tpu?

Runs the samples of every op_db entry (float32, or the entry's first CPU
dtype) forward and, where the entry supports autograd, backward, with the
fallback policy `error`, and collects the operators that raise "has no tpu
kernel". Prints them by how many op_db entries each one blocks. This is a
planning tool for kernel waves, not a test: the generated tests are the
contract.

    python tools/opdb_sweep.py [--samples N] [--filter SUBSTRING]

--cuda-dtypes: the (entry, dtype) pairs CUDA supports and CPU does not
(op.supported_dtypes("cuda") - op.supported_dtypes("cpu"); complex32 only
with --complex32), each run over its samples on tpu against CPU computing in
a wider dtype (tests/cuda_dtype_reference.py, as the generated tests do);
prints each pair's outcome and how many run.

--dtypes bool,uint8,...: the same per (entry, dtype) for the entries named by
--filter, in each dtype CPU or CUDA supports (the reference: CPU in that
dtype, or widened where only CUDA has it).
"""

import argparse
import collections
import os
import re
import sys
import warnings

import torch
import torch_tpu  # noqa: F401  (registers the device)
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_flatten, tree_map

MISSING = re.compile(r"operator '([^']+)' has no tpu kernel")


def _to_tpu(value):
    if isinstance(value, torch.Tensor):
        moved = value.detach().to("tpu")
        return moved.requires_grad_(value.requires_grad)
    return value


def _missing_op(error):
    match = MISSING.search(str(error))
    return match.group(1) if match else None


def _run_sample(op, sample, grad):
    args = tree_map(_to_tpu, (sample.input, *sample.args))
    kwargs = tree_map(_to_tpu, sample.kwargs)
    out = op(*args, **kwargs)
    if not grad:
        return
    outs = [t for t in tree_flatten(out)[0]
            if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point]
    if outs:
        sum(o.float().sum() for o in outs).backward()


def sweep(samples, name_filter):
    blocked = collections.defaultdict(set)    # aten op -> op_db entries
    other = {}                                 # op_db entry -> first other error
    for info in op_db:
        name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
        if name_filter and name_filter not in name:
            continue
        dtypes = info.supported_dtypes("cpu")
        if not dtypes:
            continue
        dtype = torch.float32 if torch.float32 in dtypes else sorted(dtypes, key=str)[0]
        for grad in (False, True):
            if grad and not (info.supports_autograd and dtype.is_floating_point):
                continue
            try:
                sample_list = list(info.sample_inputs("cpu", dtype, requires_grad=grad))[:samples]
            except Exception:
                continue
            for sample in sample_list:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        _run_sample(info.op, sample, grad)
                except NotImplementedError as error:
                    missing = _missing_op(error)
                    if missing:
                        blocked[missing].add(name + (" (grad)" if grad else ""))
                    else:
                        other.setdefault(name, f"{type(error).__name__}: {str(error)[:160]}")
                except Exception as error:  # reported, not fatal: this is a survey
                    other.setdefault(name, f"{type(error).__name__}: {str(error)[:160]}")
    return blocked, other


def _close(actual, expected, values):
    from opinfo_harness import to_cpu  # conjugate views and complex32 without device kernels

    a_leaves, e_leaves = tree_flatten(actual)[0], tree_flatten(expected)[0]
    assert len(a_leaves) == len(e_leaves), f"{len(a_leaves)} results on tpu, {len(e_leaves)} expected"
    for a, e in zip(a_leaves, e_leaves):
        if isinstance(e, torch.Tensor):
            assert isinstance(a, torch.Tensor) and a.device.type == "tpu", (
                f"tpu returned {type(a).__name__} on {getattr(a, 'device', None)}")
            assert a.dtype == e.dtype and a.shape == e.shape, (
                f"{a.dtype} {tuple(a.shape)}, expected {e.dtype} {tuple(e.shape)}")
            if values:
                torch.testing.assert_close(to_cpu(a), e, equal_nan=True, check_stride=False)
        elif isinstance(e, (int, float, complex, bool)) and values:
            torch.testing.assert_close(a, e, equal_nan=True)


def _comparable(info, dtype) -> bool:
    """Whether torch compares this OpInfo's values against CPU in dtype (not
    for random outputs such as rrelu's: their shapes and dtypes only)."""
    from codegen.facts import opinfo_index

    name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
    facts = opinfo_index.load().named(name)
    return not facts or facts[0].comparable(str(dtype).replace("torch.", "")) is None


def check_pair(info, dtype, samples=None):
    """Runs an entry's samples in dtype on tpu against the reference; returns
    (samples that ran on tpu, samples both refused, None) or (.., .., first
    failure)."""
    import cuda_dtype_reference as ref

    lacks = ref.cpu_lacks(info, dtype)
    values = _comparable(info, dtype)
    try:
        sample_list = list(info.sample_inputs("cpu", dtype))[:samples]
    except Exception as error:
        return 0, 0, f"no samples: {type(error).__name__}: {str(error)[:120]}"
    from opinfo_harness import _reaches_device, moved

    compared = refused = 0
    for sample in sample_list:
        if not _reaches_device(sample):  # Python scalars only: runs on CPU whatever the device
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    expected = (ref.reference(info, sample, dtype, post=sample.output_process_fn_grad) if lacks
                                else sample.output_process_fn_grad(
                                    info.op(sample.input, *sample.args, **sample.kwargs)))
                except Exception as cpu_error:
                    try:
                        _run_sample(info.op, sample, False)
                        torch.tpu.synchronize()
                    except type(cpu_error):
                        refused += 1
                        continue
                    raise AssertionError(f"the reference raised {type(cpu_error).__name__}, tpu did not")
                s = moved(sample, "tpu")
                actual = sample.output_process_fn_grad(info.op(s.input, *s.args, **s.kwargs))
                _close(actual, expected, values)
            compared += 1
        except Exception as error:
            return compared, refused, f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
    if not compared:
        return compared, refused, "no sample ran: tpu refused every one, as the reference did"
    return compared, refused, None


def sweep_dtypes(entries, dtypes, samples):
    """(name, dtype, 'cpu'/'cuda', ran, refused, failure) per pair: where the
    reference comes from (CPU in the dtype, or widened for a CUDA-only one)."""
    rows = []
    for info in entries:
        name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
        for dtype in dtypes:
            if dtype in info.supported_dtypes("cpu"):
                where = "cpu"
            elif dtype in info.supported_dtypes("cuda"):
                where = "cuda"
            else:
                continue
            rows.append((name, str(dtype).replace("torch.", ""), where, *check_pair(info, dtype, samples)))
    return rows


def cuda_pairs(complex32: bool):
    out = []
    for info in op_db:
        extra = info.supported_dtypes("cuda") - info.supported_dtypes("cpu")
        for dtype in sorted(extra, key=str):
            if dtype == torch.complex32 and not complex32:
                continue
            out.append((info, dtype))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=None,
                        help="samples per entry and dtype (default: all; the first 3 missed repeat_interleave.Tensor)")
    parser.add_argument("--filter", default="")
    parser.add_argument("--errors", action="store_true", help="also list other errors")
    parser.add_argument("--cuda-dtypes", action="store_true",
                        help="the (entry, dtype) pairs only CUDA supports: which run on tpu")
    parser.add_argument("--complex32", action="store_true", help="with --cuda-dtypes: complex32 too")
    parser.add_argument("--dtypes", default="",
                        help="comma-separated dtypes: sweep the --filter entries in each")
    options = parser.parse_args(argv)
    torch_tpu.set_fallback_policy("error")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path[:0] = [os.path.join(root, "tests"), root]  # cuda_dtype_reference; codegen's OpInfo facts
    if options.cuda_dtypes or options.dtypes:
        if options.cuda_dtypes:
            rows = []
            for info, dtype in cuda_pairs(options.complex32):
                name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
                if options.filter and options.filter not in name:
                    continue
                rows.append((name, str(dtype).replace("torch.", ""), "cuda",
                             *check_pair(info, dtype, options.samples)))
        else:
            names = [n for n in options.filter.split(",") if n]
            entries = [i for i in op_db if not names or
                       (i.name + ("." + i.variant_test_name if i.variant_test_name else "")) in names
                       or i.name in names]
            dtypes = [getattr(torch, d) for d in options.dtypes.split(",")]
            rows = sweep_dtypes(entries, dtypes, options.samples)
        for name, dtype, where, compared, refused, failure in rows:
            print(f"{name:45s} {dtype:10s} {where:4s} {'ok' if failure is None else 'FAIL'} "
                  f"({compared} ran, {refused} refused as the reference)"
                  f"{'' if failure is None else ': ' + failure}")
        ok = sum(1 for r in rows if r[5] is None)
        print(f"{ok} of {len(rows)} (entry, dtype) pairs run on tpu and match the reference")
        return 0
    blocked, other = sweep(options.samples, options.filter)
    entries = {e.split(" ")[0] for users in blocked.values() for e in users}
    print(f"{len(blocked)} aten operators without a tpu kernel block {len(entries)} op_db entries")
    for aten, users in sorted(blocked.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{aten:45s} {len(users):3d}  {', '.join(sorted(users))[:200]}")
    if options.errors:
        print(f"\n{len(other)} entries with other errors (not necessarily tpu's: CPU may raise too)")
        for name, message in sorted(other.items()):
            print(f"{name:40s} {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
