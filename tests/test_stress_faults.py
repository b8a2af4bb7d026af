"""The runtime under load and faults: many host threads training at once on
two devices, generators drawn from concurrently, out-of-memory in the middle
of an op and of a backward, device-side errors raised on the autograd device
threads, and the process lifecycle (exit with queued work, spawn, a
synchronize racing launches). Every result is checked against CPU or against
the same work done serially."""

import json
import os
import subprocess
import sys
import threading

import pytest
import torch
import torch_tpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = 8


def _run_threads(worker, n=THREADS):
    """Runs worker(i) on n threads released together; re-raises the first error."""
    start = threading.Barrier(n)
    errors = []

    def body(i):
        try:
            start.wait()
            worker(i)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    if errors:
        raise errors[0]


def _train(device, seed, steps=3):
    """A small conv + MLP model, SGD with momentum: the parameters after `steps`."""
    g = torch.Generator().manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
        torch.nn.Linear(4 * 6 * 6, 16), torch.nn.LayerNorm(16), torch.nn.GELU(), torch.nn.Linear(16, 5))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(8, 3, 6, 6, generator=g).to(device)
    target = torch.randint(0, 5, (8,), generator=g).to(device)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), target).backward()
        opt.step()
    return [p.detach().cpu() for p in model.parameters()]


def test_eight_threads_train_on_two_devices_with_their_own_streams():
    """Forward, backward and optimizer steps from 8 threads at once, spread
    over both devices, each thread on a stream of its own: every thread's
    parameters equal the same training run on CPU."""
    results = {}

    def worker(i):
        device = i % torch.tpu.device_count()
        torch.tpu.set_device(device)
        with torch.tpu.stream(torch.tpu.Stream(device=device)):
            results[i] = _train(f"tpu:{device}", seed=i)
        torch.tpu.synchronize(device)

    _run_threads(worker)
    for i in range(THREADS):
        for a, b in zip(results[i], _train("cpu", seed=i)):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5, msg=lambda m: f"thread {i}: {m}")


def test_generators_drawn_from_many_threads_give_their_serial_streams():
    """Each thread owns a seeded tpu generator and draws from it while the
    others draw from theirs (and from the default generator): each
    generator's numbers are those it gives when drawn from alone."""
    def draws(i):
        g = torch.Generator(device=f"tpu:{i % torch.tpu.device_count()}").manual_seed(1000 + i)
        dev = g.device
        out = []
        for k in range(20):
            out.append(torch.rand(257, generator=g, device=dev))
            out.append(torch.randn(3, 5, generator=g, device=dev))
            out.append(torch.empty(64, device=dev).uniform_(-1, 1, generator=g))
            torch.rand(31, device=dev)  # the default generator, shared by every thread
        return torch.cat([t.flatten() for t in out]).cpu()

    serial = {i: draws(i) for i in range(THREADS)}
    concurrent = {}

    def worker(i):
        concurrent[i] = draws(i)

    _run_threads(worker)
    for i in range(THREADS):
        assert torch.equal(concurrent[i], serial[i]), f"generator of thread {i} drew another stream"


def test_synchronize_from_a_thread_while_others_launch():
    stop = threading.Event()
    sums = {}

    def launcher(i):
        x = torch.full((1000,), float(i), device="tpu")
        for _ in range(200):
            x = x + 1
        sums[i] = x.sum().item()

    def syncer():
        while not stop.is_set():
            torch.tpu.synchronize()
            torch.accelerator.synchronize()

    s = threading.Thread(target=syncer)
    s.start()
    try:
        _run_threads(launcher, n=4)
    finally:
        stop.set()
        s.join(timeout=60)
    assert not s.is_alive()
    assert sums == {i: 1000.0 * (i + 200) for i in range(4)}


# ---- out of memory -----------------------------------------------------------

