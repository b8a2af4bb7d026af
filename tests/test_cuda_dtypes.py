"""CUDA's dtypes where CPU's are narrower, beyond what the generated OpInfo
checks reach: integer histc as transformers' MoE routing calls it (with
CUDA's errors), abs and softsign of bool. (Antialiased upsampling in
float16/bfloat16, forward and backward: tests/test_upsample_kernels.py.)
References: values written out by hand, or the emulation of CUDA's kernel
(tests/cuda_dtype_reference.py)."""

import pytest
import torch

import cuda_dtype_reference as ref

torch_tpu = pytest.importorskip("torch_tpu")

INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


# --- histc of integers (CUDA's SummaryOps.cu) ---------------------------------

@pytest.mark.parametrize("dtype", INTS)
def test_histc_integer_moe_routing(dtype):
    """transformers' MoE layers count tokens per expert with
    torch.histc(ids, bins=E, min=0, max=E) and (bins=E, min=0, max=E-1):
    an id equal to max goes in the last bin, ids outside [min, max] are
    dropped; the counts have the ids' dtype."""
    E = 4
    ids = torch.tensor([0, 1, 1, 2, 3, 3, 3, 5], dtype=dtype)  # 5 is out of range
    with torch_tpu.no_fallback():
        a = torch.histc(ids.to("tpu"), bins=E, min=0, max=E)
        b = torch.histc(ids.to("tpu"), bins=E, min=0, max=E - 1)
    assert a.dtype == dtype and a.device.type == "tpu"
    # max=E: bin = id; max=E-1: bin = id * 4 // 3 (1 -> 1, 2 -> 2, 3 -> 4 -> last)
    assert a.cpu().tolist() == [1, 2, 1, 3]
    assert b.cpu().tolist() == [1, 2, 1, 3]
    ids2 = torch.tensor([0, 2, 3], dtype=dtype)
    assert torch.histc(ids2.to("tpu"), bins=4, min=0, max=3).cpu().tolist() == [1, 0, 1, 1]


@pytest.mark.parametrize("dtype", INTS)
def test_histc_integer_matches_cudas_semantics(dtype):
    """Random ids in every dtype, bins that do not divide the range, a range
    from the data (min == max), out=: against the emulation of CUDA's
    kernel (int64 bin arithmetic, bounds narrowed to the dtype)."""
    g = torch.Generator().manual_seed(0)
    low = 0 if dtype == torch.uint8 else -20
    x = torch.randint(low, 40, (3, 257), generator=g).to(dtype)
    for bins, lo, hi in [(7, 0, 30), (13, low // 4, 17), (1, 0, 0), (100, 3, 3), (5, 0.9, 10.7)]:
        want = ref._histc_integer(x, bins, lo, hi)
        got = torch.histc(x.to("tpu"), bins=bins, min=lo, max=hi)
        assert torch.equal(got.cpu(), want), (bins, lo, hi)
    out = torch.empty(0, dtype=dtype, device="tpu")
    torch.histc(x.to("tpu"), bins=9, min=low // 7, max=25, out=out)
    assert torch.equal(out.cpu(), ref._histc_integer(x, 9, low // 7, 25))


def test_histc_integer_errors_are_cudas():
    x = torch.zeros(3, dtype=torch.uint8, device="tpu")
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        torch.histc(x, bins=4, min=-10, max=0)  # -10 is 246 as uint8
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        torch.histc(x.to(torch.int32), bins=0, min=0, max=3)


# --- abs of bool -----------------------------------------------------------------

def test_abs_and_softsign_of_bool():
    x = torch.tensor([True, False, True])
    got = torch.abs(x.to("tpu"))
    assert got.dtype == torch.bool and got.cpu().tolist() == [True, False, True]
    s = torch.nn.functional.softsign(x.to("tpu"))
    torch.testing.assert_close(s.cpu(), torch.tensor([0.5, 0.0, 0.5]))
