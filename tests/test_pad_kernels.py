"""Reflection and replication padding on tpu against CPU eager: 1d/2d/3d,
batched and unbatched, asymmetric and negative (cropping) padding, every
dtype forward (the kernel moves bits), floating and complex backward through
autograd,
channels-last input, and ATen's errors for padding larger than the input."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

CASES = [  # (shape, pad)
    ((2, 3, 7), (2, 3)),
    ((3, 7), (0, 4)),
    ((2, 3, 5, 6), (1, 2, 3, 0)),
    ((3, 5, 6), (2, 2, 1, 1)),
    ((1, 2, 4, 5, 3), (1, 2, 0, 1, 2, 1)),
    ((2, 4, 5, 3), (2, 0, 1, 3, 1, 1)),
]


def rand(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 5
    if not dtype.is_complex:
        return x.to(dtype)
    return torch.complex(x, torch.randn(shape, generator=g, dtype=torch.float64) * 5).to(dtype)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16,
                                   torch.complex64, torch.complex128], ids=str)
def test_forward_and_backward_match_cpu(mode, case, dtype):
    shape, pad = case
    x = rand(shape, dtype)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    y_cpu = F.pad(xc, pad, mode=mode)
    with torch_tpu.no_fallback():
        y = F.pad(xt, pad, mode=mode)
    assert torch.equal(y.detach().cpu(), y_cpu.detach())  # a gather: exact
    g = rand(y_cpu.shape, dtype, seed=1)
    (gc,) = torch.autograd.grad(y_cpu, xc, g)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(y, xt, g.to("tpu"))
    tol = dict(atol=5e-2, rtol=2e-2) if dtype in (torch.float16, torch.bfloat16) else {}
    torch.testing.assert_close(gt.cpu(), gc, **tol)


@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.bool, torch.complex64, torch.complex128], ids=str)
def test_forward_any_dtype(dtype):
    x = rand((2, 3, 4, 5), dtype) if dtype != torch.bool else rand((2, 3, 4, 5)) > 0
    for mode in ("reflect", "replicate"):
        try:
            expected = F.pad(x, (1, 2, 2, 1), mode=mode)
        except RuntimeError as e:  # CPU's dtype coverage is the reference
            with pytest.raises(type(e)):
                F.pad(x.to("tpu"), (1, 2, 2, 1), mode=mode)
            continue
        with torch_tpu.no_fallback():
            assert torch.equal(F.pad(x.to("tpu"), (1, 2, 2, 1), mode=mode).cpu(), expected)


def test_negative_padding_crops_and_channels_last():
    x = rand((2, 3, 6, 7))
    for pad in [(-1, 2, -2, 0), (-2, -1, 1, -3)]:
        expected = F.pad(x, pad, mode="replicate")
        assert torch.equal(F.pad(x.to("tpu"), pad, mode="replicate").cpu(), expected)
    cl = x.contiguous(memory_format=torch.channels_last)
    y_cpu = F.pad(cl, (1, 1, 2, 2), mode="reflect")
    y = F.pad(cl.to("tpu"), (1, 1, 2, 2), mode="reflect")
    assert y.stride() == y_cpu.stride()
    assert torch.equal(y.cpu(), y_cpu)


@pytest.mark.parametrize("pad,match", [((3, 0, 0, 0), "Padding size should be less than"),
                                       ((0, 0, 5, 0), "Padding size should be less than")])
def test_reflection_padding_larger_than_input(pad, match):
    x = rand((1, 2, 4, 3))
    with pytest.raises(RuntimeError, match=match):
        F.pad(x, pad, mode="reflect")
    xt = x.to("tpu")
    before = torch_tpu.stats()["launches"]
    with pytest.raises(RuntimeError, match=match):
        F.pad(xt, pad, mode="reflect")
    assert torch_tpu.stats()["launches"] == before
