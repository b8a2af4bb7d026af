"""Matrix products on tpu (ops.yaml "# --- matmul ---"): mm, addmm, bmm,
baddbmm, addmv/mv, dot/vdot, the matmul/linear paths that reach them, nn.Linear
forward and backward, embedding_dense_backward and scaled_dot_product_attention,
against CPU eager: dtypes, empty/1-size/odd shapes (edge tiles of the GEMM),
transposed and sliced views, broadcast batches, alpha/beta (beta=0 ignores
NaN), in place, out=, aliasing and errors (PyTorch's types and messages)."""


import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from conftest import make_tensor

torch_tpu = pytest.importorskip("torch_tpu")

FLOATS = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
TOL = {torch.float32: dict(atol=1e-4, rtol=1e-4), torch.float64: dict(atol=1e-10, rtol=1e-10),
       torch.bfloat16: dict(atol=5e-2, rtol=2e-2), torch.float16: dict(atol=1e-2, rtol=1e-2),
       torch.complex64: dict(atol=1e-4, rtol=1e-4), torch.complex128: dict(atol=1e-10, rtol=1e-10)}


def tol(dtype):
    return TOL.get(dtype, dict(atol=0, rtol=0))


def values(shape, dtype, seed=0):
    t = make_tensor(shape, dtype, seed)
    if dtype.is_floating_point:
        t = t / 16  # keep sums of products within float16 range
    return t


def tpu(t):
    return t.to("tpu")


def assert_matches(fn, *cpu_args, dtype=None, **kw):
    """fn on tpu copies of the args (same layout) against fn on CPU."""
    want = fn(*cpu_args, **kw)
    with torch_tpu.no_fallback():
        got = fn(*[tpu(a) if isinstance(a, torch.Tensor) else a for a in cpu_args], **kw)
    assert got.device.type == "tpu"
    assert got.shape == want.shape and got.dtype == want.dtype
    torch.testing.assert_close(got.cpu(), want, **tol(dtype or want.dtype), equal_nan=True)
    return got


def error_of(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        return type(e), str(e).split("\n")[0]
    return None


def assert_same_error(fn, *cpu_args):
    want = error_of(fn, *cpu_args)
    assert want is not None
    got = error_of(fn, *[tpu(a) if isinstance(a, torch.Tensor) else a for a in cpu_args])
    assert got == want


# --- mm -------------------------------------------------------------------------------

SHAPES = [(0, 3, 4), (3, 0, 4), (3, 4, 0), (1, 1, 1), (1, 7, 5), (6, 1, 9), (5, 8, 1),
          (13, 70, 9), (97, 131, 300), (64, 64, 64), (7, 513, 65)]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_mm_shapes(dtype, m, k, n):
    a, b = values((m, k), dtype, 1), values((k, n), dtype, 2)
    assert_matches(torch.mm, a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64, torch.int32])
@pytest.mark.parametrize("layout", ["tn", "nt", "tt", "sliced", "expanded"])
def test_mm_views(dtype, layout):
    m, k, n = 37, 70, 45
    if layout == "tn":
        a, b = values((k, m), dtype, 1).t(), values((k, n), dtype, 2)
    elif layout == "nt":
        a, b = values((m, k), dtype, 1), values((n, k), dtype, 2).t()
    elif layout == "tt":
        a, b = values((k, m), dtype, 1).t(), values((n, k), dtype, 2).t()
    elif layout == "sliced":
        a, b = values((m, 2 * k), dtype, 1)[:, ::2], values((k + 3, n * 3), dtype, 2)[3:, 1::3]
    else:
        a, b = values((1, k), dtype, 1).expand(m, k), values((k, 1), dtype, 2).expand(k, n)
    assert_matches(torch.mm, a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize("k", [1, 15, 17, 33, 71, 300, 515])
def test_mm_transposed_b_tiles(dtype, k):
    """x @ W.t() (a linear layer): B's columns are contiguous and packing
    transposes them in tiles of 16 k values; k around and across the tile
    and K-block sizes, odd k for bfloat16's (k, k+1) pairs."""
    a, b = values((7, k), dtype, 1), values((70, k), dtype, 2).t()
    assert_matches(torch.mm, a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int32])
