"""The pointwise nn ops, losses and special functions of
kernels/elementwise/nn_pointwise.cpp, special_math.cpp and special_vec.cpp
on tpu against CPU. The backwards are called directly: no OpInfo calls
them, and the forwards' generated gradient checks reach them only with the
default scalars and smooth samples. These inputs hit each branch's
boundary (x = +-3, +-lambd, +-beta, +-delta), zeros, NaN and infinities,
in every floating dtype, with non-default scalars and every reduction.
Complex sinc and logaddexp: CPU's scalar formulas with glibc's complex
functions, so the bits agree, special values included."""

import pytest
import torch
import torch_tpu

aten = torch.ops.aten

FLOATING = [torch.float32, torch.float64, torch.bfloat16, torch.float16]


def _inputs(dtype, seed=0):
    """A 1-D input holding the edge values, then random values."""
    g = torch.Generator().manual_seed(seed)
    edges = torch.tensor([-3.0, 3.0, -0.5, 0.5, -1.0, 1.0, 0.0, -0.0, 2.0, -2.0, 20.0, -20.0,
                          float("nan"), float("inf"), -float("inf")])
    return torch.cat([edges, torch.randn(49, generator=g) * 4]).to(dtype)


def _check(fn, *cpu_args):
    expected = fn(*cpu_args)
    actual = fn(*[a.to("tpu") if isinstance(a, torch.Tensor) else a for a in cpu_args])
    assert actual.device.type == "tpu"
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True)


UNARY_BACKWARDS = {
    "hardswish_backward": lambda g, x: aten.hardswish_backward(g, x),
    "hardsigmoid_backward": lambda g, x: aten.hardsigmoid_backward(g, x),
    "hardshrink_backward": lambda g, x: aten.hardshrink_backward(g, x, 0.5),
    "softshrink_backward": lambda g, x: aten.softshrink_backward(g, x, 1.0),
    "softplus_backward": lambda g, x: aten.softplus_backward(g, x, 2.0, 10.0),
    "mish_backward": lambda g, x: aten.mish_backward(g, x),
    # each device's own buffer: CPU's backward reads what its forward wrote there
    "log_sigmoid_backward": lambda g, x: aten.log_sigmoid_backward(g, x, aten.log_sigmoid_forward(x)[1]),
    "logit_backward": lambda g, x: aten.logit_backward(g, x / 40 + 0.5),
    "logit_backward_eps": lambda g, x: aten.logit_backward(g, x / 40 + 0.5, 0.125),
}


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY_BACKWARDS))
def test_activation_backward_matches_cpu(name, dtype):
    x = _inputs(dtype)
    grad = _inputs(dtype, seed=1).flip(0)
    _check(UNARY_BACKWARDS[name], grad, x)


LOSS_BACKWARDS = {
    "mse_loss_backward": lambda g, x, t, r: aten.mse_loss_backward(g, x, t, r),
    "smooth_l1_loss_backward": lambda g, x, t, r: aten.smooth_l1_loss_backward(g, x, t, r, 0.5),
    "huber_loss_backward": lambda g, x, t, r: aten.huber_loss_backward(g, x, t, r, 2.0),
}


@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", sorted(LOSS_BACKWARDS))
def test_loss_backward_matches_cpu(name, dtype, reduction):
    x = _inputs(dtype)
    target = _inputs(dtype, seed=2).roll(3)
    grad = _inputs(dtype, seed=1) if reduction == 0 else torch.tensor(0.75, dtype=dtype)
    _check(LOSS_BACKWARDS[name], grad, x, target, reduction)


FORWARDS = {
    "hardswish": torch.nn.functional.hardswish,
    "hardsigmoid": torch.nn.functional.hardsigmoid,
    "hardshrink": lambda x: torch.nn.functional.hardshrink(x, 0.5),
    "softshrink": lambda x: torch.nn.functional.softshrink(x, 1.0),
    "softplus": lambda x: torch.nn.functional.softplus(x, 2.0, 10.0),
    "mish": torch.nn.functional.mish,
    "logsigmoid": torch.nn.functional.logsigmoid,
    "sinc": torch.sinc,
    "lgamma": torch.lgamma,
    "erfc": torch.erfc,
    "digamma": torch.digamma,
    "erfinv": lambda x: torch.erfinv(x / 3),
    "logit": lambda x: torch.logit(x / 40 + 0.5),
    "logit_eps": lambda x: torch.logit(x / 40 + 0.5, eps=0.125),
}


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_activation_edges_match_cpu(name, dtype):
    _check(FORWARDS[name], _inputs(dtype))


BINARY = {"logaddexp": torch.logaddexp, "logaddexp2": torch.logaddexp2, "copysign": torch.copysign,
          "heaviside": torch.heaviside}


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_edges_match_cpu(name, dtype):
    x = _inputs(dtype)
    _check(BINARY[name], x, _inputs(dtype, seed=4).flip(0))
    _check(BINARY[name], x, x)  # equal infinities, equal NaNs, zeros against zeros


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu_backward_matches_cpu(dtype, dim):
    x = _inputs(dtype).reshape(8, 8)
    grad = _inputs(dtype, seed=5).reshape(8, 8).narrow(dim, 0, 4).clone()
    _check(lambda g, t: aten.glu_backward(g, t, dim), grad, x)
    out = torch.empty(0, dtype=dtype)
    _check(lambda g, t, o: aten.glu_backward.grad_input(g, t, dim, grad_input=o), grad, x, out)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
