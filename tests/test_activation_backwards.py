"""hardtanh (+ in-place, out=, backward), leaky_relu and elu (+ backwards)
on tpu against CPU eager, for every floating dtype, including NaN and values on
the clamp bounds, forward and through autograd. The backwards are elementwise
kernels (kernels/elementwise/nn_pointwise.cpp) that no OpInfo calls directly."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def sample(dtype):
    # 133 elements: CPU computes the first 64 or 128 in its vectorized loop
    # on AVX2 and AVX-512 alike (float16: two vectors of 16 or 32), and the
    # special values below are among them. CPU's scalar tail treats NaN
    # otherwise in elu's backward, so a smaller sample compared a different
    # CPU path on each machine.
    g = torch.Generator().manual_seed(0)
    x = torch.randn(7, 19, generator=g, dtype=torch.float64) * 2
    x[0, :4] = torch.tensor([-1.0, 1.0, float("nan"), 0.0], dtype=torch.float64)
    return x.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("fn", [lambda t: F.hardtanh(t), lambda t: F.hardtanh(t, -0.5, 2.0),
                                lambda t: F.leaky_relu(t), lambda t: F.leaky_relu(t, 0.3),
                                lambda t: F.leaky_relu(t, -0.2)], ids=["hardtanh", "hardtanh_bounds",
                                                                       "leaky_relu", "leaky_relu_0.3",
                                                                       "leaky_relu_negative"])
def test_forward_and_backward_match_cpu(fn, dtype):
    x = sample(dtype)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    y_cpu = fn(xc)
    with torch_tpu.no_fallback():
        y = fn(xt)
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach(), equal_nan=True, atol=0, rtol=0)
    g = torch.randn(x.shape, dtype=torch.float64).to(dtype)
    (gc,) = torch.autograd.grad(y_cpu, xc, g)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(y, xt, g.to("tpu"))
    torch.testing.assert_close(gt.cpu(), gc, equal_nan=True, atol=0, rtol=0)


ELU = [lambda t: F.elu(t), lambda t: F.elu(t, 0.5), lambda t: F.selu(t), lambda t: F.celu(t, 1.5),
       lambda t: torch.ops.aten.elu(t, 1.2, 0.8, 1.5)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("fn", ELU, ids=["elu", "elu_alpha", "selu", "celu", "elu_scales"])
def test_elu_family_matches_cpu(fn, dtype):
    # selu and celu decompose into elu. exp/expm1 differ from CPU's
    # vectorized ones by an ulp or so: float tolerances, not exact.
    x = sample(dtype)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    y_cpu = fn(xc)
    with torch_tpu.no_fallback():
        y = fn(xt)
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach(), equal_nan=True)
    g = torch.randn(x.shape, dtype=torch.float64).to(dtype)
    (gc,) = torch.autograd.grad(y_cpu, xc, g)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(y, xt, g.to("tpu"))
    torch.testing.assert_close(gt.cpu(), gc, equal_nan=True)


@pytest.mark.parametrize("is_result", [False, True])
def test_elu_backward_from_input_or_result(is_result):
    # is_result=True is what elu_'s derivative passes (the output, not the input).
    x = sample(torch.float32)
    g = torch.randn(x.shape)
    a = F.elu(x, 0.7) if is_result else x
    expected = torch.ops.aten.elu_backward(g, 0.7, 1.0, 1.0, is_result, a)
    with torch_tpu.no_fallback():
        actual = torch.ops.aten.elu_backward(g.to("tpu"), 0.7, 1.0, 1.0, is_result, a.to("tpu"))
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True)


def test_hardtanh_inplace_and_out():
    x = sample(torch.float32)
    xt = x.to("tpu")
    with torch_tpu.no_fallback():
        r = F.hardtanh_(xt, -0.3, 0.4)
        out = torch.empty(0, device="tpu")
        torch._C._nn.hardtanh(x.to("tpu"), -0.3, 0.4, out=out)
    assert r is xt
    expected = F.hardtanh(x, -0.3, 0.4)
    torch.testing.assert_close(xt.cpu(), expected, equal_nan=True)
    torch.testing.assert_close(out.cpu(), expected, equal_nan=True)


def test_errors():
    with pytest.raises(NotImplementedError):
        F.elu(torch.ones(3, dtype=torch.long, device="tpu"))
    with pytest.raises(RuntimeError, match="negative slope"):
        torch.ops.aten.elu_backward(torch.ones(3, device="tpu"), -1.0, 1.0, 1.0, True, torch.ones(3, device="tpu"))
    with pytest.raises(NotImplementedError):
        F.leaky_relu(torch.ones(3, dtype=torch.long, device="tpu"))
    with pytest.raises(RuntimeError, match="negative slope"):
        torch.ops.aten.leaky_relu_backward(torch.ones(3, device="tpu"), torch.ones(3, device="tpu"), -0.1, True)