@pytest.mark.parametrize("layout", ["nn", "nt", "tn"])
@pytest.mark.parametrize("b,m,k,n", [(1, 256, 64, 192), (1, 500, 257, 37), (3, 130, 520, 45), (4, 200, 33, 17)])
def test_row_chunks_share_packed_b(dtype, layout, b, m, k, n):
    """Many rows: the product is cut into row chunks that read one B packed
    up front (gemm.cpp), over K blocks (k > 256), panel tails (n not a
    multiple of the tile) and batches; with a broadcast B too."""
    a = values((b, k, m), dtype, 1).transpose(1, 2) if layout == "tn" else values((b, m, k), dtype, 1)
    w = values((b, n, k), dtype, 2).transpose(1, 2) if layout == "nt" else values((b, k, n), dtype, 2)
    assert_matches(torch.bmm, a, w)
    assert_matches(torch.bmm, a, w[:1].expand(b, k, n))
    assert_matches(torch.mm, a[0], w[0])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_mm_out(dtype):
    a, b = values((9, 11), dtype, 1), values((11, 13), dtype, 2)
    want = torch.mm(a, b)
    with torch_tpu.no_fallback():
        out = torch.empty(9, 13, dtype=dtype, device="tpu")
        r = torch.mm(tpu(a), tpu(b), out=out)
        assert r.data_ptr() == out.data_ptr()
        t = torch.empty(13, 9, dtype=dtype, device="tpu").t()  # column-major out
        torch.mm(tpu(a), tpu(b), out=t)
        assert t.stride() == (1, 9)
        z = torch.empty(0, dtype=dtype, device="tpu")  # resized
        torch.mm(tpu(a), tpu(b), out=z)
    for o in (out, t, z):
        torch.testing.assert_close(o.cpu(), want, **tol(dtype))


def test_mm_out_aliasing_inputs():
    a = values((8, 8), torch.float32, 1)
    want = a @ a
    x = tpu(a)
    with torch_tpu.no_fallback():
        torch.mm(x, x, out=x)
    torch.testing.assert_close(x.cpu(), want, **tol(torch.float32))


def test_mm_errors():
    f, d = values((3, 4), torch.float32), values((4, 5), torch.float64)
    assert_same_error(torch.mm, f, d)
    assert_same_error(torch.mm, f, values((5, 5), torch.float32))
    assert_same_error(torch.mm, f, values((5,), torch.float32))
    out = torch.empty(3, 5, dtype=torch.float64)
    assert_same_error(lambda a, b, o: torch.mm(a, b, out=o), f, values((4, 5), torch.float32), out)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.mm(tpu(f), values((4, 5), torch.float32))


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint16])
def test_mm_unsupported_dtypes(dtype):
    a = make_tensor((2, 2), dtype)
    assert error_of(torch.mm, a, a)[0] is NotImplementedError  # as on CPU
    with pytest.raises(NotImplementedError):
        torch.mm(tpu(a), tpu(a))


def test_bool_mm_without_products_runs_as_on_cpu():
    # CPU returns before it looks for a bool kernel when k == 0 or the result is empty
    a, b = torch.zeros(3, 0, dtype=torch.bool), torch.zeros(0, 4, dtype=torch.bool)
    assert_matches(torch.mm, a, b)
    assert_matches(torch.mm, torch.ones(0, 2, dtype=torch.bool), torch.ones(2, 4, dtype=torch.bool))
    assert_matches(lambda s, x, y: torch.addmm(s, x, y, beta=0), torch.ones(3, 4, dtype=torch.bool), a, b)
    assert_same_error(torch.addmm, torch.ones(3, 4, dtype=torch.bool), a, b)  # bool.mul_(beta)


# --- complex: the device BLAS (kernels/linalg/complex_gemm.cpp) --------------

