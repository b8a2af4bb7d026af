"""The reduction stub kernels (csrc/aten/native/reduce/reduce.cpp,
csrc/kernels/reduce/) end to end against CPU eager: what the generated
OpInfo tests do not reach (keepdim, several dims, dtype=, empty dims with
CPU's identities and errors, non-contiguous inputs and outputs, out=, NaN,
ties, long rows and columns split over the cores), with no host fallback."""

import math

import pytest
import torch

import torch_tpu  # noqa: F401  (a missing backend fails the module; it never skips it)


FLOATING = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
TOL = {torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=5e-2, rtol=5e-2),
       torch.float32: dict(atol=1e-4, rtol=1e-5), torch.float64: dict(atol=1e-10, rtol=1e-10)}


def rand(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.3
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 3).to(dtype)
    if dtype.is_complex:
        return torch.randn(shape, generator=g, dtype=dtype)
    return torch.randint(-5 if dtype.is_signed else 0, 9, shape, generator=g).to(dtype)


def same(fn, *cpu_args, tol=None, **kw):
    """fn on tpu copies of cpu_args equals fn on CPU (values, dtype, shape)."""
    expected = fn(*cpu_args, **kw)
    tpu_args = [a.to("tpu") if isinstance(a, torch.Tensor) else a for a in cpu_args]
    with torch_tpu.no_fallback():
        got = fn(*tpu_args, **kw)
    check(got, expected, tol)
    return got


def check(got, expected, tol=None):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            check(g, e, tol)
        return
    assert got.device.type == "tpu"
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tol = tol or TOL.get(expected.dtype, {})
    torch.testing.assert_close(got.cpu(), expected, equal_nan=True, **tol)


# ---- sum / mean / prod --------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATING + [torch.int32, torch.int64, torch.uint8, torch.bool, torch.complex64])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (-1, True), ((0, 2), False), ((1, 2), True)])
def test_sum_dims_keepdim(dtype, dim, keepdim):
    x = rand((5, 6, 7), dtype)
    if dim is None:
        same(lambda t: t.sum(), x)
    else:
        same(lambda t: t.sum(dim, keepdim=keepdim), x)


@pytest.mark.parametrize("dtype,out_dtype", [(torch.int32, torch.int64), (torch.int32, torch.int8),
                                             (torch.float16, torch.float32), (torch.float32, torch.float64),
                                             (torch.bool, torch.int32), (torch.int64, torch.float32)])
def test_sum_dtype_argument(dtype, out_dtype):
    x = rand((40, 30), dtype)
    same(lambda t: t.sum(1, dtype=out_dtype), x)
    same(lambda t: t.sum(dtype=out_dtype), x)


def test_sum_noncontiguous_and_out():
    x = rand((64, 48, 6))
    same(lambda t: t.transpose(0, 2)[::2].sum((0, 1)), x)
    same(lambda t: t[:, ::3].sum(-1), x)
    out_cpu = torch.zeros(48, 2).t()
    expected = torch.sum(x, (0, 2), out=out_cpu[0])
    out_tpu = torch.zeros(48, 2).t().to("tpu")
    with torch_tpu.no_fallback():
        got = torch.sum(x.to("tpu"), (0, 2), out=out_tpu[0])
    check(got, expected)
    check(out_tpu, out_cpu)


def test_sum_empty_dims_identities():
    x = torch.zeros(0, 4)
    same(lambda t: t.sum(0), x)
    same(lambda t: t.prod(0), x)
    same(lambda t: t.mean(0), x)
    same(lambda t: t.sum(), x)
    same(lambda t: t.all(0), x)
    same(lambda t: t.any(0), x)
    same(lambda t: t.sum(1), x)  # empty output


def test_sum_bias_grad_shape():
    """What a Linear bias gradient asks for: sum over (batch, seq)."""
    g = rand((8, 128, 768))
    same(lambda t: t.sum((0, 1)), g)
    same(lambda t: t.sum((0, 1), keepdim=True), g)


@pytest.mark.parametrize("dtype", FLOATING + [torch.complex64])
def test_mean(dtype):
    x = rand((7, 9, 11), dtype)
    same(lambda t: t.mean(), x)
    same(lambda t: t.mean((0, 2)), x)
    same(lambda t: t.mean(1, keepdim=True), x)
    if dtype == torch.float16:
        same(lambda t: t.mean(1, dtype=torch.float32), x)


