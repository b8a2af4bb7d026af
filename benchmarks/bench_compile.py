"""torch.compile on tpu: the compiled training step (compiled forward and
backward, eager optimizer) of the GPT and ResNet examples, in the default
mode and with mode="reduce-overhead" (graph replay), against the eager tpu
step and against CPU's own compiled step (Inductor on CPU), timed in the
same run with rounds interleaved; plus the first-compile time. Ratios only,
no assertions."""

from __future__ import annotations

import copy
import os
import statistics
import sys
import tempfile
import time

# A fresh Inductor cache: "first compile" must include compiling the
# kernels, not a hit in the on-disk caches of an earlier run.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="bench_compile_"))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402

from common import _calibrate, tpu_sync

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_gpt  # noqa: E402
import train_resnet  # noqa: E402


def _compiled(model, compiled):
    """compiled: False (eager), True (default mode) or a torch.compile mode."""
    if compiled is False:
        return model
    return torch.compile(model) if compiled is True else torch.compile(model, mode=compiled)


def _gpt_step(model, device, compiled, batch=8):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    fwd = _compiled(model, compiled)
    x, y = next(iter(train_gpt.batches(1, batch, 32, 96)))
    x, y = x.to(device), y.to(device)

    def step():
        loss = fwd(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def _resnet_step(model, device, compiled, batch=16):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    fwd = _compiled(model, compiled)
    x, y = next(iter(train_resnet.batches(1, batch)))
    x, y = x.to(device), y.to(device)

    def step():
        loss = torch.nn.functional.cross_entropy(fwd(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def _first_call(step, sync):
    t0 = time.perf_counter()
    step()
    sync()
    return time.perf_counter() - t0


def _balanced_orders(k):
    """k orders of range(k) in which each case directly follows each other
    case once (a Williams design; k even)."""
    first = [0]
    for j in range(1, k):
        first.append((j + 1) // 2 if j % 2 else k - j // 2)
    return [[(c + r) % k for c in first] for r in range(k)]


def _interleaved(cases, rounds=3, min_time=0.3):
    """Median seconds per call of each (fn, sync), rounds alternating so all
    cases see the same state of this shared machine. The order changes from
    round to round so that every case follows every other equally often: in
    one fixed order the compiled tpu step always ran right after CPU's
    compiled step, whose OpenMP threads keep spinning on a core after their
    last region (libgomp's wait policy), and paid for that every time."""
    ns = [_calibrate(fn, sync, min_time) for fn, sync in cases]
    times = [[] for _ in cases]
    for _ in range(rounds):
        for order in _balanced_orders(len(cases)):
            for i in order:
                (fn, sync), n = cases[i], ns[i]
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                sync()
                times[i].append((time.perf_counter() - t0) / n)
    return [statistics.median(t) for t in times]


def run():
    rows = []
    for what, make_model, make_step in (("GPT (examples/train_gpt.py), batch 8 x 32", train_gpt.GPT, _gpt_step),
                                        ("ResNet (examples/train_resnet.py), batch 16", train_resnet.ResNet,
                                         _resnet_step)):
        torch._dynamo.reset()
        torch.manual_seed(0)
        ref = make_model()
        compiled_tpu = make_step(copy.deepcopy(ref), "tpu", True)
        replayed_tpu = make_step(copy.deepcopy(ref), "tpu", "reduce-overhead")
        eager_tpu = make_step(copy.deepcopy(ref), "tpu", False)
        compiled_cpu = make_step(copy.deepcopy(ref), "cpu", True)
        # The tpu compile runs first and also pays for starting Inductor's
        # compile workers and building its headers, which the CPU one reuses.
        first_tpu = _first_call(compiled_tpu, tpu_sync)
        first_cpu = _first_call(compiled_cpu, lambda: None)
        _first_call(replayed_tpu, tpu_sync)  # its graphs come from the caches the first compile filled
        t_ctpu, t_rtpu, t_etpu, t_ccpu = _interleaved([(compiled_tpu, tpu_sync), (replayed_tpu, tpu_sync),
                                                       (eager_tpu, tpu_sync), (compiled_cpu, lambda: None)])
        rows.append({"what": what, "compiled tpu ms": t_ctpu * 1e3, "reduce-overhead tpu ms": t_rtpu * 1e3,
                     "eager tpu ms": t_etpu * 1e3, "compiled cpu ms": t_ccpu * 1e3,
                     "compiled/eager tpu": t_ctpu / t_etpu, "reduce-overhead/eager tpu": t_rtpu / t_etpu,
                     "compiled tpu/cpu": t_ctpu / t_ccpu, "first compile tpu s": first_tpu,
                     "first compile cpu s": first_cpu})
    return rows


if __name__ == "__main__":
    from common import print_table, save

    rows = run()
    print_table("torch.compile training step (ratios in the same run)", rows)
    save("compile", rows)