def complex_values(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, dtype=dtype, generator=g)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_mm_layouts_and_conj(dtype):
    """Each operand layout the kernel tells apart: row-major (read in place),
    column-major (BLAS transposes it, 'C' when conjugated), conjugated
    row-major and sliced both ways (copied first), a C without unit column
    stride (computed aside), and the conj bit on either side."""
    a, b = complex_values((37, 50), dtype, 1), complex_values((50, 29), dtype, 2)
    cases = {
        "plain": lambda x, y: x @ y,
        "conj a": lambda x, y: x.conj() @ y,
        "conj b": lambda x, y: x @ y.conj(),
        "transposed": lambda x, y: y.mT @ x.mT,
        "adjoint": lambda x, y: y.mH @ x.mH,
        "sliced": lambda x, y: x[::2, ::2] @ y[::2, ::3],
        "broadcast row": lambda x, y: x[:1].expand(5, 50) @ y,
        "vector": lambda x, y: x[:1] @ y[:, :1],
    }
    for name, fn in cases.items():
        want = fn(a, b)
        with torch_tpu.no_fallback():
            got = fn(tpu(a), tpu(b))
        torch.testing.assert_close(got.cpu(), want, **tol(dtype), msg=name)
    out = torch.empty(29, 37, dtype=dtype, device="tpu").mT  # column-major out=
    torch.mm(tpu(a), tpu(b), out=out)
    torch.testing.assert_close(out.cpu(), a @ b, **tol(dtype))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_addmm_bmm_baddbmm(dtype):
    a, b = complex_values((20, 33), dtype, 1), complex_values((33, 17), dtype, 2)
    for self in (complex_values((20, 17), dtype, 3), complex_values((17,), dtype, 4)):
        for alpha, beta in ((1, 1), (2 + 1j, 0.5 - 1j), (1j, 0)):
            assert_matches(torch.addmm, self, a, b, alpha=alpha, beta=beta)
    nan = torch.full((20, 17), complex(float("nan"), 0), dtype=dtype)
    assert_matches(torch.addmm, nan, a, b, beta=0)  # beta == 0 never reads self
    assert_matches(torch.addmm, complex_values((20, 17), dtype, 3), a[:, :0], b[:0], beta=2j)  # k == 0
    x, y = complex_values((4, 9, 11), dtype, 5), complex_values((4, 11, 6), dtype, 6)
    assert_matches(torch.bmm, x, y)
    assert_matches(torch.bmm, x.conj(), y.mT.contiguous().mT)
    assert_matches(torch.baddbmm, complex_values((4, 9, 6), dtype, 7), x, y, beta=1j, alpha=-2)
    assert_matches(torch.addbmm, complex_values((9, 6), dtype, 7), x, y, beta=1j, alpha=-2)
    s = tpu(complex_values((20, 17), dtype, 3))
    want = torch.addmm(s.cpu(), a, b, alpha=1j)
    s.addmm_(tpu(a), tpu(b), alpha=1j)  # self is the output
    torch.testing.assert_close(s.cpu(), want, **tol(dtype))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_dot_vdot_mv(dtype):
    x, y = complex_values((23,), dtype, 1), complex_values((23,), dtype, 2)
    for fn in (torch.dot, torch.vdot):
        assert_matches(fn, x, y)
        assert_matches(lambda p, q: fn(p.conj(), q), x, y)  # vdot of a conj view is dot
        assert_matches(lambda p, q: fn(p, q.conj()), x, y)
    m = complex_values((15, 23), dtype, 3)
    assert_matches(torch.mv, m, x)
    assert_matches(torch.addmv, complex_values((15,), dtype, 4), m.mT.contiguous().mT, x, beta=1j)


# --- addmm ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.int8])
@pytest.mark.parametrize("alpha,beta", [(1, 1), (2, 0.5), (0.5, 0), (1, 0)])
def test_addmm(dtype, alpha, beta):
    if not dtype.is_floating_point:
        alpha, beta = int(alpha * 2), int(beta * 2)
    a, b = values((20, 33), dtype, 1), values((33, 17), dtype, 2)
    for self in (values((20, 17), dtype, 3), values((17,), dtype, 4), values((1, 17), dtype, 5),
                 values((20, 1), dtype, 6), values((), dtype, 7)):
        assert_matches(torch.addmm, self, a, b, alpha=alpha, beta=beta)


def test_addmm_beta_zero_ignores_nan():
    self = torch.full((4, 5), float("nan"))
    a, b = values((4, 3), torch.float32, 1), values((3, 5), torch.float32, 2)
    got = assert_matches(torch.addmm, self, a, b, beta=0)
    assert not got.cpu().isnan().any()
    assert_matches(torch.addmm, self, values((4, 0), torch.float32), values((0, 5), torch.float32), beta=0)


