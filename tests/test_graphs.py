"""Graph capture and replay on tpu: torch.accelerator.Graph, torch.tpu.TPUGraph,
torch.tpu.graph, graph pools and make_graphed_callables."""

import copy
import os
import threading
import subprocess
import sys

import pytest
import torch

import torch_tpu  # noqa: F401

DEV = "tpu"


def capture(fn, graph=None, **kw):
    g = graph if graph is not None else torch.tpu.TPUGraph()
    with torch.tpu.graph(g, **kw):
        out = fn()
    return g, out


def test_accelerator_graph_on_a_side_stream_records_then_replays():
    x = torch.zeros(2000, device=DEV)
    s = torch.Stream(device=DEV)
    g = torch.accelerator.Graph()
    with s, g:
        assert s.is_capturing()
        x += 1
        y = x * 2
    assert not s.is_capturing()
    # Capture recorded the work; nothing ran yet.
    assert x.sum().item() == 0
    g.replay()
    g.replay()
    torch.accelerator.synchronize()
    assert x.sum().item() == 4000
    assert y.sum().item() == 8000


def test_replay_uses_refilled_static_inputs():
    torch.manual_seed(0)
    lin = torch.nn.Linear(32, 16).to(DEV)
    x = torch.randn(64, 32, device=DEV)
    with torch.no_grad():
        lin(x)
        g, y = capture(lambda: torch.relu(lin(x)).sum(dim=1))
        for _ in range(3):
            new = torch.randn(64, 32)
            x.copy_(new)
            g.replay()
            ref = torch.relu(torch.nn.functional.linear(new, lin.weight.cpu(), lin.bias.cpu())).sum(dim=1)
            torch.testing.assert_close(y.cpu(), ref)


def test_replay_is_one_launch_per_replay():
    x = torch.ones(100, device=DEV)
    g, _ = capture(lambda: [x.mul_(1.5), x.add_(1), x.sub_(0.5), x.div_(2)])
    torch.tpu.synchronize()
    before = torch_tpu.stats()["launches"]
    g.replay()
    torch.tpu.synchronize()
    assert torch_tpu.stats()["launches"] - before == 1  # four kernels, one task
    torch.testing.assert_close(x.cpu(), torch.full((100,), 1.0))


def test_two_graphs_share_a_pool():
    a = torch.ones(1000, device=DEV)
    g1, b = capture(lambda: a * 2)
    g2, c = capture(lambda: b + 1, pool=g1.pool())
    assert g2.pool() == g1.pool()
    a.fill_(3)
    g1.replay()
    g2.replay()
    assert c.cpu().tolist() == [7.0] * 1000
    handle = torch.tpu.graph_pool_handle()
    g3, d = capture(lambda: a - 1, pool=handle)
    g4, e = capture(lambda: d * d, pool=handle)
    assert g3.pool() == g4.pool() == handle
    g3.replay()
    g4.replay()
    assert e.cpu().tolist() == [4.0] * 1000


def test_capture_allocations_come_from_the_private_pool_until_reset():
    torch.tpu.empty_cache()
    x = torch.ones(1 << 20, device=DEV)  # 4 MiB, large pool
    g, y = capture(lambda: x * 3)
    pool = g.pool()
    owned = [s for s in torch.tpu.memory_snapshot() if tuple(s["segment_pool_id"]) == pool]
    assert owned, "the capture's output should live in a segment of the graph's pool"
    assert any(b["state"] == "active_allocated" for s in owned for b in s["blocks"])
    # Freed outside the capture, a pool block is not handed to other tensors.
    ptr = y.data_ptr()
    del y
    z = torch.empty(1 << 20, device=DEV)
    assert z.data_ptr() != ptr
    reserved = torch.tpu.memory_reserved()
    g.reset()
    assert not [s for s in torch.tpu.memory_snapshot() if tuple(s["segment_pool_id"]) == pool]
    assert torch.tpu.memory_reserved() < reserved


SYNCS = {
    "item": lambda t: t.sum().item(),
    "cpu": lambda t: t.cpu(),
    "synchronize": lambda t: torch.tpu.synchronize(),
    "stream.synchronize": lambda t: torch.tpu.current_stream().synchronize(),
    "stream.query": lambda t: torch.tpu.current_stream().query(),
    "event.synchronize": lambda t: torch.tpu.current_stream().record_event().synchronize(),
    "pageable H2D copy": lambda t: torch.tensor([1.0, 2.0], device=DEV),
    "nonzero (data-dependent shape)": lambda t: torch.nonzero(t),
}