@pytest.mark.parametrize("channels", [1, 4])
def test_prelu_backward_matches_cpu(dtype, channels):
    x = _inputs(dtype).reshape(4, 4, 4)  # (N, C, L): weight broadcast over C
    weight = _inputs(dtype, seed=6)[:channels].reshape(1, channels, 1).nan_to_num()
    grad = _inputs(dtype, seed=7).reshape(4, 4, 4)
    for k in (0, 1):
        _check(lambda g, t, w: aten._prelu_kernel_backward(g, t, w)[k], grad, x, weight)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_binary_cross_entropy_backward_matches_cpu(dtype, reduction, weighted):
    g = torch.Generator().manual_seed(8)
    x = torch.cat([torch.tensor([0.0, 1.0, 1e-30, 0.5]), torch.rand(60, generator=g)]).to(dtype)
    t = torch.cat([torch.tensor([0.0, 1.0, 1.0, 0.25]), torch.rand(60, generator=g)]).to(dtype)
    grad = torch.randn(64, generator=g).to(dtype) if reduction == 0 else torch.tensor(0.5, dtype=dtype)
    w = torch.rand(64, generator=g).to(dtype) if weighted else None
    _check(lambda gr, a, b, *ws: aten.binary_cross_entropy_backward(gr, a, b, ws[0] if ws else None, reduction),
           grad, x, t, *([w] if weighted else []))
    _check(lambda a, b, *ws: aten.binary_cross_entropy(a, b, ws[0] if ws else None, reduction),
           x, t, *([w] if weighted else []))


def test_binary_cross_entropy_rejects_inputs_outside_0_1_as_cpu():
    x, t = torch.tensor([0.5, 1.5]), torch.tensor([0.0, 1.0])
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        torch.nn.functional.binary_cross_entropy(x, t)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        torch.nn.functional.binary_cross_entropy(x.to("tpu"), t.to("tpu"))


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_xlogy_edges_match_cpu(dtype):
    x = _inputs(dtype)
    y = _inputs(dtype, seed=3).flip(0).abs()
    _check(torch.xlogy, x, y)
    _check(torch.xlogy, torch.zeros_like(x), _inputs(dtype))  # 0 * log(anything but NaN) is 0


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int64], ids=str)
def test_signbit_and_nan_to_num_of_integers_match_cpu(dtype):
    # ATen answers these without the stub (signbit: false for unsigned and
    # bool; nan_to_num: a copy), so the generated tests, which check that the
    # stub kernel ran, leave them out.
    x = torch.tensor([0, 1, 5, 7], dtype=dtype) if dtype in (torch.bool, torch.uint8) else \
        torch.tensor([-3, 0, 2, -1], dtype=dtype)
    _check(torch.signbit, x)
    _check(torch.nan_to_num, x)



@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_nan_to_num_of_complex_replaces_each_part(dtype):
    # the OpInfo lists real dtypes only; CPU (and tpu) replace NaN and
    # infinities in the real and imaginary parts separately, with the real
    # dtype's defaults, in place, out= and non-contiguous too
    special = [0.0, -1.5, float("nan"), float("inf"), -float("inf")]
    x = torch.tensor([complex(a, b) for a in special for b in special], dtype=dtype).reshape(5, 5)
    with torch_tpu.no_fallback():
        _check(torch.nan_to_num, x)
        _check(lambda t: torch.nan_to_num(t, nan=1.0, posinf=2.0, neginf=-3.0), x)
        _check(lambda t: torch.nan_to_num(t.t()), x)
        _check(lambda t: t.clone().nan_to_num_(0.5), x)
        _check(lambda t: torch.nan_to_num(t, out=torch.empty_like(t)), x)


COMPLEX_PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-20, 30.0, -30.0, 100.0, -800.0, 1e30,
                 float("inf"), -float("inf"), float("nan")]


def _complex_inputs(dtype, n=4001, seed=0):
    """Every pair of COMPLEX_PARTS, then random values at two scales."""
    g = torch.Generator().manual_seed(seed)
    grid = torch.tensor([complex(a, b) for a in COMPLEX_PARTS for b in COMPLEX_PARTS], dtype=torch.complex128)
    r = torch.randn(n, generator=g, dtype=torch.complex128)
    return torch.cat([grid, r, r * 20]).to(dtype)


def _same_bits(actual, expected):
    a, e = torch.view_as_real(actual.cpu()), torch.view_as_real(expected)
    torch.testing.assert_close(a, e, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_sinc_and_logaddexp_match_cpu_exactly(dtype):
    x = _complex_inputs(dtype)
    y = _complex_inputs(dtype, seed=1).flip(0)
    xt, yt = x.to("tpu"), y.to("tpu")
    _same_bits(torch.sinc(xt), torch.sinc(x))
    _same_bits(torch.logaddexp(xt, yt), torch.logaddexp(x, y))
    _same_bits(torch.logaddexp(xt, xt), torch.logaddexp(x, x))  # equal infinities, NaNs
    # the real operand promoted to complex, non-contiguous operands
    _same_bits(torch.logaddexp(xt[::3], yt.real[::3]), torch.logaddexp(x[::3], y.real[::3]))