@pytest.mark.parametrize("beta", [0, 2])
def test_addmm_empty_k(beta):
    self = values((4, 5), torch.float32, 3)
    assert_matches(torch.addmm, self, values((4, 0), torch.float32), values((0, 5), torch.float32),
                   beta=beta, alpha=3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_addmm_inplace_and_out(dtype):
    a, b, c = values((6, 7), dtype, 1), values((7, 8), dtype, 2), values((6, 8), dtype, 3)
    want = torch.addmm(c, a, b, beta=2, alpha=3)
    with torch_tpu.no_fallback():
        x = tpu(c)
        x.addmm_(tpu(a), tpu(b), beta=2, alpha=3)
        out = torch.empty(8, 6, dtype=dtype, device="tpu").t()
        torch.addmm(tpu(c), tpu(a), tpu(b), beta=2, alpha=3, out=out)
        # out= is self: accumulate in place
        y = tpu(c)
        torch.addmm(y, tpu(a), tpu(b), beta=2, alpha=3, out=y)
    for r in (x, out, y):
        torch.testing.assert_close(r.cpu(), want, **tol(dtype))


def test_addmm_self_aliases_mat1():
    a = values((8, 8), torch.float32, 1)
    want = torch.addmm(a, a, a)
    x = tpu(a)
    with torch_tpu.no_fallback():
        x.addmm_(x, x)
    torch.testing.assert_close(x.cpu(), want, **tol(torch.float32))


def test_addmm_errors():
    f = values((3, 4), torch.float32)
    assert_same_error(torch.addmm, values((3, 5), torch.float64), f, values((4, 5), torch.float32))
    assert_same_error(torch.addmm, values((2, 5), torch.float32), f, values((4, 5), torch.float32))
    assert_same_error(torch.addmm, values((3, 5), torch.float32), f, values((3, 5), torch.float32))
    assert_same_error(lambda s, a, b: torch.addmm(s, a, b, alpha=300), values((3, 5), torch.int8),
                      values((3, 4), torch.int8), values((4, 5), torch.int8))


# --- bmm / baddbmm / matmul ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
@pytest.mark.parametrize("b,m,k,n", [(0, 2, 3, 4), (3, 0, 2, 2), (2, 3, 0, 4), (1, 1, 1, 1),
                                     (4, 5, 6, 7), (12, 64, 32, 64), (3, 1, 40, 9), (3, 9, 40, 1)])
def test_bmm(dtype, b, m, k, n):
    assert_matches(torch.bmm, values((b, m, k), dtype, 1), values((b, k, n), dtype, 2))


def test_bmm_views_and_out():
    a = values((5, 12, 8), torch.float32, 1).transpose(1, 2)        # 5 x 8 x 12
    bt = values((12, 5, 9), torch.float32, 2).permute(1, 0, 2)      # 5 x 12 x 9, batch stride 9
    bb = values((1, 12, 9), torch.float32, 3).expand(5, 12, 9)      # broadcast batch
    assert_matches(torch.bmm, a, bt)
    assert_matches(torch.bmm, a, bb)
    want = torch.bmm(a, bt)
    with torch_tpu.no_fallback():
        out = torch.empty(5, 9, 8, device="tpu").transpose(1, 2)
        torch.bmm(tpu(a), tpu(bt), out=out)
    torch.testing.assert_close(out.cpu(), want, **tol(torch.float32))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int16])
def test_baddbmm(dtype):
    alpha, beta = (2, 3) if not dtype.is_floating_point else (0.5, 1.5)
    b1, b2 = values((4, 6, 7), dtype, 1), values((4, 7, 5), dtype, 2)
    for self in (values((4, 6, 5), dtype, 3), values((5,), dtype, 4), values((4, 1, 5), dtype, 5)):
        assert_matches(torch.baddbmm, self, b1, b2, alpha=alpha, beta=beta)
        assert_matches(torch.baddbmm, self, b1, b2, beta=0)
    c = values((4, 6, 5), dtype, 3)
    want = torch.baddbmm(c, b1, b2, alpha=alpha, beta=beta)
    with torch_tpu.no_fallback():
        x = tpu(c)
        x.baddbmm_(tpu(b1), tpu(b2), alpha=alpha, beta=beta)
    torch.testing.assert_close(x.cpu(), want, **tol(dtype))


