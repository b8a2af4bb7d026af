"""torch_tpu.program: compile and load times of the GPT example's forward
(its loss, inference), and a registered handle's call against the eager tpu forward
and CPU eager, in the same run. Load time is measured in a fresh process
(import torch_tpu excluded). Ratios only, no assertions."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import torch

from common import timeit, tpu_sync

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_gpt  # noqa: E402

import torch_tpu  # noqa: E402

_LOAD = """
import sys, time, torch, torch_tpu
t0 = time.perf_counter()
prog = torch_tpu.program.CompiledProgram.load(sys.argv[1])
t1 = time.perf_counter()
handle = prog.register()
torch.tpu.synchronize()
print(t1 - t0, time.perf_counter() - t1)
"""


def run():
    torch.manual_seed(0)
    model = train_gpt.GPT().eval()
    x, y = next(iter(train_gpt.batches(1, 8, 32, 96)))
    t0 = time.perf_counter()
    prog = torch_tpu.program.compile(model, (x, y))
    compile_s = time.perf_counter() - t0
    out_dir = tempfile.mkdtemp(prefix="bench_program_")
    prog.save(out_dir)
    res = subprocess.run([sys.executable, "-c", _LOAD, out_dir], capture_output=True, text=True, check=True)
    load_s, register_s = (float(v) for v in res.stdout.split())
    handle = prog.register()
    xt, yt = x.to("tpu"), y.to("tpu")
    tpu_model = train_gpt.GPT().eval()
    tpu_model.load_state_dict(model.state_dict())
    tpu_model = tpu_model.to("tpu")
    with torch.no_grad():
        t_handle = timeit(lambda: handle(xt, yt), tpu_sync)
        t_eager = timeit(lambda: tpu_model(xt, yt), tpu_sync)
        t_cpu = timeit(lambda: model(x, y))
    split = torch_tpu.benchmark(handle, xt, yt)
    return [{"what": "GPT forward (examples/train_gpt.py), batch 8 x 32", "compile s": compile_s,
             "load s (fresh process)": load_s, "register s": register_s,
             "handle ms": t_handle * 1e3, "eager tpu ms": t_eager * 1e3, "cpu ms": t_cpu * 1e3,
             "handle / eager tpu": t_handle / t_eager, "handle / cpu": t_handle / t_cpu,
             "handle host us": split["host_wall_us"], "handle device us": split["device_wall_us"]}]


if __name__ == "__main__":
    from common import print_table, save

    rows = run()
    print_table("compiled program: compile, load, registered call (ratios in the same run)", rows)
    save("program", rows)
