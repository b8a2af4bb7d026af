"""col2im (F.fold) on tpu against CPU eager: batched and unbatched input,
kernel/stride/padding/dilation combinations with overlapping windows, every
floating and complex dtype (CPU adds float16/bfloat16 windows in their own
precision, tpu in float: a looser bound there; complex part by part), fold's
backward (im2col), and ATen's shape errors."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

CASES = [  # (input shape, output_size, kwargs)
    ((2, 3 * 4, 12), (4, 5), dict(kernel_size=2)),
    ((3 * 9, 25), (5, 5), dict(kernel_size=3, padding=1)),
    ((1, 2 * 6, 20), (7, 9), dict(kernel_size=(2, 3), stride=(2, 1), dilation=(1, 2), padding=(1, 0))),
    ((2, 4 * 1, 16), (4, 4), dict(kernel_size=1)),
    ((2, 2 * 4, 9), (6, 6), dict(kernel_size=2, stride=2)),
]
TOL = {torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=5e-2, rtol=2e-2),
       torch.float32: {}, torch.float64: {}, torch.complex64: {}, torch.complex128: {}}


def randn(shape, g, dtype):
    wide = torch.complex128 if dtype.is_complex else torch.float64
    return torch.randn(shape, generator=g, dtype=wide).to(dtype)


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("dtype", list(TOL), ids=str)
def test_fold_matches_cpu(case, dtype):
    shape, size, kw = case
    g = torch.Generator().manual_seed(0)
    x = randn(shape, g, dtype)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    expected = F.fold(xc, size, **kw)
    with torch_tpu.no_fallback():
        actual = F.fold(xt, size, **kw)
    assert actual.shape == expected.shape and actual.stride() == expected.stride()
    torch.testing.assert_close(actual.detach().cpu(), expected.detach(), **TOL[dtype])
    # fold's backward is unfold (im2col): a gather, exact.
    grad = randn(expected.shape, g, dtype)
    (gc,) = torch.autograd.grad(expected, xc, grad)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(actual, xt, grad.to("tpu"))
    assert torch.equal(gt.cpu(), gc)


def test_non_contiguous_input():
    x = torch.randn(12, 2, 12).transpose(0, 1)
    expected = F.fold(x, (4, 5), kernel_size=2)
    with torch_tpu.no_fallback():
        actual = F.fold(x.to("tpu"), (4, 5), kernel_size=2)
    torch.testing.assert_close(actual.cpu(), expected)


def test_errors_match_cpu():
    bad = [((2, 12, 11), (4, 5), dict(kernel_size=2)),  # 11 blocks, 12 expected
           ((2, 13, 12), (4, 5), dict(kernel_size=2))]  # 13 not divisible by 4
    for shape, size, kw in bad:
        with pytest.raises(RuntimeError) as cpu_error:
            F.fold(torch.ones(shape), size, **kw)
        with pytest.raises(type(cpu_error.value)):
            F.fold(torch.ones(shape, device="tpu"), size, **kw)
    with pytest.raises(NotImplementedError):
        F.fold(torch.ones(2, 12, 12, dtype=torch.long, device="tpu"), (4, 5), kernel_size=2)