def test_mean_integer_error_matches_cpu():
    x = torch.arange(6)
    with pytest.raises(RuntimeError) as cpu:
        x.mean()
    with pytest.raises(RuntimeError) as tpu:
        x.to("tpu").mean()
    assert str(cpu.value) == str(tpu.value)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int8, torch.bool, torch.complex64])
def test_prod(dtype):
    x = rand((6, 5), dtype)
    if dtype.is_floating_point:
        x = x / 3
    same(lambda t: t.prod(), x)
    same(lambda t: t.prod(1), x)
    same(lambda t: t.prod(0, keepdim=True), x)


# ---- max / min / argmax ----------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATING + [torch.int32, torch.uint8, torch.bool])
def test_amax_amin(dtype):
    x = rand((9, 10, 11), dtype)
    for f in (torch.amax, torch.amin):
        same(lambda t: f(t), x)
        same(lambda t: f(t, (0, 2)), x)
        same(lambda t: f(t, -1, keepdim=True), x)


def test_max_nan_propagates():
    x = rand((4, 50))
    x[1, 7] = float("nan")
    x[3, 49] = float("nan")
    for f in (torch.amax, torch.amin):
        same(lambda t: f(t, 1), x)
        same(lambda t: f(t, 0), x)
        same(lambda t: f(t), x)
    same(lambda t: t.max(), x)
    same(lambda t: t.max(1), x)
    same(lambda t: t.min(0), x)
    same(lambda t: t.argmax(1), x)
    same(lambda t: t.argmin(), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8])
def test_max_dim_indices_first_on_ties(dtype):
    x = torch.tensor([[1, 3, 3, 0], [2, 2, 2, 2], [0, 5, 1, 5]]).to(dtype)
    same(lambda t: t.max(1), x)
    same(lambda t: t.min(1, keepdim=True), x)
    same(lambda t: t.max(0), x)
    same(lambda t: t.argmax(1), x)
    same(lambda t: t.argmin(0), x)
    same(lambda t: t.argmax(), x)


def test_max_full_and_errors():
    x = rand((33, 17))
    same(lambda t: t.max(), x)
    same(lambda t: t.min(), x)
    same(lambda t: t.t().max(), x)
    for f in (lambda t: t.max(), lambda t: t.amax(0), lambda t: t.argmax(), lambda t: t.max(0)):
        with pytest.raises((RuntimeError, IndexError)) as cpu:
            f(torch.zeros(0, 3))
        with pytest.raises(type(cpu.value)) as tpu:
            f(torch.zeros(0, 3, device="tpu"))
        assert str(tpu.value) == str(cpu.value)


def test_argmax_long_rows_columns():
    x = rand((300, 4000))
    same(lambda t: t.argmax(1), x)
    same(lambda t: t.argmax(0), x)
    same(lambda t: t.max(0), x)


# ---- all / any ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.float32, torch.complex64, torch.int16])
def test_all_any(dtype):
    x = rand((5, 6, 7), dtype)
    x.view(-1)[3] = 0
    for f in (torch.all, torch.any):
        same(lambda t: f(t), x)
        same(lambda t: f(t, 1), x)
        same(lambda t: f(t, (0, 2), keepdim=True), x)
    same(lambda t: torch.all(t), torch.ones(100000))
    same(lambda t: torch.any(t), torch.zeros(100000))


def test_all_nan_is_true():
    same(lambda t: torch.all(t), torch.tensor([float("nan"), 1.0]))


# ---- norms --------------------------------------------------------------------

@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, -1, float("inf"), float("-inf")])
@pytest.mark.parametrize("dtype", FLOATING + [torch.complex64])
def test_vector_norm(ord, dtype):
    x = rand((6, 7, 8), dtype)
    same(lambda t: torch.linalg.vector_norm(t, ord), x)
    same(lambda t: torch.linalg.vector_norm(t, ord, dim=(0, 2), keepdim=True), x)
    same(lambda t: torch.linalg.vector_norm(t, ord, dim=-1), x)


def test_vector_norm_dtype_and_clip_grad_norm():
    x = rand((64, 64), torch.float16)
    same(lambda t: torch.linalg.vector_norm(t, dtype=torch.float32), x)
    params = [rand((30, 20), seed=i) for i in range(3)]
    tparams = [p.to("tpu") for p in params]
    for ps in (params, tparams):
        for p in ps:
            p.requires_grad_(True)
            p.grad = p.detach() * 2
    n_cpu = torch.nn.utils.clip_grad_norm_(params, 1.0)
    with torch_tpu.no_fallback():
        n_tpu = torch.nn.utils.clip_grad_norm_(tparams, 1.0)
    check(n_tpu, n_cpu)
    for a, b in zip(tparams, params):
        check(a.grad, b.grad)


