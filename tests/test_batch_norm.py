"""Batch norm on tpu against CPU eager: native_batch_norm and
_native_batch_norm_legit (training with and without running statistics,
eval), their backward through autograd, float16/bfloat16 input with float
parameters, channels-last input, the running-statistics update, and the
shapes and dtypes FakeTensor predicts (which tpu follows where CPU differs:
float statistics for reduced-precision input, running statistics in eval)."""

import pytest
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode

import torch_tpu

aten = torch.ops.aten
TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float64: dict(atol=1e-12, rtol=1e-12),
       torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=6e-2, rtol=2e-2)}


def rand(shape, dtype=torch.float32, seed=0, scale=2.0, shift=0.5):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


def close(tpu, cpu, dtype, **kw):
    tol = dict(TOL[dtype])
    tol.update(kw)
    torch.testing.assert_close(tpu.cpu().to(cpu.dtype), cpu, **tol)


SHAPES = [(4, 3), (2, 3, 7), (3, 5, 4, 6), (2, 4, 3, 2, 3), (1, 2, 1, 3)]


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_training_forward_backward_and_running_stats(shape, dtype, affine):
    C = shape[1]
    x = rand(shape, dtype)
    w, b = (rand((C,), dtype, 1), rand((C,), dtype, 2)) if affine else (None, None)
    rm, rv = rand((C,), dtype, 3, 0.1), rand((C,), dtype, 4, 0.1, 1.0).abs()
    g = rand(shape, dtype, 5)

    def run(device):
        leaves = [t.to(device).requires_grad_() for t in (x, w, b) if t is not None]
        m, v = rm.to(device, copy=True), rv.to(device, copy=True)
        y = F.batch_norm(leaves[0], m, v, *(leaves[1:] or [None, None]), training=True, momentum=0.3, eps=1e-3)
        grads = torch.autograd.grad(y, leaves, g.to(device))
        return y, grads, m, v

    y_cpu, grads_cpu, m_cpu, v_cpu = run("cpu")
    with torch_tpu.no_fallback():
        y, grads, m, v = run("tpu")
    close(y.detach(), y_cpu.detach(), dtype)
    close(m, m_cpu, dtype)
    close(v, v_cpu, dtype)
    for a, e in zip(grads, grads_cpu):
        assert a.dtype == e.dtype
        close(a, e, dtype, atol=TOL[dtype]["atol"] * 10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_eval_forward_backward(dtype):
    x, w, b = rand((3, 4, 5, 5), dtype), rand((4,), dtype, 1), rand((4,), dtype, 2)
    rm, rv = rand((4,), dtype, 3, 0.5), rand((4,), dtype, 4, 0.3, 1.0).abs()
    g = rand(x.shape, dtype, 5)
    outs = {}
    for device in ("cpu", "tpu"):
        leaves = [t.to(device).requires_grad_() for t in (x, w, b)]
        y = F.batch_norm(leaves[0], rm.to(device), rv.to(device), leaves[1], leaves[2], training=False)
        outs[device] = (y, torch.autograd.grad(y, leaves, g.to(device)))
    close(outs["tpu"][0].detach(), outs["cpu"][0].detach(), dtype)
    for a, e in zip(outs["tpu"][1], outs["cpu"][1]):
        close(a, e, dtype)


def test_statistics_follow_fake_tensor_where_cpu_differs():
    x = rand((2, 3, 4, 4), torch.bfloat16)
    rm, rv = torch.zeros(3), torch.ones(3)
    xt, rmt, rvt = x.to("tpu"), rm.to("tpu"), rv.to("tpu")
    for training in (True, False):
        real = torch.native_batch_norm(xt, None, None, rmt.clone(), rvt.clone(), training, 0.1, 1e-5)
        with FakeTensorMode(allow_non_fake_inputs=True) as mode:
            fake = torch.native_batch_norm(mode.from_tensor(xt), None, None, mode.from_tensor(rmt),
                                           mode.from_tensor(rvt), training, 0.1, 1e-5)
        for r, f in zip(real, fake):
            assert (r.shape, r.dtype, r.stride()) == (f.shape, f.dtype, f.stride())
    # training: the batch statistics (CPU's values, in float)
    _, mean, invstd = torch.native_batch_norm(x.float(), None, None, None, None, True, 0.1, 1e-5)
    _, tmean, tinvstd = torch.native_batch_norm(x.float().to("tpu"), None, None, None, None, True, 0.1, 1e-5)
    close(tmean, mean, torch.float32)
    close(tinvstd, invstd, torch.float32, rtol=1e-4)
    # eval: the running statistics and 1 / sqrt(var + eps)
    rv2 = torch.tensor([1.0, 4.0, 0.25])
    _, em, ei = torch.native_batch_norm(xt, None, None, rmt, rv2.to("tpu"), False, 0.1, 1e-5)
    torch.testing.assert_close(em.cpu(), rm)
    torch.testing.assert_close(ei.cpu(), 1 / torch.sqrt(rv2 + 1e-5))


def test_mixed_reduced_input_with_float_parameters():
    x = rand((4, 3, 6, 6), torch.bfloat16)
    w, b, rm, rv = rand((3,), seed=1), rand((3,), seed=2), torch.zeros(3), torch.ones(3)
    y_cpu = F.batch_norm(x, rm, rv, w, b, training=True)
    rmt, rvt = torch.zeros(3, device="tpu"), torch.ones(3, device="tpu")
    with torch_tpu.no_fallback():
        y = F.batch_norm(x.to("tpu"), rmt, rvt, w.to("tpu"), b.to("tpu"), training=True)
    assert y.dtype == torch.bfloat16
    close(y, y_cpu, torch.bfloat16)
    close(rmt, rm, torch.float32, atol=1e-2, rtol=1e-2)
    close(rvt, rv, torch.float32, atol=1e-2, rtol=1e-2)


def test_legit_overloads_and_no_training():
    x, w, b = rand((2, 3, 4, 4)), rand((3,), seed=1), rand((3,), seed=2)
    for args in [(True, 0.2, 1e-5), (False, 0.2, 1e-5)]:
        rm, rv = torch.zeros(3), torch.ones(3)
        rmt, rvt = rm.to("tpu"), rv.to("tpu")
        e = aten._native_batch_norm_legit(x, w, b, rm, rv, *args)
        with torch_tpu.no_fallback():
            a = aten._native_batch_norm_legit(x.to("tpu"), w.to("tpu"), b.to("tpu"), rmt, rvt, *args)
        close(a[0], e[0], torch.float32)
        close(rmt, rm, torch.float32)
        close(rvt, rv, torch.float32)
    e = aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
    with torch_tpu.no_fallback():
        a = aten._native_batch_norm_legit.no_stats(x.to("tpu"), w.to("tpu"), b.to("tpu"), True, 0.1, 1e-5)
    for t, c in zip(a, e):
        close(t, c, torch.float32)
    rm, rv = rand((3,), seed=3), rand((3,), seed=4).abs()
    e = aten._native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 1e-5)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        a = aten._native_batch_norm_legit_no_training(x.to("tpu"), w.to("tpu"), b.to("tpu"), rm.to("tpu"),
                                                      rv.to("tpu"), 0.1, 1e-5)
    assert torch_tpu.stats()["ops"]["aten::_native_batch_norm_legit_no_training"] == {"direct": 1}
    close(a[0], e[0], torch.float32)


