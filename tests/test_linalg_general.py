"""Linear algebra of general matrices on the device LAPACK, where the OpInfo
samples cannot reach: linalg.lstsq's four drivers on rank-deficient,
broadcast and out= cases (ATen's own implementation lets a device other than
the CPU ask only for gels; tpu has the CPU's rules), linalg.eigvals with
out=, cholesky_inverse's errors, and matrix_exp's per-matrix scaling in a
batch. Against CPU eager."""

import pytest
import torch

torch_tpu = pytest.importorskip("torch_tpu")

DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]
TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.complex64: dict(atol=1e-4, rtol=1e-4),
       torch.float64: dict(atol=1e-10, rtol=1e-10), torch.complex128: dict(atol=1e-10, rtol=1e-10)}


def rand(*shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)


def close(got, want, dtype):
    torch.testing.assert_close(got.cpu(), want, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_a,shape_b", [((6, 4), (6, 3)), ((4, 6), (4, 2)), ((3, 5, 4), (3, 5, 2)),
                                             ((1, 5, 4), (2, 5, 3)), ((6, 4), (6,))])
def test_lstsq_default_driver_is_cpus_gelsy(dtype, shape_a, shape_b):
    """tpu's default driver is gelsy, CPU's too: same solution, rank;
    residuals are computed for neither (ATen: gelsy never computes them)."""
    a, b = rand(*shape_a, dtype=dtype, seed=1), rand(*shape_b, dtype=dtype, seed=2)
    want = torch.linalg.lstsq(a, b)
    with torch_tpu.no_fallback():
        got = torch.linalg.lstsq(a.to("tpu"), b.to("tpu"))
    close(got.solution, want.solution, dtype)
    assert torch.equal(got.rank.cpu(), want.rank)
    assert got.residuals.numel() == 0 and want.residuals.numel() == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_a,shape_b", [((6, 4), (6, 3)), ((3, 7, 2), (3, 7, 1)), ((1, 7, 3), (2, 7, 4))])
def test_lstsq_gels_with_residuals(dtype, shape_a, shape_b):
    a, b = rand(*shape_a, dtype=dtype, seed=3), rand(*shape_b, dtype=dtype, seed=4)
    want = torch.linalg.lstsq(a, b, driver="gels")
    with torch_tpu.no_fallback():
        got = torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), driver="gels")
    close(got.solution, want.solution, dtype)
    close(got.residuals, want.residuals, dtype)  # m > n: ||A x - b||^2 per column
    assert got.rank.numel() == 0 and want.rank.numel() == 0


def test_lstsq_rank_deficient_gelsy():
    # column 2 = column 0 + column 1: rank 2, gelsy's minimum-norm solution
    a = rand(6, 2, dtype=torch.float64, seed=5)
    a = torch.cat([a, a.sum(1, keepdim=True)], 1)
    b = rand(6, 2, dtype=torch.float64, seed=6)
    want = torch.linalg.lstsq(a, b, rcond=1e-10)
    got = torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), rcond=1e-10)
    assert want.rank.item() == 2 and got.rank.item() == 2
    close(got.solution, want.solution, torch.float64)


DRIVERS = ["gels", "gelsy", "gelsd", "gelss"]


def lstsq_close(got, want, dtype):
    """Every output of CPU's lstsq: solution, residuals (which each driver
    computes or leaves empty), rank and singular values, shapes included."""
    for name in ("solution", "residuals", "rank", "singular_values"):
        g, w = getattr(got, name), getattr(want, name)
        assert g.shape == w.shape and g.dtype == w.dtype, (name, g.shape, w.shape)
        if name == "rank":
            assert torch.equal(g.cpu(), w), (g, w)
        else:
            close(g, w, dtype)


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_a,shape_b", [((6, 4), (6, 3)), ((4, 6), (4, 2)), ((3, 7, 2), (3, 7, 1)),
                                             ((1, 7, 3), (2, 7, 4)), ((6, 4), (6,)), ((5, 0), (5, 2))])
def test_lstsq_every_driver_as_cpu(driver, dtype, shape_a, shape_b):
    """Each driver CPU has: its solution, residuals (m > n: gels, gelsd and
    gelss), rank (all but gels) and singular values (gelsd, gelss)."""
    a, b = rand(*shape_a, dtype=dtype, seed=7), rand(*shape_b, dtype=dtype, seed=8)
    want = torch.linalg.lstsq(a, b, driver=driver)
    with torch_tpu.no_fallback():
        got = torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), driver=driver.upper())  # any case, as CPU
    lstsq_close(got, want, dtype)


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_lstsq_rank_deficient_every_rank_revealing_driver(driver):
    """A batch with a rank-deficient matrix: each driver's rank and
    minimum-norm solution; gelsd/gelss then leave the residuals empty."""
    a = rand(2, 6, 3, dtype=torch.float64, seed=9)
    a[1, :, 2] = a[1, :, 0] + a[1, :, 1]
    b = rand(2, 6, 2, dtype=torch.float64, seed=10)
    want = torch.linalg.lstsq(a, b, rcond=1e-10, driver=driver)
    got = torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), rcond=1e-10, driver=driver)
    assert want.rank.tolist() == [3, 2]
    lstsq_close(got, want, torch.float64)


