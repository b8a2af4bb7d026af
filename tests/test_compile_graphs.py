"""torch.compile(mode="reduce-overhead") on tpu: compiled graphs replayed
through tpu graph capture (torch_tpu/_compile/graphs.py)."""

import copy

import pytest
import torch
from torch._dynamo.utils import counters

import torch_tpu

DEV = "tpu"


pytestmark = pytest.mark.usefixtures("fresh_dynamo")  # tests/conftest.py


def chain(x, w):
    for _ in range(6):
        x = torch.tanh(x @ w) + 1
    return x


def launches_of(fn):
    torch.tpu.synchronize()
    before = torch_tpu.stats()["launches"]
    out = fn()
    torch.tpu.synchronize()
    return torch_tpu.stats()["launches"] - before, out


def test_reduce_overhead_replays_one_task_per_call():
    w = torch.randn(64, 64, device=DEV) / 8
    cf = torch.compile(chain, mode="reduce-overhead")
    x = torch.randn(64, 64, device=DEV)
    for _ in range(3):
        cf(x, w)
    n, y = launches_of(lambda: cf(x, w))
    assert n == 1, f"{n} launches: the compiled graph was not replayed"
    torch.testing.assert_close(y.cpu(), chain(x.cpu(), w.cpu()), rtol=1e-4, atol=1e-4)
    assert counters["inductor"]["cudagraph_skips"] == 0
    eager_n, _ = launches_of(lambda: torch.compile(chain)(x, w))
    assert eager_n > 6


def test_reduce_overhead_results_are_not_overwritten_by_later_calls():
    w = torch.randn(32, 32, device=DEV) / 6
    cf = torch.compile(chain, mode="reduce-overhead")
    xs = [torch.randn(16, 32, device=DEV) for _ in range(4)]
    outs = [cf(x, w) for x in xs]
    for x, y in zip(xs, outs):
        torch.testing.assert_close(y.cpu(), chain(x.cpu(), w.cpu()), rtol=1e-4, atol=1e-4)