def test_channels_last_and_noncontiguous_running_stats():
    x = rand((2, 4, 5, 3)).contiguous(memory_format=torch.channels_last)
    rm = torch.zeros(4, 2)[:, 0]
    rv = torch.ones(4, 2)[:, 0]
    y_cpu = F.batch_norm(x, rm, rv, training=True)
    rmt, rvt = torch.zeros(4, 2, device="tpu")[:, 0], torch.ones(4, 2, device="tpu")[:, 0]
    y = F.batch_norm(x.to("tpu"), rmt, rvt, training=True)
    assert y.is_contiguous(memory_format=torch.channels_last)
    close(y, y_cpu, torch.float32)
    close(rmt, rm, torch.float32)
    close(rvt, rv, torch.float32)


def test_module_trains_like_cpu():
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
    tpu = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
    tpu.load_state_dict(cpu.state_dict())
    tpu.to("tpu")
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.1)
    opt_t = torch.optim.SGD(tpu.parameters(), lr=0.1)
    for step in range(3):
        x = rand((4, 3, 8, 8), seed=step)
        for model, opt, xx in ((cpu, opt_c, x), (tpu, opt_t, x.to("tpu"))):
            opt.zero_grad()
            model(xx).square().mean().backward()
            opt.step()
    for (k, a), (_, e) in zip(tpu.state_dict().items(), cpu.state_dict().items()):
        torch.testing.assert_close(a.cpu(), e, atol=1e-4, rtol=1e-4, msg=k)


