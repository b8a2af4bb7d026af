"""nn kernels on tpu against CPU eager: _softmax / _log_softmax and their
backwards (any dim, out=, half_to_float), native_layer_norm (+ backward,
with and without weight/bias, output_mask, mixed float16/bfloat16 input with
float parameters), nll_loss forward/backward (reductions, weight,
ignore_index) and native_dropout (+ backward), what a GPT training step
uses. Values are compared with CPU; dropout, being random, is checked for
its structure and statistics."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

FLOATING = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: dict(atol=1e-12, rtol=1e-12),
       torch.float16: dict(atol=2e-3, rtol=2e-3), torch.bfloat16: dict(atol=1.6e-2, rtol=1.6e-2)}


def close(tpu, cpu, dtype=None, **kw):
    tol = dict(TOL.get(dtype or cpu.dtype, {}))
    tol.update(kw)
    torch.testing.assert_close(tpu.cpu(), cpu, **tol)


def rand(shape, dtype=torch.float32, seed=0, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def stats():
    return torch_tpu.stats()


# ---- softmax --------------------------------------------------------------------

SHAPES_DIMS = [((7,), 0), ((4, 33), 1), ((4, 33), 0), ((3, 5, 70), 1), ((2, 3, 4, 5), -1),
               ((2, 130, 3), 1), ((), 0), ((0, 5), 1), ((1, 1), -1), ((3, 4097), -1)]


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
def test_softmax_forward(log, dtype, shape, dim):
    x = rand(shape, dtype)
    op = torch._log_softmax if log else torch._softmax
    with torch_tpu.no_fallback():
        y = op(x.to("tpu"), dim, False)
    close(y, op(x, dim, False), dtype)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
def test_softmax_backward(log, dtype, shape, dim):
    x = rand(shape, dtype)
    g = rand(shape, dtype, seed=1)
    fn = F.log_softmax if log else F.softmax
    xt = x.to("tpu").requires_grad_()
    xc = x.clone().requires_grad_()
    with torch_tpu.no_fallback():
        yt = fn(xt, dim=dim)
        yt.backward(g.to("tpu"))
    yc = fn(xc, dim=dim)
    yc.backward(g)
    close(yt.detach(), yc.detach(), dtype)
    # float16/bfloat16: CPU rounds intermediates (exp(y) * sum) to the dtype.
    loose = 5 if dtype in (torch.float16, torch.bfloat16) else 1
    close(xt.grad, xc.grad, dtype, atol=TOL[dtype]["atol"] * loose, rtol=TOL[dtype]["rtol"] * loose)


def test_softmax_special_values():
    x = torch.tensor([[0.0, float("-inf"), 1.0, 2.0], [float("-inf")] * 4, [1.0, float("nan"), 0.0, 0.0],
                      [1e30, -1e30, 80.0, -100.0], [float("inf"), 0.0, 1.0, 2.0]])
    for op in (torch.softmax, torch.log_softmax):
        close(op(x.to("tpu"), -1), op(x, -1), equal_nan=True)


def test_softmax_noncontiguous_and_out():
    x = rand((6, 40), seed=3).t()  # non-contiguous input
    close(torch.softmax(x.to("tpu"), 0), torch.softmax(x, 0))
    out = torch.empty(40, 6, device="tpu")
    torch._softmax(x.to("tpu"), 1, False, out=out)
    close(out, torch._softmax(x, 1, False))
    out_nc = torch.empty(6, 40, device="tpu").t()  # non-contiguous out
    torch._log_softmax(x.to("tpu"), 1, False, out=out_nc)
    close(out_nc, torch._log_softmax(x, 1, False))
    g = rand((40, 6), seed=4)
    y = torch._softmax(x, 1, False)
    gi = torch.empty(40, 6, device="tpu")
    torch.ops.aten._softmax_backward_data.out(g.to("tpu"), y.to("tpu"), 1, torch.float32, grad_input=gi)
    close(gi, torch._softmax_backward_data(g, y, 1, torch.float32))
    ly = torch._log_softmax(x, 1, False)
    gi2 = torch.empty(40, 6, device="tpu")
    torch.ops.aten._log_softmax_backward_data.out(g.to("tpu"), ly.to("tpu"), 1, torch.float32, out=gi2)
    close(gi2, torch._log_softmax_backward_data(g, ly, 1, torch.float32))


def test_softmax_half_to_float():
    x = rand((5, 300), torch.float16)
    for op in (torch._softmax, torch._log_softmax):
        y = op(x.to("tpu"), -1, True)
        assert y.dtype == torch.float32
        close(y, op(x.float(), -1, False), atol=1e-5, rtol=1e-5)
    # backward: float grad, half input dtype -> half grad_input (CUDA's rule)
    y = torch._softmax(x.float(), -1, False)
    g = rand((5, 300), seed=2)
    gi = torch._softmax_backward_data(g.to("tpu"), y.to("tpu"), -1, torch.float16)
    assert gi.dtype == torch.float16
    close(gi, torch._softmax_backward_data(g, y, -1, torch.float32).half(), torch.float16)
    with pytest.raises(RuntimeError, match="Half type only"):
        torch._softmax(x.float().to("tpu"), -1, True)


def test_softmax_errors_like_cpu():
    x = torch.randn(3, 4)
    for t in (x, x.to("tpu")):
        with pytest.raises(IndexError):
            torch._softmax(t, 2, False)
    with pytest.raises(NotImplementedError):
        torch._softmax(torch.ones(3, dtype=torch.long, device="tpu"), 0, False)


def test_softmax_second_device_and_stream():
    x = rand((8, 64))
    with torch.tpu.device(1):
        s = torch.tpu.Stream()
        with torch.tpu.stream(s):
            y = torch.softmax(x.to("tpu:1"), -1)
        s.synchronize()
    assert y.device == torch.device("tpu:1")
    close(y, torch.softmax(x, -1))


# ---- layer norm -------------------------------------------------------------------

LN_CASES = [((4, 16), (16,)), ((2, 3, 40), (40,)), ((2, 3, 5, 6), (5, 6)), ((0, 8), (8,)),
            ((3, 1000), (1000,)), ((5, 3), (3,))]


@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape,nshape", LN_CASES)
def test_layer_norm_forward_backward(affine, dtype, shape, nshape):
    x = rand(shape, dtype, scale=2.0) + 1.5
    w = rand(nshape, dtype, seed=1) if affine in ("both", "weight") else None
    b = rand(nshape, dtype, seed=2) if affine in ("both", "bias") else None
    g = rand(shape, dtype, seed=3)

    def run(device):
        xs = x.to(device).requires_grad_()
        ws = w.to(device).requires_grad_() if w is not None else None
        bs = b.to(device).requires_grad_() if b is not None else None
        y, mean, rstd = torch.native_layer_norm(xs, nshape, ws, bs, 1e-5)
        y.backward(g.to(device))
        return y, mean, rstd, xs.grad, ws.grad if ws is not None else None, bs.grad if bs is not None else None

    with torch_tpu.no_fallback():
        got = run("tpu")
    want = run("cpu")
    for k, (a, e) in enumerate(zip(got, want)):
        if e is None:
            assert a is None
            continue
        # mean/rstd (1, 2) of float16/bfloat16 input are float: FakeTensor's
        # and CUDA's dtype, where CPU keeps the input's.
        stat_float = k in (1, 2) and dtype in (torch.float16, torch.bfloat16)
        assert a.shape == e.shape and a.dtype == (torch.float32 if stat_float else e.dtype)
        # Parameter gradients sum over rows: allow for the summation order.
        close(a.detach().to(e.dtype), e.detach(), e.dtype, atol=TOL[dtype]["atol"] * 20,
              rtol=TOL[dtype]["rtol"] * 20)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_layer_norm_mixed_dtype(dtype):
    x = rand((6, 64), dtype)
    w, b = rand((64,), seed=1), rand((64,), seed=2)
    y, mean, rstd = torch.native_layer_norm(x.to("tpu"), (64,), w.to("tpu"), b.to("tpu"), 1e-5)
    ey, emean, erstd = torch.native_layer_norm(x, (64,), w, b, 1e-5)
    assert (y.dtype, mean.dtype, rstd.dtype) == (ey.dtype, emean.dtype, erstd.dtype)
    close(y, ey, dtype)
    close(mean, emean, atol=1e-5, rtol=1e-5)
    close(rstd, erstd, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mask", [(True, True, True), (True, False, False), (False, True, True),
                                  (False, False, True), (False, False, False)])
def test_layer_norm_backward_output_mask(mask):
    x, w, b, g = rand((7, 48)), rand((48,), seed=1), rand((48,), seed=2), rand((7, 48), seed=3)
    _, mean, rstd = torch.native_layer_norm(x, (48,), w, b, 1e-5)
    args = lambda d: (g.to(d), x.to(d), (48,), mean.to(d), rstd.to(d), w.to(d), b.to(d), list(mask))
    got = torch.ops.aten.native_layer_norm_backward(*args("tpu"))
    want = torch.ops.aten.native_layer_norm_backward(*args("cpu"))
    for a, e in zip(got, want):
        assert (a is None) == (e is None)
        if e is not None:
            close(a, e, atol=1e-4, rtol=1e-4)


def test_layer_norm_errors_like_cpu():
    x = torch.randn(3, 4)
    for d in ("cpu", "tpu"):
        with pytest.raises(RuntimeError, match="Given normalized_shape"):
            torch.native_layer_norm(x.to(d), (5,), None, None, 1e-5)
        with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
            torch.native_layer_norm(x.to(d), (4,), torch.ones(3, device=d), None, 1e-5)


def test_layer_norm_module_noncontiguous():
    m = torch.nn.LayerNorm(12)
    x = rand((12, 5, 3)).permute(1, 2, 0)
    mt = torch.nn.LayerNorm(12).to("tpu")
    mt.load_state_dict(m.state_dict())
    close(mt(x.to("tpu")), m(x))


# ---- nll_loss / cross_entropy ------------------------------------------------------


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [-100, 4])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_nll_loss(reduction, weighted, ignore, dtype):
    n, c = 37, 11
    logp = torch.log_softmax(rand((n, c)), -1).to(dtype)
    target = torch.randint(0, c, (n,), generator=torch.Generator().manual_seed(5))
    target[3] = ignore
    target[7] = 4
    weight = rand((c,), seed=6).abs().to(dtype) if weighted else None

    def run(device):
        x = logp.to(device).requires_grad_()
        loss = F.nll_loss(x, target.to(device), weight=None if weight is None else weight.to(device),
                          reduction=reduction, ignore_index=ignore)
        loss.backward(torch.ones_like(loss) if reduction == "none" else None)
        return loss, x.grad

    with torch_tpu.no_fallback():
        got = run("tpu")
    want = run("cpu")
    for a, e in zip(got, want):
        close(a.detach(), e.detach(), dtype, atol=TOL[dtype]["atol"] * 10, rtol=TOL[dtype]["rtol"] * 10)


def test_nll_loss_1d_and_empty_and_all_ignored():
    logp = torch.log_softmax(rand((5,)), -1)
    t = torch.tensor(2)
    for red in ("none", "mean", "sum"):
        close(F.nll_loss(logp.to("tpu"), t.to("tpu"), reduction=red), F.nll_loss(logp, t, reduction=red))
    x = torch.log_softmax(rand((4, 3)), -1)
    t = torch.full((4,), -100)
    for red in ("mean", "sum"):
        close(F.nll_loss(x.to("tpu"), t.to("tpu"), reduction=red), F.nll_loss(x, t, reduction=red),
              equal_nan=True)
    e = torch.empty(0, 3)
    te = torch.empty(0, dtype=torch.long)
    for red in ("none", "mean", "sum"):
        close(F.nll_loss(e.to("tpu"), te.to("tpu"), reduction=red), F.nll_loss(e, te, reduction=red),
              equal_nan=True)


def test_nll_loss_target_out_of_bounds_raises_at_sync():
    x = torch.log_softmax(rand((4, 3)), -1).to("tpu")
    t = torch.tensor([0, 1, 5, 2], device="tpu")
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):  # CPU's type and message
        F.nll_loss(x, t).item()
    torch.tpu.synchronize()  # the error was reported once and cleared
    with pytest.raises(RuntimeError):
        F.nll_loss(x, t.int())  # Long (or Byte) targets only, as on CPU
    with pytest.raises(RuntimeError):
        F.nll_loss(x.cpu(), t.int().cpu())


def test_nll_loss_out_variants():
    x = torch.log_softmax(rand((6, 4)), -1)
    t = torch.tensor([0, 1, 3, 2, 2, 1])
    out, tw = torch.empty((), device="tpu"), torch.empty((), device="tpu")
    torch.ops.aten.nll_loss_forward.output(x.to("tpu"), t.to("tpu"), None, 1, -100, output=out, total_weight=tw)
    eo, etw = torch.ops.aten.nll_loss_forward(x, t, None, 1, -100)
    close(out, eo)
    close(tw, etw)
    gi = torch.empty(6, 4, device="tpu")
    go = torch.tensor(2.0)
    torch.ops.aten.nll_loss_backward.grad_input(go.to("tpu"), x.to("tpu"), t.to("tpu"), None, 1, -100,
                                                tw, grad_input=gi)
    close(gi, torch.ops.aten.nll_loss_backward(go, x, t, None, 1, -100, etw))


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy(smoothing):
    logits = rand((16, 10))
    target = torch.randint(0, 10, (16,), generator=torch.Generator().manual_seed(1))
    xt = logits.to("tpu").requires_grad_()
    xc = logits.clone().requires_grad_()
    # Label smoothing also sums the log-probabilities (a reduction, another
    # family): let that run on the host, and check that ours did not.
    policy = torch_tpu.get_fallback_policy()
    torch_tpu.set_fallback_policy("allow" if smoothing else policy)
    torch_tpu.reset_stats()
    try:
        lt = F.cross_entropy(xt, target.to("tpu"), label_smoothing=smoothing)
        lt.backward()
    finally:
        torch_tpu.set_fallback_policy(policy)
    ops = torch_tpu.stats()["ops"]
    for op in ("aten::_log_softmax", "aten::nll_loss_forward", "aten::nll_loss_backward",
               "aten::_log_softmax_backward_data"):
        assert ops[op] == {"direct": 1}, (op, ops.get(op))
    lc = F.cross_entropy(xc, target, label_smoothing=smoothing)
    lc.backward()
    close(lt.detach(), lc.detach())
    close(xt.grad, xc.grad)


# ---- dropout -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATING)
def test_native_dropout_structure_and_rate(dtype):
    torch.manual_seed(0)
    x = (rand((300, 200), dtype, scale=1.0) + 3).to(dtype)
    p = 0.3
    with torch_tpu.no_fallback():
        out, mask = torch.native_dropout(x.to("tpu"), p, True)
    out, mask = out.cpu(), mask.cpu()
    assert mask.dtype == torch.bool and out.dtype == dtype
    keep = mask.double().mean().item()
    assert abs(keep - (1 - p)) < 0.01  # 60000 draws: sd ~ 0.0019
    expected = x * mask * (1 / (1 - p))
    close(out, expected.to(dtype), dtype)


def test_dropout_backward_and_module():
    torch.manual_seed(1)
    x = (rand((64, 50)) + 2).to("tpu").requires_grad_()
    with torch_tpu.no_fallback():
        y = F.dropout(x, 0.5, training=True)
        y.backward(torch.ones_like(y))
    kept = y.detach().cpu() != 0
    close(x.grad, kept.float() * 2.0)
    m = torch.nn.Dropout(0.2).to("tpu").eval()
    close(m(x.detach()), x.detach().cpu())


def test_dropout_edge_probabilities():
    x = (rand((100,)) + 5).to("tpu")
    out, mask = torch.native_dropout(x, 0.0, True)
    assert bool(mask.cpu().all()) and torch.equal(out.cpu(), x.cpu())
    out, mask = torch.native_dropout(x, 1.0, True)
    assert not bool(mask.cpu().any()) and bool((out.cpu() == 0).all())
    out, mask = torch.native_dropout(x, 0.5, False)
    assert bool(mask.cpu().all()) and torch.equal(out.cpu(), x.cpu())
    e = torch.empty(0, 3, device="tpu")
    out, mask = torch.native_dropout(e, 0.5, True)
    assert out.shape == (0, 3)
    with pytest.raises(RuntimeError, match="expects p to be in"):
        torch.native_dropout(x, 1.5, True)


def test_dropout_seeded_and_noncontiguous():
    x = (rand((40, 30)) + 5).t()
    torch.manual_seed(7)
    a, ma = torch.native_dropout(x.to("tpu"), 0.5, True)
    torch.manual_seed(7)
    b, mb = torch.native_dropout(x.to("tpu"), 0.5, True)
    c, mc = torch.native_dropout(x.to("tpu"), 0.5, True)
    assert torch.equal(ma.cpu(), mb.cpu()) and torch.equal(a.cpu(), b.cpu())
    assert not torch.equal(mb.cpu(), mc.cpu())
    close(a, x * ma.cpu() * 2.0)


# ---- a GPT-like block end to end -----------------------------------------------------


def test_gpt_like_step_no_fallback_for_nn_ops():
    torch.manual_seed(0)
    emb = rand((8, 32), scale=1.0)
    ln_w, ln_b = rand((32,), seed=1) + 1, rand((32,), seed=2)
    target = torch.randint(0, 32, (8,), generator=torch.Generator().manual_seed(3))

    def step(device):
        x = emb.to(device).requires_grad_()
        w = ln_w.to(device).requires_grad_()
        h = F.layer_norm(x, (32,), w, ln_b.to(device))
        att = torch.softmax(h, -1)
        logits = att * 10.0
        loss = F.cross_entropy(logits, target.to(device))
        loss.backward()
        return loss, x.grad, w.grad

    got, want = step("tpu"), step("cpu")
    for a, e in zip(got, want):
        close(a.detach(), e.detach(), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss2d_and_cross_entropy_nd(reduction, weighted):
    logp = torch.log_softmax(rand((2, 5, 3, 4)), 1)
    target = torch.randint(0, 5, (2, 3, 4), generator=torch.Generator().manual_seed(2))
    target[0, 1, 2] = -100
    weight = rand((5,), seed=3).abs() if weighted else None

    def run(device):
        x = logp.to(device).requires_grad_()
        w = None if weight is None else weight.to(device)
        loss = F.nll_loss(x, target.to(device), weight=w, reduction=reduction)
        loss.backward(torch.ones_like(loss) if reduction == "none" else None)
        return loss, x.grad

    with torch_tpu.no_fallback():
        got = run("tpu")
    for a, e in zip(got, run("cpu")):
        close(a.detach(), e.detach())
    # cross_entropy over [batch, classes, time] (GPT logits transposed) reaches nll_loss2d
    logits = rand((3, 7, 5))
    t = torch.randint(0, 7, (3, 5), generator=torch.Generator().manual_seed(4))
    with torch_tpu.no_fallback():
        lt = F.cross_entropy(logits.to("tpu"), t.to("tpu"), reduction=reduction)
    close(lt, F.cross_entropy(logits, t, reduction=reduction))
    with pytest.raises(RuntimeError, match="size mismatch"):
        torch.ops.aten.nll_loss2d_forward(logp.to("tpu"), target[:, :2].to("tpu"), None, 1, -100)