@pytest.mark.parametrize("name", sorted(SYNCS))
def test_sync_during_capture_raises_and_leaves_the_device_usable(name):
    x = torch.arange(8.0, device=DEV)
    g = torch.tpu.TPUGraph()
    with pytest.raises(RuntimeError, match="capturing a graph"):
        with torch.tpu.graph(g):
            y = x + 1
            SYNCS[name](y)
    assert not torch.tpu.is_current_stream_capturing()
    # Nothing was kept: the graph can capture again, and eager work runs.
    assert (x + 1).sum().item() == 36
    g2, y = capture(lambda: x * 2)
    g2.replay()
    assert y.sum().item() == 56


def test_capture_end_reports_an_invalidated_capture():
    x = torch.ones(4, device=DEV)
    s = torch.tpu.Stream()
    g = torch.accelerator.Graph()
    with torch.tpu.stream(s):
        g.capture_begin()
        with pytest.raises(RuntimeError, match="capturing a graph"):
            x.sum().item()
        with pytest.raises(RuntimeError, match="invalidated"):
            x.add_(1)
        with pytest.raises(RuntimeError, match="capture failed.*invalidated"):
            g.capture_end()
    assert x.sum().item() == 4


def test_capture_on_the_default_stream_is_refused():
    g = torch.accelerator.Graph()
    with pytest.raises(RuntimeError, match="non-default stream"):
        with g:
            pass
    assert not torch.tpu.is_current_stream_capturing()