def test_baddbmm_beta_zero_ignores_nan():
    self = torch.full((2, 3, 4), float("nan"))
    got = assert_matches(torch.baddbmm, self, values((2, 3, 5), torch.float32, 1),
                         values((2, 5, 4), torch.float32, 2), beta=0)
    assert not got.cpu().isnan().any()


def test_bmm_errors():
    f = values((1, 3, 4), torch.float32)
    assert_same_error(torch.bmm, f, values((1, 4, 5), torch.float64))
    assert_same_error(torch.bmm, f, values((2, 4, 5), torch.float32))
    assert_same_error(torch.bmm, f[0], values((1, 4, 5), torch.float32))
    assert_same_error(torch.baddbmm, values((1, 3, 5), torch.float64), f, values((1, 4, 5), torch.float32))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("sa,sb", [((2, 3, 5, 7), (7, 4)), ((5, 7), (2, 3, 7, 4)), ((2, 1, 5, 7), (3, 7, 4)),
                                   ((7,), (7,)), ((5, 7), (7,)), ((7,), (7, 4)), ((2, 5, 7), (7,)),
                                   ((7,), (2, 7, 4)), ((3, 5, 7), (3, 7, 4))])
def test_matmul_broadcasting(dtype, sa, sb):
    assert_matches(torch.matmul, values(sa, dtype, 1), values(sb, dtype, 2))


# --- nn.Linear ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(8, 32), (2, 5, 32), (1, 32)])
def test_linear_forward_backward(dtype, bias, shape):
    torch.manual_seed(0)
    lin = torch.nn.Linear(32, 24, bias=bias, dtype=dtype)
    lin_t = torch.nn.Linear(32, 24, bias=bias, dtype=dtype).to("tpu")
    lin_t.load_state_dict(lin.state_dict())
    x = values(shape, dtype, 1).requires_grad_()
    xt = tpu(x.detach()).requires_grad_()
    g = values(shape[:-1] + (24,), dtype, 2)
    lin(x).backward(g)
    with torch_tpu.no_fallback():
        y = lin_t(xt)
    # The bias gradient is a sum over the batch (the reductions family).
    with torch_tpu.no_fallback():
        y.backward(tpu(g))
    torch.testing.assert_close(y.detach().cpu(), lin(x).detach(), **tol(dtype))
    torch.testing.assert_close(xt.grad.cpu(), x.grad, **tol(dtype))
    torch.testing.assert_close(lin_t.weight.grad.cpu(), lin.weight.grad, **tol(dtype))
    if bias:
        torch.testing.assert_close(lin_t.bias.grad.cpu(), lin.bias.grad, **tol(dtype))


# --- vectors --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("m,k", [(0, 4), (4, 0), (1, 1), (33, 40), (200, 3), (3, 70000)])
def test_mv_addmv(dtype, m, k):
    mat, vec = values((m, k), dtype, 1), values((k,), dtype, 2)
    assert_matches(torch.mv, mat, vec)
    assert_matches(torch.mv, values((k, m), dtype, 3).t(), vec)
    assert_matches(torch.mv, mat, values((2 * k,), dtype, 4)[::2])
    alpha, beta = (2, 3) if not dtype.is_floating_point else (0.5, 2.0)
    assert_matches(torch.addmv, values((m,), dtype, 5), mat, vec, alpha=alpha, beta=beta)
    # An empty mat gives self * beta in self's shape, as on CPU.
    assert_matches(torch.addmv, values((1,), dtype, 5), mat, vec, alpha=alpha, beta=beta)


