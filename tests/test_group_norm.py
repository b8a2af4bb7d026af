"""Group norm on tpu against CPU eager: native_group_norm (outputs, mean,
rstd) and native_group_norm_backward (all three gradients, and each alone),
through F.group_norm and autograd, for every floating dtype, with and
without affine parameters, channels-last input, and ATen's errors."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

CASES = [  # (shape, groups)
    ((2, 6, 5, 4), 3),
    ((3, 4, 7), 2),
    ((2, 8), 4),
    ((1, 6, 2, 3, 2), 6),
    ((4, 3, 9, 9), 1),
]
TOL = {torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=5e-2, rtol=2e-2),
       torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: {}}


def rand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * 3 + 1).to(dtype)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("dtype", list(TOL), ids=str)
def test_forward_and_backward_match_cpu(case, dtype, affine):
    shape, groups = case
    x = rand(shape, dtype, 0)
    params = [rand(shape[1], dtype, 1), rand(shape[1], dtype, 2)] if affine else []
    cpu = [t.clone().requires_grad_() for t in [x, *params]]
    tpu = [t.to("tpu").requires_grad_() for t in [x, *params]]
    y_cpu = F.group_norm(cpu[0], groups, *cpu[1:], eps=1e-5)
    with torch_tpu.no_fallback():
        y = F.group_norm(tpu[0], groups, *tpu[1:], eps=1e-5)
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach(), **TOL[dtype])
    g = rand(shape, dtype, 3)
    grads_cpu = torch.autograd.grad(y_cpu, cpu, g)
    with torch_tpu.no_fallback():
        grads = torch.autograd.grad(y, tpu, g.to("tpu"))
    # Gradients sum over a group: float16/bfloat16 keep their looser bound.
    for a, e in zip(grads, grads_cpu):
        torch.testing.assert_close(a.cpu(), e, **(TOL[dtype] or {}), check_stride=False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_statistics_and_mixed_parameters(dtype):
    # native_group_norm returns mean and rstd per (n, group); a bfloat16 input
    # with float weight is ATen's "mixed type" case (float statistics).
    x = rand((3, 6, 4, 4), dtype, 0)
    w, b = rand(6, torch.float32, 1), rand(6, torch.float32, 2)
    expected = torch.ops.aten.native_group_norm(x, w, b, 3, 6, 16, 2, 1e-6)
    with torch_tpu.no_fallback():
        actual = torch.ops.aten.native_group_norm(x.to("tpu"), w.to("tpu"), b.to("tpu"), 3, 6, 16, 2, 1e-6)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        torch.testing.assert_close(a.cpu(), e, **TOL[dtype])


@pytest.mark.parametrize("mask", [(True, False, False), (False, True, True), (True, True, False)], ids=str)
def test_backward_output_mask(mask):
    x, dy = rand((2, 4, 3, 3), torch.float32, 0), rand((2, 4, 3, 3), torch.float32, 1)
    w = rand(4, torch.float32, 2)
    _, mean, rstd = torch.ops.aten.native_group_norm(x, w, None, 2, 4, 9, 2, 1e-5)
    args = (dy, x, mean, rstd, w, 2, 4, 9, 2, list(mask))
    expected = torch.ops.aten.native_group_norm_backward(*args)
    with torch_tpu.no_fallback():
        actual = torch.ops.aten.native_group_norm_backward(
            *[a.to("tpu") if isinstance(a, torch.Tensor) else a for a in args])
    for a, e, wanted in zip(actual, expected, mask):
        assert (a is not None) == wanted and (e is not None) == wanted
        if wanted:
            torch.testing.assert_close(a.cpu(), e, **TOL[torch.float32])


def test_channels_last_keeps_layout():
    x = rand((2, 6, 5, 4), torch.float32, 0).to(memory_format=torch.channels_last)
    w, b = rand(6, torch.float32, 1), rand(6, torch.float32, 2)
    expected = F.group_norm(x, 3, w, b)
    with torch_tpu.no_fallback():
        actual = F.group_norm(x.to("tpu"), 3, w.to("tpu"), b.to("tpu"))
    assert actual.stride() == expected.stride()
    torch.testing.assert_close(actual.cpu(), expected, **TOL[torch.float32])


def test_errors_match_cpu():
    x = torch.ones(2, 6, 3)
    for bad in [lambda t: F.group_norm(t, 4), lambda t: F.group_norm(t, 3, torch.ones(5, device=t.device))]:
        with pytest.raises(RuntimeError) as cpu_error:
            bad(x)
        with pytest.raises(type(cpu_error.value), match="Expected"):
            bad(x.to("tpu"))
    with pytest.raises(NotImplementedError):
        F.group_norm(torch.ones(2, 4, 3, dtype=torch.long, device="tpu"), 2)