@pytest.mark.parametrize("driver", DRIVERS)
def test_lstsq_out_tensors_as_cpu(driver):
    """out=: empty outputs are used in place, a wrongly shaped solution gets
    temporaries copied into it; afterwards each out tensor has CPU's shape,
    strides and values."""
    a, b = rand(5, 3, dtype=torch.float64, seed=11), rand(5, 2, dtype=torch.float64, seed=12)
    for first in (lambda d: torch.empty(0, dtype=torch.float64, device=d),
                  lambda d: torch.empty(5, 2, dtype=torch.float64, device=d)):
        outs = {}
        for device in ("cpu", "tpu"):
            o = (first(device), torch.empty(0, dtype=torch.float64, device=device),
                 torch.empty(0, dtype=torch.int64, device=device), torch.empty(0, dtype=torch.float64, device=device))
            with pytest.warns(UserWarning) if o[0].numel() else _no_warning():
                r = torch.linalg.lstsq(a.to(device), b.to(device), driver=driver, out=o)
            assert all(x is y for x, y in zip(r, o))
            outs[device] = o
        for t, c in zip(outs["tpu"], outs["cpu"]):
            assert (t.shape, t.stride()) == (c.shape, c.stride())
            torch.testing.assert_close(t.cpu(), c, atol=1e-10, rtol=1e-10)


class _no_warning:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error", UserWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def test_lstsq_bad_driver_is_cpus_error_and_never_names_cuda():
    a, b = rand(5, 3, dtype=torch.float32, seed=13), rand(5, 2, dtype=torch.float32, seed=14)
    with pytest.raises(RuntimeError) as cpu:
        torch.linalg.lstsq(a, b, driver="gelsx")
    with pytest.raises(RuntimeError) as tpu:
        torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), driver="gelsx")
    assert str(tpu.value) == str(cpu.value)
    assert "should be one of (gels, gelsy, gelsd, gelss)" in str(tpu.value)
    for driver in DRIVERS:  # every driver runs: no message about CUDA
        torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), driver=driver)


def test_lstsq_gels_rank_deficient_raises_cpus_linalg_error():
    a = rand(6, 3, dtype=torch.float64, seed=15)
    a[:, 2] = 0
    b = rand(6, 2, dtype=torch.float64, seed=16)
    with pytest.raises(torch.linalg.LinAlgError, match="does not have full rank"):
        torch.linalg.lstsq(a, b, driver="gels")
    with pytest.raises(torch.linalg.LinAlgError, match="does not have full rank"):
        torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), driver="gels")


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_lstsq_gradients(dtype):
    a, b = rand(6, 3, dtype=dtype, seed=9), rand(6, 2, dtype=dtype, seed=10)
    grads = []
    for device in ("cpu", "tpu"):
        x, y = a.to(device).detach().requires_grad_(), b.to(device).detach().requires_grad_()
        torch.linalg.lstsq(x, y).solution.abs().sum().backward()
        grads.append((x.grad.cpu(), y.grad.cpu()))
    for got, want in zip(grads[1], grads[0]):
        close(got, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigvals_and_eig_out(dtype):
    a = rand(3, 5, 5, dtype=dtype, seed=11)
    want = torch.linalg.eigvals(a)
    out = torch.empty(3, 5, dtype=want.dtype, device="tpu")
    with torch_tpu.no_fallback():
        got = torch.linalg.eigvals(a.to("tpu"), out=out)
    assert got is out
    # the same eigenvalues, in LAPACK's order (OpenBLAS and MKL agree here)
    close(out, want, dtype)
    vals, vecs = torch.empty_like(out), torch.empty(3, 5, 5, dtype=want.dtype, device="tpu")
    torch.linalg.eig(a.to("tpu"), out=(vals, vecs))
    close(vals, want, dtype)
    # A v = lambda v, for the complex eigenvectors made from real ones too
    av = a.to(vecs.dtype).to("tpu") @ vecs
    close(av, (vecs * vals.unsqueeze(-2)).cpu(), dtype)


def test_eig_rejects_non_finite_input_like_cpu():
    a = torch.eye(3)
    a[0, 1] = float("nan")
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        torch.linalg.eig(a)
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        torch.linalg.eig(a.to("tpu"))


def test_cholesky_inverse_singular_factor_raises_like_cpu():
    factor = torch.eye(3, dtype=torch.float64)
    factor[1, 1] = 0
    with pytest.raises(torch.linalg.LinAlgError) as cpu_error:
        torch.cholesky_inverse(factor)
    with pytest.raises(torch.linalg.LinAlgError) as tpu_error:
        torch.cholesky_inverse(factor.to("tpu"))
    assert str(tpu_error.value) == str(cpu_error.value)
    assert torch.cholesky_inverse(torch.eye(2).to("tpu")).device.type == "tpu"  # still usable


def test_matrix_exp_batch_with_different_norms():
    """Matrices needing 0 to 9 squarings in one batch: each keeps its own."""
    base = rand(4, 4, dtype=torch.float64, seed=12)
    a = torch.stack([base * scale for scale in (0.01, 1.0, 30.0, 300.0)])
    want = torch.linalg.matrix_exp(a)
    got = torch.linalg.matrix_exp(a.to("tpu")).cpu()
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9 * want.abs().amax().item())
    assert torch.equal(torch.linalg.matrix_exp(torch.zeros(2, 3, 3, device="tpu")).cpu(),
                       torch.eye(3).expand(2, 3, 3))