def test_addmv_inplace_out_nan_errors():
    mat, vec = values((5, 4), torch.float32, 1), values((4,), torch.float32, 2)
    s = torch.full((5,), float("nan"))
    got = assert_matches(torch.addmv, s, mat, vec, beta=0)
    assert not got.cpu().isnan().any()
    want = torch.addmv(values((5,), torch.float32, 3), mat, vec, beta=2)
    with torch_tpu.no_fallback():
        x = tpu(values((5,), torch.float32, 3))
        x.addmv_(tpu(mat), tpu(vec), beta=2)
        out = torch.empty(10, device="tpu")[::2]
        torch.addmv(tpu(values((5,), torch.float32, 3)), tpu(mat), tpu(vec), beta=2, out=out)
    torch.testing.assert_close(x.cpu(), want)
    torch.testing.assert_close(out.cpu(), want)
    assert_same_error(torch.addmv, values((3,), torch.float32), mat, vec)
    assert_same_error(torch.addmv, values((5,), torch.float32), mat, values((4,), torch.float64))
    assert_same_error(torch.mv, mat, values((4,), torch.float64))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("n", [0, 1, 17, 1000, 70000])
def test_dot_vdot(dtype, n):
    a, b = values((2 * n,), dtype, 1), values((n,), dtype, 2)
    assert_matches(torch.dot, a[::2], b, dtype=dtype)
    assert_matches(torch.vdot, a[:n], b, dtype=dtype)
    if n != 1:  # tensordot sums size-1 contractions with sum (reductions family)
        assert_matches(torch.inner, a[:n], b, dtype=dtype)


def test_dot_out_and_errors():
    a, b = values((6,), torch.float32, 1), values((6,), torch.float32, 2)
    with torch_tpu.no_fallback():
        out = torch.empty((), device="tpu")
        torch.dot(tpu(a), tpu(b), out=out)
        vout = torch.empty(0, device="tpu")  # resized to 0-dim
        torch.vdot(tpu(a), tpu(b), out=vout)
    torch.testing.assert_close(out.cpu(), torch.dot(a, b))
    torch.testing.assert_close(vout.cpu(), torch.vdot(a, b))
    assert_same_error(torch.dot, a, values((5,), torch.float32))
    assert_same_error(torch.dot, a, values((6,), torch.float64))
    assert_same_error(torch.dot, a[None], a)


# --- embedding backward -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("padding_idx,scale", [(None, False), (3, False), (None, True), (0, True)])
def test_embedding_backward(dtype, index_dtype, padding_idx, scale):
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, 10, (6, 7), generator=g).to(index_dtype)
    w = values((10, 16), dtype, 1).requires_grad_()
    wt = tpu(w.detach()).requires_grad_()
    grad = values((6, 7, 16), dtype, 2)
    F.embedding(idx, w, padding_idx=padding_idx, scale_grad_by_freq=scale).backward(grad)
    with torch_tpu.no_fallback():
        out = torch.ops.aten.embedding_dense_backward(tpu(grad), tpu(idx), 10,
                                                      -1 if padding_idx is None else padding_idx, scale)
    torch.testing.assert_close(out.cpu(), w.grad, **tol(dtype))


def test_embedding_backward_deterministic():
    idx = torch.randint(0, 50, (4096,), generator=torch.Generator().manual_seed(1))
    grad = torch.randn(4096, 64, generator=torch.Generator().manual_seed(2))
    with torch_tpu.no_fallback():
        r1 = torch.ops.aten.embedding_dense_backward(tpu(grad), tpu(idx), 50, -1, False).cpu()
        r2 = torch.ops.aten.embedding_dense_backward(tpu(grad), tpu(idx), 50, -1, False).cpu()
    assert torch.equal(r1, r2)
    want = torch.zeros(50, 64, dtype=torch.float64).index_add_(0, idx, grad.double()).float()
    torch.testing.assert_close(r1, want)


def test_embedding_backward_errors():
    grad, idx = values((3, 4), torch.float32), torch.tensor([0.0, 1.0, 2.0])
    msg = "Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, Int"
    for g, i in ((grad, idx), (tpu(grad), tpu(idx))):
        with pytest.raises(RuntimeError, match=msg):
            torch.ops.aten.embedding_dense_backward(g, i, 5, -1, False)
    with pytest.raises(NotImplementedError):
        torch.ops.aten.embedding_dense_backward(tpu(grad.long()), tpu(idx.long()), 5, -1, False)


# --- scaled_dot_product_attention (math path) ----------------------------------------------

