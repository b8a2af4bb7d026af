"""Which aten operators do torch's op_db and module_db still miss on tpu?

Runs the samples of every op_db entry (float32, or the entry's first CPU
dtype) forward and, where the entry supports autograd, backward, with the
fallback policy `error`, and collects the operators that raise "has no tpu
kernel". Prints them by how many op_db entries each one blocks. This is a
planning tool for kernel waves, not a test: the generated tests are the
contract.

    python tools/opdb_sweep.py [--samples N] [--filter SUBSTRING]
"""

import argparse
import collections
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=None,
                        help="samples per entry and dtype (default: all; the first 3 missed repeat_interleave.Tensor)")
    parser.add_argument("--filter", default="")
    parser.add_argument("--errors", action="store_true", help="also list other errors")
    options = parser.parse_args(argv)
    torch_tpu.set_fallback_policy("error")
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