def _sync_from_another_thread():
    result = {}

    def run():
        try:
            torch.tpu.synchronize()
            result["ok"] = True
        except RuntimeError as e:
            result["error"] = str(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return result


def test_capture_error_modes():
    x = torch.ones(4, device=DEV)
    # relaxed: a device-wide synchronize is allowed (it waits for earlier work only).
    g, y = capture(lambda: [torch.tpu.synchronize(), x * 5][1], capture_error_mode="relaxed")
    g.replay()
    assert y.sum().item() == 20
    # thread_local: another thread may synchronize; the capturing thread may not.
    g, other = capture(_sync_from_another_thread, capture_error_mode="thread_local")
    assert other == {"ok": True}
    with pytest.raises(RuntimeError, match="capture_error_mode=thread_local"):
        capture(lambda: torch.tpu.synchronize(), capture_error_mode="thread_local")
    # global: another thread's synchronize is refused too (and invalidates the capture).
    with pytest.raises(RuntimeError, match="invalidated"):
        with torch.tpu.graph(torch.tpu.TPUGraph()):
            other = _sync_from_another_thread()
    assert "capture_error_mode=global" in other["error"]


def test_random_ops_draw_new_numbers_on_each_replay():
    torch.manual_seed(123)
    g, r = capture(lambda: torch.rand(1000, device=DEV) + torch.randn(1000, device=DEV))
    draws = []
    for _ in range(3):
        g.replay()
        draws.append(r.cpu().clone())
    assert not torch.equal(draws[0], draws[1]) and not torch.equal(draws[1], draws[2])
    # The generator advanced by what each replay consumed: seeding again
    # replays the same sequence.
    torch.manual_seed(123)
    again = []
    for _ in range(3):
        g.replay()
        again.append(r.cpu().clone())
    for a, b in zip(draws, again):
        assert torch.equal(a, b)
    # A replay draws from the generator as eager would: the first replay
    # after seeding gives eager's first draw, and eager continues after it.
    h, u = capture(lambda: torch.rand(1000, device=DEV))
    torch.manual_seed(5)
    h.replay()
    replayed = u.cpu().clone()
    after = torch.rand(1000, device=DEV).cpu()
    torch.manual_seed(5)
    first = torch.rand(1000, device=DEV).cpu()
    assert torch.equal(replayed, first)
    assert not torch.equal(after, first)
    torch.manual_seed(5)
    torch.rand(1000, device=DEV)
    assert torch.equal(torch.rand(1000, device=DEV).cpu(), after)


def test_dropout_in_a_graph_changes_mask_per_replay():
    x = torch.ones(4096, device=DEV)
    g, y = capture(lambda: torch.nn.functional.dropout(x, 0.5, training=True))
    g.replay()
    m1 = (y.cpu() == 0)
    g.replay()
    m2 = (y.cpu() == 0)
    assert 0.4 < m1.float().mean().item() < 0.6
    assert not torch.equal(m1, m2)


def test_keep_graph_instantiate_debug_dump_and_reset(tmp_path):
    x = torch.ones(16, device=DEV)
    g = torch.tpu.TPUGraph(keep_graph=True)
    g.enable_debug_mode()
    with torch.tpu.graph(g):
        x.mul_(2)
        x.add_(1)
    path = tmp_path / "graph.dot"
    g.debug_dump(str(path))
    text = path.read_text()
    assert "digraph" in text and text.count("->") >= 1
    g.replay()  # instantiates on first replay
    assert x[0].item() == 3
    g.reset()
    with pytest.raises(RuntimeError, match="holds no capture"):
        g.replay()
    with torch.tpu.graph(g):  # recapture after reset
        x.add_(10)
    g.replay()
    assert x[0].item() == 13


def test_graph_replay_in_strict_mode():
    was_strict = torch_tpu._C._strict_mode()
    torch_tpu._C._set_strict_mode(True)
    try:
        w = torch.randn(32, 32, device=DEV)
        x = torch.randn(8, 32, device=DEV)
        g, y = capture(lambda: torch.tanh(x @ w))
        g.replay()
        torch.testing.assert_close(y.cpu(), torch.tanh(x.cpu() @ w.cpu()))
    finally:
        torch_tpu._C._set_strict_mode(was_strict)


def _models():
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Dropout(0.0),
                              torch.nn.Linear(64, 4))
    return cpu, copy.deepcopy(cpu).to(DEV)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_make_graphed_callables_trains_like_cpu(set_to_none):
    cpu, tpu = _models()
    tpu = torch.tpu.make_graphed_callables(tpu, (torch.randn(8, 32, device=DEV),))
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.1, momentum=0.9)
    opt_t = torch.optim.SGD(tpu.parameters(), lr=0.1, momentum=0.9)
    torch.manual_seed(1)
    for _ in range(5):
        x, t = torch.randn(8, 32), torch.randn(8, 4)
        for model, opt, xx, tt in ((cpu, opt_c, x, t), (tpu, opt_t, x.to(DEV), t.to(DEV))):
            opt.zero_grad(set_to_none=set_to_none)
            loss = torch.nn.functional.mse_loss(model(xx), tt)
            loss.backward()
            opt.step()
        for pc, pt in zip(cpu.parameters(), tpu.parameters()):
            torch.testing.assert_close(pt.detach().cpu(), pc.detach(), rtol=1e-5, atol=1e-6)
    # eval mode runs the eager forward
    tpu.eval()
    torch.testing.assert_close(tpu(torch.ones(2, 32, device=DEV)).cpu(), cpu.eval()(torch.ones(2, 32)),
                               rtol=1e-5, atol=1e-6)


def test_make_graphed_callables_functions_and_input_grads():
    w = torch.randn(16, 16, device=DEV, requires_grad=True)

    def f(a, b):
        return (a @ w).relu() * b

    a0 = torch.randn(4, 16, device=DEV, requires_grad=True)
    b0 = torch.randn(4, 16, device=DEV)
    gf = torch.tpu.make_graphed_callables(f, (a0, b0))
    for _ in range(2):
        a = torch.randn(4, 16, device=DEV, requires_grad=True)
        b = torch.randn(4, 16, device=DEV)
        out = gf(a, b)
        out.sum().backward()
        a_ref = a.detach().cpu().requires_grad_()
        w_ref = w.detach().cpu().requires_grad_()
        ((a_ref @ w_ref).relu() * b.cpu()).sum().backward()
        torch.testing.assert_close(out.detach().cpu(), ((a_ref @ w_ref).relu() * b.cpu()).detach())
        torch.testing.assert_close(a.grad.cpu(), a_ref.grad)
        w.grad = None


def test_make_graphed_callables_rejects_non_tensor_args():
    with pytest.raises(TypeError, match="tpu tensor"):
        torch.tpu.make_graphed_callables(lambda a: a, (torch.ones(2),))