def test_reduce_overhead_lends_outputs_and_moves_only_those_still_held():
    # Outputs are the graph's memory, lent without a copy; one the caller
    # still holds (or a view of it) is moved to memory of its own before
    # the graph runs again (csrc/python/graph_outputs.cpp).
    w = torch.randn(32, 32, device=DEV) / 6
    cf = torch.compile(chain, mode="reduce-overhead")
    x1, x2 = torch.randn(16, 32, device=DEV), torch.randn(16, 32, device=DEV)
    for _ in range(3):
        cf(x1, w)
    graph_memory = cf(x1, w).data_ptr()  # dropped at once
    assert cf(x2, w).data_ptr() == graph_memory  # nothing held: no move
    y = cf(x1, w)
    row = y[3]
    z = cf(x2, w)
    assert z.data_ptr() == graph_memory and y.data_ptr() != graph_memory
    assert row.data_ptr() == y.data_ptr() + 3 * 32 * 4  # the view moved with it
    torch.testing.assert_close(y.cpu(), chain(x1.cpu(), w.cpu()), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(row.cpu(), chain(x1.cpu(), w.cpu())[3], rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(z.cpu(), chain(x2.cpu(), w.cpu()), rtol=1e-4, atol=1e-4)


def test_reduce_overhead_two_forwards_before_one_backward():
    # The first forward's saved activations are still held by autograd when
    # the second forward replays: they move, and the backward reads them.
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    tpu = copy.deepcopy(cpu).to(DEV)
    ctpu = torch.compile(tpu, mode="reduce-overhead")
    for step in range(4):
        xs = [torch.randn(8, 16) for _ in range(2)]
        (cpu(xs[0]).sum() + cpu(xs[1]).square().sum()).backward()
        (ctpu(xs[0].to(DEV)).sum() + ctpu(xs[1].to(DEV)).square().sum()).backward()
        for pc, pt in zip(cpu.parameters(), tpu.parameters()):
            torch.testing.assert_close(pt.grad.cpu(), pc.grad, rtol=1e-4, atol=1e-5)
            pc.grad, pt.grad = None, None
    assert counters["inductor"]["cudagraph_skips"] == 0


def test_reduce_overhead_records_each_shape_of_a_dynamic_graph():
    w = torch.randn(32, 32, device=DEV) / 6
    cf = torch.compile(chain, mode="reduce-overhead", dynamic=True)
    for rows in (4, 9, 4, 17, 9):
        x = torch.randn(rows, 32, device=DEV)
        torch.testing.assert_close(cf(x, w).cpu(), chain(x.cpu(), w.cpu()), rtol=1e-4, atol=1e-4)


def test_reduce_overhead_training_matches_cpu_eager():
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.LayerNorm(64),
                              torch.nn.Linear(64, 4))
    tpu = copy.deepcopy(cpu).to(DEV)
    ctpu = torch.compile(tpu, mode="reduce-overhead")
    opt_c = torch.optim.AdamW(cpu.parameters(), lr=1e-2)
    opt_t = torch.optim.AdamW(tpu.parameters(), lr=1e-2)
    for _ in range(5):
        x, t = torch.randn(8, 32), torch.randn(8, 4)
        lc = torch.nn.functional.mse_loss(cpu(x), t)
        opt_c.zero_grad()
        lc.backward()
        opt_c.step()
        lt = torch.nn.functional.mse_loss(ctpu(x.to(DEV)), t.to(DEV))
        opt_t.zero_grad()
        lt.backward()
        opt_t.step()
        torch.testing.assert_close(lt.item(), lc.item(), rtol=1e-5, atol=1e-6)
    assert sum(counters["graph_break"].values()) == 0
    assert counters["inductor"]["cudagraph_skips"] == 0
    # It replayed: a step launches fewer tasks than the same step compiled
    # without graphs.
    x, t = torch.randn(8, 32).to(DEV), torch.randn(8, 4).to(DEV)

    def step(m):
        torch.nn.functional.mse_loss(m(x), t).backward()

    n_replay, _ = launches_of(lambda: step(ctpu))
    n_plain, _ = launches_of(lambda: step(torch.compile(tpu)))
    assert n_replay <= n_plain - 4, (n_replay, n_plain)


def test_make_graphed_callables_of_a_compiled_module():
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    tpu = copy.deepcopy(cpu).to(DEV)
    graphed = torch.tpu.make_graphed_callables(torch.compile(tpu), (torch.randn(8, 32, device=DEV),))
    opt_c = torch.optim.SGD(cpu.parameters(), lr=0.1)
    opt_t = torch.optim.SGD(tpu.parameters(), lr=0.1)
    for _ in range(3):
        x, t = torch.randn(8, 32), torch.randn(8, 4)
        lt = torch.nn.functional.mse_loss(graphed(x.to(DEV)), t.to(DEV))
        opt_t.zero_grad()
        lt.backward()
        opt_t.step()
        lc = torch.nn.functional.mse_loss(cpu(x), t)
        opt_c.zero_grad()
        lc.backward()
        opt_c.step()
        torch.testing.assert_close(lt.item(), lc.item(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_compile_gpt_example_matches_cpu_eager(mode):
    # The GPT backward writes into its donated saved activations: the first
    # recording must warm up on copies (a regression of reduce-overhead).
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
    try:
        import compile_gpt
    finally:
        sys.path.pop(0)
    assert compile_gpt.main(["--steps", "3", "--mode", mode]) == 0


def test_reduce_overhead_applies_input_mutations_and_keeps_aliases():
    def f(x):
        x.add_(1)
        return x * 2

    cf = torch.compile(f, mode="reduce-overhead")
    x = torch.zeros(4, device=DEV)
    for i in range(1, 4):
        y = cf(x)
        assert x.cpu().tolist() == [float(i)] * 4
        assert y.cpu().tolist() == [2.0 * i] * 4

    def g(a):
        b = a * 2
        return b, b.view(-1)[:2]

    cg = torch.compile(g, mode="reduce-overhead")
    a = torch.ones(2, 2, device=DEV)
    for _ in range(3):
        b, c = cg(a)
    assert b.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
    b.fill_(5)
    assert c.cpu().tolist() == [5.0, 5.0]