def test_fused_sdp_choice_is_math_for_float64():
    """float64 keeps ATen's math path (the fused kernel, tests/test_attention.py,
    takes float32, bfloat16 and float16)."""
    q = tpu(values((2, 3, 8, 16), torch.float64))
    with torch_tpu.no_fallback():
        assert torch._fused_sdp_choice(q, q, q) == 0  # SDPBackend.math


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float"])
def test_sdpa_math_path(dtype, mask):
    """ATen's math path on tpu (float64, dropout, or the math backend asked
    for, as here)."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 9, 16).to(dtype) for _ in range(3))
    kw = {}
    if mask == "causal":
        kw["is_causal"] = True
    elif mask == "bool":
        kw["attn_mask"] = torch.rand(9, 9) > 0.3
        kw["attn_mask"].fill_diagonal_(True)
    elif mask == "float":
        kw["attn_mask"] = torch.randn(2, 1, 9, 9).to(dtype)
    qs, ks, vs = (t.clone().requires_grad_() for t in (q, k, v))
    want = F.scaled_dot_product_attention(qs, ks, vs, **kw)
    g = torch.randn_like(want)
    want.backward(g)
    qt, kt, vt = (tpu(t).requires_grad_() for t in (q, k, v))
    tkw = {n: tpu(t) if isinstance(t, torch.Tensor) else t for n, t in kw.items()}
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback(), sdpa_kernel([SDPBackend.MATH]):
        got = F.scaled_dot_product_attention(qt, kt, vt, **tkw)
        got.backward(tpu(g))
    ops = torch_tpu.stats()["ops"]
    assert ops["aten::bmm"].get("direct", 0) >= 2  # scores and weighted values on the device
    t = dict(atol=2e-2, rtol=2e-2) if dtype == torch.bfloat16 else dict(atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(got.detach().cpu(), want.detach(), **t)
    for a, b in ((qt, qs), (kt, ks), (vt, vs)):
        torch.testing.assert_close(a.grad.cpu(), b.grad, **t)


def test_sdpa_dropout():
    q, k, v = (tpu(torch.randn(2, 2, 16, 8)) for _ in range(3))
    with torch_tpu.no_fallback():
        plain = F.scaled_dot_product_attention(q, k, v)
        dropped = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert dropped.shape == plain.shape and torch.isfinite(dropped.cpu()).all()
    assert not torch.equal(dropped.cpu(), plain.cpu())


def test_addbmm_in_place_and_errors_match_cpu():
    g = torch.Generator().manual_seed(3)
    s, b1, b2 = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((5, 7), (4, 5, 3), (4, 3, 7)))
    expected = s.clone().addbmm_(b1, b2, beta=0.5, alpha=2)
    actual = s.to("tpu").addbmm_(b1.to("tpu"), b2.to("tpu"), beta=0.5, alpha=2)
    torch.testing.assert_close(actual.cpu(), expected)
    # An empty batch gives beta * self; beta = 0 ignores self's NaN.
    empty1, empty2 = torch.empty(0, 5, 3, dtype=torch.float64), torch.empty(0, 3, 7, dtype=torch.float64)
    torch.testing.assert_close(torch.addbmm(s.to("tpu"), empty1.to("tpu"), empty2.to("tpu"), beta=3).cpu(),
                               torch.addbmm(s, empty1, empty2, beta=3))
    nan = torch.full((5, 7), float("nan"), dtype=torch.float64)
    torch.testing.assert_close(torch.addbmm(nan.to("tpu"), b1.to("tpu"), b2.to("tpu"), beta=0).cpu(),
                               torch.addbmm(nan, b1, b2, beta=0))
    for args in [(s, b1[0], b2), (s, b1, b2[0]), (s, b1[:3], b2), (s, b1[:, :, :2], b2), (s[:4], b1, b2),
                 (s, b1.float(), b2)]:
        with pytest.raises(Exception) as cpu_error:
            torch.addbmm(*args)
        with pytest.raises(Exception) as tpu_error:
            torch.addbmm(*(t.to("tpu") for t in args))
        assert type(tpu_error.value) is type(cpu_error.value)
        assert str(tpu_error.value) == str(cpu_error.value)
