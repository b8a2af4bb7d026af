"""How many of op_db's (entry, dtype) pairs run on tpu and match CPU?

For every op_db entry whose CPU dtypes include the dtype (default
complex32), runs each sample on CPU and on tpu (fallback policy `error`)
and compares the results (torch.testing.assert_close, dtypes exact; shapes
and dtypes only for the entries whose values are undefined or random).
An entry counts as passing when every sample does. Prints the failing
entries with their first error, then the totals. A planning and reporting
tool, not a test: the generated tests are the contract.

    python tools/opdb_dtype_sweep.py [--dtype complex32] [--filter SUBSTRING] [--verbose]
"""

import argparse
import sys
import warnings

import torch
import torch_tpu  # noqa: F401  (registers the device)
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_flatten, tree_map

# Values undefined (empty) or random: compare shape, dtype and device only.
METADATA_ONLY = {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_permuted",
                 "randn", "randn_like", "rand_like"}


def _to_tpu(value):
    if isinstance(value, torch.Tensor):
        return value.detach().to("tpu").requires_grad_(value.requires_grad)
    if isinstance(value, torch.device) and value.type == "cpu":
        return torch.device("tpu")
    if value == "cpu":
        return "tpu"
    return value


def _compare(name, expected, actual):
    exp, _ = tree_flatten(expected)
    act, _ = tree_flatten(actual)
    assert len(exp) == len(act), f"{len(act)} results, CPU gives {len(exp)}"
    for e, a in zip(exp, act):
        if not isinstance(e, torch.Tensor):
            assert e == a or (e != e and a != a), f"{a!r} != CPU's {e!r}"
            continue
        assert isinstance(a, torch.Tensor) and a.device.type == "tpu", f"result on {getattr(a, 'device', a)}"
        if name in METADATA_ONLY:
            assert a.shape == e.shape and a.dtype == e.dtype, f"{a.shape} {a.dtype} vs CPU's {e.shape} {e.dtype}"
        else:
            torch.testing.assert_close(a.cpu(), e, equal_nan=True, check_stride=False)


def sweep(dtype, name_filter, verbose):
    passed, failed = [], {}
    for info in op_db:
        name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
        if name_filter and name_filter not in name:
            continue
        if dtype not in info.supported_dtypes("cpu"):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                samples = list(info.sample_inputs("cpu", dtype))
        except Exception as error:
            failed[name] = f"samples: {type(error).__name__}: {error}"
            continue
        error_text = None
        for i, s in enumerate(samples):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.manual_seed(0)
                    expected = info.op(s.input, *s.args, **s.kwargs)
            except Exception:
                continue  # CPU refuses this sample: nothing to match
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    args = tree_map(_to_tpu, (s.input, *s.args))
                    kwargs = tree_map(_to_tpu, s.kwargs)
                    torch.manual_seed(0)
                    actual = info.op(*args, **kwargs)
                    _compare(info.name, expected, actual)
            except Exception as error:
                error_text = f"sample {i}: {type(error).__name__}: {str(error).splitlines()[0][:200]}"
                break
        if error_text is None:
            passed.append(name)
        else:
            failed[name] = error_text
    return passed, failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="complex32")
    parser.add_argument("--filter", default="")
    parser.add_argument("--verbose", action="store_true", help="also list the passing entries")
    options = parser.parse_args(argv)
    torch_tpu.set_fallback_policy("error")
    dtype = getattr(torch, options.dtype)
    passed, failed = sweep(dtype, options.filter, options.verbose)
    for name, text in sorted(failed.items()):
        print(f"FAIL {name:32s} {text}")
    if options.verbose:
        for name in sorted(passed):
            print(f"pass {name}")
    print(f"{len(passed)} of {len(passed) + len(failed)} op_db entries with {options.dtype} on CPU "
          f"run on tpu and match CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
