"""Does every op_db entry run compiled on tpu?

Compiles each op_db entry's samples (float32, or the entry's first CPU dtype)
with torch.compile (Inductor) on tpu, forward and, where the entry supports
autograd, backward, and compares outputs and gradients with CPU eager. Prints
the samples that raise and those whose values differ. Entries whose results
are random are left out (they are named at the end). Like opdb_sweep.py, a
survey for planning, not a test: about 20 minutes for the first sample of
every entry on 2 cores. It found the avg_pool divisor_override failure that
test_compile.py's avg_pool_divisor case now covers.

    python tools/opdb_compile_sweep.py [--samples N] [--filter SUBSTRING]

Known, not tpu's: the OpInfos that wrap their op in torch.testing's
freeze_rng_state (item, dropout samples of scaled_dot_product_attention and
multi_head_attention_forward) fail under Dynamo on CPU as well; sparse
layouts, float8 and complex32 are outside the device (docs/architecture.md, "Scope and known limits").
"""

import argparse
import signal
import sys
import warnings

import torch
import torch._dynamo
import torch_tpu  # noqa: F401  (registers the device)
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_flatten, tree_map

RANDOM = ("rand", "dropout", "bernoulli", "multinomial", "normal", "uniform", "cauchy", "exponential",
          "geometric", "empty", "rrelu", "fractional", "lowrank")


class _Timeout(Exception):
    pass


def _alarm(*_):
    raise _Timeout()


def _moved(device):
    def move(v):
        if isinstance(v, torch.Tensor):
            return v.detach().to(device).requires_grad_(v.requires_grad)
        return v
    return move


def _run(info, sample, device, compiled):
    """Outputs, then the gradients of their sum (complex: of their abs), on CPU."""
    args = tree_map(_moved(device), (sample.input, *sample.args))
    kwargs = tree_map(_moved(device), sample.kwargs)

    def fn(*a, **k):
        return info.op(*a, **k)

    out = (torch.compile(fn) if compiled else fn)(*args, **kwargs)
    outs = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)]
    results = [o.detach().cpu() for o in outs]
    diff = [o for o in outs if o.requires_grad and (o.is_floating_point() or o.is_complex())]
    leaves = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor) and t.requires_grad]
    if diff and leaves:
        grads = torch.autograd.grad([(o.abs() if o.is_complex() else o).sum() for o in diff], leaves,
                                    allow_unused=True)
        results += [g.cpu() for g in grads if g is not None]
    return results


def sweep(samples, name_filter, timeout):
    failures, skipped = [], []
    signal.signal(signal.SIGALRM, _alarm)
    for info in op_db:
        name = info.name + ("." + info.variant_test_name if info.variant_test_name else "")
        if name_filter and name_filter not in name:
            continue
        if any(r in name for r in RANDOM):
            skipped.append(name)
            continue
        dtypes = info.supported_dtypes("cpu")
        if not dtypes:
            continue
        dtype = torch.float32 if torch.float32 in dtypes else sorted(dtypes, key=str)[0]
        grad = info.supports_autograd and dtype.is_floating_point
        try:
            sample_list = list(info.sample_inputs("cpu", dtype, requires_grad=grad))[:samples]
        except Exception:
            continue
        for i, sample in enumerate(sample_list):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    expected = _run(info, sample, "cpu", compiled=False)
                except Exception:
                    continue  # CPU refuses the sample too
                torch._dynamo.reset()
                signal.alarm(timeout)
                try:
                    actual = _run(info, sample, "tpu", compiled=True)
                except _Timeout:
                    failures.append(f"{name} sample {i}: no result in {timeout} s")
                    continue
                except Exception as e:
                    lines = str(e).strip().splitlines()
                    failures.append(f"{name} sample {i}: {type(e).__name__}: {' | '.join(lines[:3])[:300]}")
                    continue
                finally:
                    signal.alarm(0)
            try:
                assert len(actual) == len(expected), f"{len(actual)} results, CPU {len(expected)}"
                for a, e in zip(actual, expected):
                    torch.testing.assert_close(a, e, equal_nan=True, atol=1e-4, rtol=1e-3)
            except AssertionError as e:
                failures.append(f"{name} sample {i}: values: {' '.join(str(e).split())[:300]}")
        print(f"  {name}", file=sys.stderr, flush=True)
    return failures, skipped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--filter", default="")
    parser.add_argument("--timeout", type=int, default=180, help="seconds per compiled sample")
    options = parser.parse_args(argv)
    failures, skipped = sweep(options.samples, options.filter, options.timeout)
    print(f"{len(failures)} compiled samples failed")
    for line in failures:
        print(line)
    print(f"\nnot compared (random results): {', '.join(skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