def test_graph_survives_in_a_fresh_process_with_strict_env():
    code = (
        "import torch, torch_tpu\n"
        "x = torch.ones(8, device='tpu')\n"
        "g = torch.tpu.TPUGraph()\n"
        "with torch.tpu.graph(g):\n"
        "    y = x * 2 + 1\n"
        "for _ in range(3):\n"
        "    g.replay()\n"
        "    x.copy_(y)\n"
        "print(y.sum().item())\n"
    )
    env = dict(os.environ, TORCH_TPU_STRICT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # x: 1 -> 3 -> 7 -> 15 (y is refilled by each replay, copied back eagerly)
    assert float(out.stdout.strip()) == 8 * 15


def test_replay_inside_another_capture_draws_new_numbers():
    inner, r = capture(lambda: torch.rand(256, device=DEV))
    outer, _ = capture(lambda: inner.replay())
    outer.replay()
    a = r.cpu().clone()
    outer.replay()
    assert not torch.equal(a, r.cpu())


def test_pinned_host_memory_used_in_a_capture_stays_the_graphs():
    x = torch.zeros(4, device=DEV)
    g = torch.tpu.TPUGraph()
    with torch.tpu.graph(g):
        h = torch.arange(4.0).pin_memory()
        x.copy_(h, non_blocking=True)
        del h
    other = torch.full((4,), 7.0).pin_memory()  # must not reuse the graph's block
    g.replay()
    assert x.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert other.tolist() == [7.0] * 4


def test_default_stream_cannot_join_a_capture():
    with pytest.raises(RuntimeError, match="default stream"):
        with torch.tpu.graph(torch.tpu.TPUGraph()):
            torch.tpu.default_stream().wait_stream(torch.tpu.current_stream())


def test_reset_reports_a_failed_replay():
    x = torch.arange(4.0, device=DEV)
    idx = torch.tensor([0, 1], device=DEV)
    g, _ = capture(lambda: x.index_select(0, idx))
    idx.fill_(9)  # out of range at replay
    g.replay()
    with pytest.raises(Exception, match="index"):
        g.reset()
    torch.tpu.synchronize()  # reported once, then the device is clean


@pytest.mark.parametrize("opt_cls", [torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD])
def test_whole_training_step_captured_with_a_capturable_optimizer(opt_cls):
    # The CUDA-graphs pattern: warm up on a side stream, capture forward,
    # backward and optimizer.step() once, then refill the batch and replay.
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    tpu = copy.deepcopy(cpu).to(DEV)
    kw = {"lr": 1e-2} if opt_cls is torch.optim.SGD else {"lr": 1e-2, "capturable": True}
    opt_c = opt_cls(cpu.parameters(), lr=1e-2)
    opt_t = opt_cls(tpu.parameters(), **kw)
    batches = [(torch.randn(8, 16), torch.randn(8, 1)) for _ in range(7)]
    sx, sy = torch.zeros(8, 16, device=DEV), torch.zeros(8, 1, device=DEV)

    def step_cpu(x, y):
        opt_c.zero_grad()
        loss = torch.nn.functional.mse_loss(cpu(x), y)
        loss.backward()
        opt_c.step()
        return loss.item()

    side = torch.tpu.Stream()
    side.wait_stream(torch.tpu.current_stream())
    with torch.tpu.stream(side):
        for x, y in batches[:3]:
            sx.copy_(x)
            sy.copy_(y)
            opt_t.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(tpu(sx), sy).backward()
            opt_t.step()
    torch.tpu.current_stream().wait_stream(side)
    for x, y in batches[:3]:
        step_cpu(x, y)
    g = torch.tpu.TPUGraph()
    opt_t.zero_grad(set_to_none=True)
    with torch.tpu.graph(g):
        loss = torch.nn.functional.mse_loss(tpu(sx), sy)
        loss.backward()
        opt_t.step()
    for x, y in batches[3:]:
        sx.copy_(x)
        sy.copy_(y)
        g.replay()
        torch.testing.assert_close(loss.item(), step_cpu(x, y), rtol=1e-5, atol=1e-6)
    for a, b in zip(tpu.parameters(), cpu.parameters()):
        torch.testing.assert_close(a.detach().cpu(), b.detach(), rtol=1e-5, atol=1e-5)