_OOM_SCRIPT = r"""
import json, torch, torch_tpu
MiB = 1 << 20
out = {}
keep = torch.arange(1000.0, device="tpu")          # computed before the failures
base = torch.tpu.memory_allocated()

# 1. a multi-kernel op that fails in its middle: a 2 MiB input and its 4 MiB
#    float64 copy fit, the rest of its float64 log_softmax does not.
x = torch.randn(512, 1024, device="tpu")           # 2 MiB
before = torch.tpu.memory_allocated()
try:
    torch.log_softmax(x.double() * 3, dim=1).float().sum(1)
    out["mid_op"] = "no error"
except torch.OutOfMemoryError as e:
    out["mid_op"] = "OutOfMemoryError"
out["mid_op_back_to_baseline"] = torch.tpu.memory_allocated() == before

# 2. a backward that fails: the forward fits, then other tensors take the
#    memory left (512 KiB blocks until the allocator refuses), and the
#    gradients do not fit.
w = torch.randn(1024, 256, device="tpu", requires_grad=True)   # 1 MiB
loss = (x @ w).tanh().sum()
ballast = []
try:
    while True:
        ballast.append(torch.empty(1 << 19, dtype=torch.uint8, device="tpu"))
except torch.OutOfMemoryError:
    pass
try:
    loss.backward()
    out["backward"] = "no error"
except torch.OutOfMemoryError:
    out["backward"] = "OutOfMemoryError"
del ballast, loss, w
out["backward_back_to_baseline"] = torch.tpu.memory_allocated() == before
del x
torch.tpu.empty_cache()
out["baseline"] = torch.tpu.memory_allocated() == base
out["earlier_result_intact"] = torch.equal(keep.cpu(), torch.arange(1000.0))
# 3. and the device still works at full size
y = torch.ones(1024, 1024, device="tpu")
out["after"] = (y @ y)[0, 0].item()
out["num_ooms"] = torch.tpu.memory_stats()["num_ooms"]
print(json.dumps(out))
"""


def _run(code_or_args, env_extra, timeout=300):
    env = dict(os.environ, **env_extra)
    args = [sys.executable, "-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)


def test_out_of_memory_mid_op_and_in_backward_is_recoverable():
    proc = _run(_OOM_SCRIPT, {"TORCH_TPU_DEVICE_MEMORY": "10MiB"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["mid_op"] == "OutOfMemoryError", out
    assert out["backward"] == "OutOfMemoryError", out
    assert out["mid_op_back_to_baseline"] and out["backward_back_to_baseline"] and out["baseline"], out
    assert out["earlier_result_intact"], out
    assert out["after"] == 1024.0 and out["num_ooms"] >= 3, out


def test_gpt_example_on_a_small_device_ends_in_a_clean_oom_error():
    proc = _run([sys.executable, os.path.join(ROOT, "examples", "train_gpt.py"), "--steps", "2"],
                {"TORCH_TPU_DEVICE_MEMORY": "4MiB"})
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-3000:])  # an exception, not a signal
    assert "torch.OutOfMemoryError: TPU out of memory" in proc.stderr, proc.stderr[-3000:]


# ---- device-side errors on the autograd device threads -------------------------

class _BadBackward(torch.autograd.Function):
    """Its backward gathers out of range: a device-side error raised while
    the autograd engine's tpu thread runs the backward."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        bad = torch.full((g.shape[0],), g.shape[0] + 7, device=g.device)
        return g.index_select(0, bad)


@pytest.mark.parametrize("device", [0, 1])
def test_device_error_in_backward_reaches_the_caller_and_leaves_the_device_usable(device):
    x = torch.ones(5, device=f"tpu:{device}", requires_grad=True)
    with pytest.raises(IndexError, match="index out of range"):
        _BadBackward.apply(x).sum().backward()
        torch.tpu.synchronize(device)
    y = torch.ones(5, device=f"tpu:{device}", requires_grad=True)
    (y * 3).sum().backward()
    assert y.grad.cpu().tolist() == [3.0] * 5


# ---- process lifecycle --------------------------------------------------------

def test_exit_with_work_queued_on_several_streams():
    """The interpreter exits while both devices' streams still hold work:
    no hang, no crash, exit code 0."""
    code = r"""
import torch, torch_tpu
streams = [torch.tpu.Stream(device=d) for d in range(torch.tpu.device_count()) for _ in range(3)]
for s in streams:
    with torch.tpu.stream(s):
        x = torch.randn(256, 256, device=s.device)
        for _ in range(50):
            x = (x @ x).tanh()
print("queued")
"""
    proc = _run(code, {"TORCH_TPU_SLOW_DEVICE_US": "200"}, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "queued", (proc.returncode, proc.stderr[-3000:])


def _spawned_square(q, device):
    import torch
    import torch_tpu  # noqa: F401

    x = torch.arange(6.0, device=f"tpu:{device}")
    q.put((x * x).cpu().tolist())


def test_multiprocessing_spawn_uses_the_device():
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    torch.ones(1, device="tpu")  # the parent has initialised the device: spawn still works
    procs = [ctx.Process(target=_spawned_square, args=(q, d)) for d in range(2)]
    for p in procs:
        p.start()
    results = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert results == [[0.0, 1.0, 4.0, 9.0, 16.0, 25.0]] * 2
