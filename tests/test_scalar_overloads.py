"""The .Scalar overloads of the Core ATen IR (add.Scalar, div.Scalar_mode,
bitwise_and.Scalar, ...), called directly: Python code never reaches them
(torch.add(t, 2) wraps 2 in a tensor and calls add.Tensor), but exported
and decomposed graphs do. Each is a composite entry: it must decompose on
tpu (no host fallback, the overload seen by torch_tpu.trace_ops()) and give
CPU's values and dtype for every dtype and kind of scalar."""

import pytest
import torch

import torch_tpu

aten = torch.ops.aten
DTYPES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64, torch.complex64]
SCALARS = [True, 3, -2, 2.5, -0.75]


def sample(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 5, generator=g, dtype=torch.float64) * 4
    if dtype == torch.bool:
        return x > 0
    if dtype == torch.uint8:
        x = x.abs()
    return x.to(dtype)


CALLS = {
    "add.Scalar": lambda x, s: aten.add.Scalar(x, s, alpha=2 if not isinstance(s, float) else 0.5),
    "sub.Scalar": lambda x, s: aten.sub.Scalar(x, s),
    "mul.Scalar": lambda x, s: aten.mul.Scalar(x, s),
    "div.Scalar": lambda x, s: aten.div.Scalar(x, s),
    "div.Scalar_mode": lambda x, s: aten.div.Scalar_mode(x, s, rounding_mode="floor"),
    "fmod.Scalar": lambda x, s: aten.fmod.Scalar(x, s),
    "remainder.Scalar": lambda x, s: aten.remainder.Scalar(x, s),
    "bitwise_and.Scalar": lambda x, s: aten.bitwise_and.Scalar(x, s),
    "bitwise_or.Scalar": lambda x, s: aten.bitwise_or.Scalar(x, s),
    "bitwise_xor.Scalar": lambda x, s: aten.bitwise_xor.Scalar(x, s),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_scalar_overload_matches_cpu(name, dtype):
    call = CALLS[name]
    x = sample(dtype)
    compared = 0
    for s in SCALARS:
        try:
            expected = call(x, s)
        except (RuntimeError, TypeError, NotImplementedError) as e:
            with pytest.raises(type(e)):
                call(x.to("tpu"), s)
            continue
        torch_tpu.reset_stats()
        with torch_tpu.no_fallback(), torch_tpu.trace_ops():
            actual = call(x.to("tpu"), s)
        assert "composite" in torch_tpu.stats()["ops"].get(f"aten::{name}", {}), name
        assert actual.dtype == expected.dtype
        tol = dict(atol=1e-2, rtol=1e-2) if dtype in (torch.float16, torch.bfloat16) else {}
        torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, **tol)
        compared += 1
    # float32 takes every scalar for all but the bitwise ops (integral only)
    if dtype == torch.float32:
        assert compared >= (0 if name.startswith("bitwise") else len(SCALARS) - 1)  # sub rejects True
    if dtype == torch.int64:
        assert compared > 0