def test_vector_norm_nan_inf():
    x = torch.tensor([1.0, float("nan"), -3.0])
    for ord in (2, 1, float("inf"), float("-inf"), 0):
        same(lambda t: torch.linalg.vector_norm(t, ord), x)


# ---- var / std ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_var_std(dtype, correction):
    x = rand((6, 7, 8), dtype)
    for f in (torch.var, torch.std, torch.var_mean, torch.std_mean):
        same(lambda t: f(t, correction=correction), x)
        same(lambda t: f(t, dim=(0, 2), correction=correction, keepdim=True), x)
        same(lambda t: f(t, dim=1, correction=correction), x)


def test_var_degenerate():
    same(lambda t: t.var(0), torch.ones(1, 3))  # n - correction = 0
    same(lambda t: t.var(0), torch.zeros(0, 3))


# ---- scans and logsumexp -----------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATING + [torch.int32, torch.bool, torch.complex64])
def test_cumsum_cumprod(dtype):
    x = rand((5, 6), dtype)
    for d in (0, 1, -1):
        same(lambda t: t.cumsum(d), x)
        if not dtype.is_floating_point or dtype in (torch.float32, torch.float64):
            same(lambda t: t.cumprod(d), x)
    same(lambda t: t.t().cumsum(1), x)
    same(lambda t: t.cumsum(0, dtype=torch.float64), x)


def test_logsumexp():
    x = rand((8, 9))
    same(lambda t: torch.logsumexp(t, 1), x)
    same(lambda t: torch.logsumexp(t, (0, 1), keepdim=True), x)


# ---- large: split over the cores ---------------------------------------------

@pytest.mark.parametrize("shape,dim", [((1 << 20,), None), ((512, 1024), -1), ((512, 1024), 0),
                                       ((3, 200000), 0), ((200000, 3), 0), ((7, 50000), 1)])
def test_large_sum_amax(shape, dim):
    x = rand(shape)
    # Both sums are within float32 rounding of sum(|x|), not of each other.
    big = dict(atol=1e-6 * x.abs().sum().item(), rtol=1e-5)
    if dim is None:
        same(lambda t: t.sum(), x, tol=big)
        same(lambda t: t.amax(), x)
    else:
        same(lambda t: t.sum(dim), x, tol=big)
        same(lambda t: t.amax(dim), x)
        same(lambda t: t.argmax(dim), x)


def test_float32_sum_accuracy_at_least_cpu():
    x = torch.rand(4096, 1024, generator=torch.Generator().manual_seed(1))
    for dim in (None, 0, 1):
        exact = x.double().sum(dim) if dim is not None else x.double().sum()
        cpu = x.sum(dim) if dim is not None else x.sum()
        xt = x.to("tpu")
        tpu = (xt.sum(dim) if dim is not None else xt.sum()).cpu()
        err_cpu = (cpu.double() - exact).abs().max().item()
        err_tpu = (tpu.double() - exact).abs().max().item()
        # Pairwise and CPU's cascade are equally good; allow for luck.
        assert err_tpu <= 2 * err_cpu + 1e-6 * exact.abs().max().item()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64,
                                   torch.int8, torch.uint8, torch.int64, torch.bool], ids=str)
def test_hash_tensor_bits_match_cpu(dtype):
    # xor_sum: floats as the bits of a double (NaN, -0.0 and inf included),
    # integers sign-extended, bool 0/1; over all, one and the last dim.
    x = torch.tensor([[float("nan"), -0.0, 1.5], [float("inf"), -2.0, 3.0]])
    if not dtype.is_floating_point:
        x = torch.tensor([[-1, 2, 0], [3, -7, 1]]).to(dtype)
    else:
        x = x.to(dtype)
    for kw in [{}, {"dim": [0]}, {"dim": [-1], "keepdim": True}]:
        expected = torch.hash_tensor(x, **kw)
        with torch_tpu.no_fallback():
            actual = torch.hash_tensor(x.to("tpu"), **kw)
        assert actual.dtype == torch.uint64 and torch.equal(actual.cpu(), expected)


def test_family_is_registered():
    """A lost registration fails here (and in the tests above), never skips."""
    assert torch._C._dispatch_has_kernel_for_dispatch_key("aten::sum.IntList_out", "PrivateUse1"), "reductions are not registered for tpu (ops.yaml reductions block)"