@pytest.mark.parametrize("bad,match", [
    (dict(weight=torch.ones(4)), "weight should contain 3 elements not 4"),
    (dict(running_mean=torch.zeros(2)), "running_mean should contain 3 elements not 2"),
    (dict(weight=torch.ones(3, dtype=torch.float64)), "expected weight to have dtype"),
])
def test_bad_arguments(bad, match):
    x = rand((2, 3, 4)).to("tpu")
    args = dict(weight=None, bias=None, running_mean=torch.zeros(3), running_var=torch.ones(3))
    args.update(bad)
    args = {k: v.to("tpu") if v is not None else v for k, v in args.items()}
    before = torch_tpu.stats()["launches"]
    with pytest.raises(RuntimeError, match=match):
        torch.native_batch_norm(x, args["weight"], args["bias"], args["running_mean"], args["running_var"],
                                True, 0.1, 1e-5)
    assert torch_tpu.stats()["launches"] == before
    with pytest.raises(RuntimeError, match="must be defined in evaluation mode"):
        torch.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5)


# _batch_norm_with_update (export and compile graphs) and batch_norm_backward

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_norm_with_update_and_backward_match_cpu(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, 5, 5, generator=g, dtype=dtype)
    w, b = torch.randn(3, generator=g, dtype=dtype), torch.randn(3, generator=g, dtype=dtype)
    grad = torch.randn(4, 3, 5, 5, generator=g, dtype=dtype)
    results = {}
    for device in ("cpu", "tpu"):
        xd, wd, bd, gd = (t.to(device) for t in (x, w, b, grad))
        rm, rv = torch.zeros(3, dtype=dtype, device=device), torch.ones(3, dtype=dtype, device=device)
        out, mean, invstd, reserve = aten._batch_norm_with_update(xd, wd, bd, rm, rv, 0.1, 1e-5)
        grads = aten.batch_norm_backward(gd, xd, wd, rm, rv, mean, invstd, True, 1e-5, [True, True, True], reserve)
        results[device] = [out, mean, invstd, rm, rv, *grads]
    for cpu, tpu in zip(results["cpu"], results["tpu"]):
        torch.testing.assert_close(tpu.cpu(), cpu)


def test_batch_norm_with_update_out_matches_functional():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(4, 3, 6, generator=g).to("tpu")
    w, b = torch.randn(3, generator=g).to("tpu"), torch.randn(3, generator=g).to("tpu")
    rm, rv = torch.zeros(3, device="tpu"), torch.ones(3, device="tpu")
    expected = aten._batch_norm_with_update(x, w, b, rm.clone(), rv.clone(), 0.1, 1e-5)
    outs = [torch.empty(0, device="tpu") for _ in range(3)] + [torch.empty(0, dtype=torch.uint8, device="tpu")]
    result = aten._batch_norm_with_update.out(x, w, b, rm, rv, 0.1, 1e-5, out=outs[0], save_mean=outs[1],
                                               save_invstd=outs[2], reserve=outs[3])
    for r, o, e in zip(result, outs, expected):
        assert r is o
        torch.testing.assert_close(o.cpu(), e.cpu())
    # The running statistics were updated in place, as by the functional form.
    torch.testing.assert_close(rm.cpu(), x.cpu().mean((0, 2)) * 0.1)
