"""all_reduce bandwidth of torch_tpu's c10d backend ("tccl": the tensors go
device -> host, through gloo between the processes, host -> device) against
gloo's all_reduce of CPU tensors, in the same 2-process group
(backend="cpu:gloo,tpu:tccl"), sizes 4 KiB to 64 MiB of float32. Rounds
alternate tpu and CPU. Bandwidth is the algorithm bandwidth, bytes / time;
ratio = tpu time / CPU time. Runs two processes itself (spawn)."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import torch
import torch.multiprocessing as mp

TITLE = "all_reduce, 2 processes (ratio = tpu tccl time / cpu gloo time)"
SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]


def _rounds(size: int) -> int:
    return max(3, min(200, (256 << 20) // (size * 8)))


def _worker(rank: int, world: int, store: str, out: str) -> None:
    import torch.distributed as dist

    import torch_tpu  # noqa: F401

    torch.tpu.set_device(rank)
    dist.init_process_group(backend="cpu:gloo,tpu:tccl", init_method=f"file://{store}", rank=rank,
                            world_size=world)
    rows = []
    for size in SIZES:
        n = size // 4
        tpu = torch.ones(n, device=f"tpu:{rank}")
        cpu = torch.ones(n)
        times = {"tpu": [], "cpu": []}
        reps = _rounds(size)
        for _ in range(2):  # warm up both paths (gloo pairs, staging buffers)
            dist.all_reduce(tpu)
            dist.all_reduce(cpu)
        torch.tpu.synchronize()
        for _ in range(5):
            for kind, t in (("tpu", tpu), ("cpu", cpu)):
                dist.barrier(device_ids=[rank]) if kind == "tpu" else dist.barrier()
                t0 = time.perf_counter()
                for _ in range(reps):
                    dist.all_reduce(t)
                if kind == "tpu":
                    torch.tpu.synchronize()
                times[kind].append((time.perf_counter() - t0) / reps)
        t_tpu, t_cpu = statistics.median(times["tpu"]), statistics.median(times["cpu"])
        rows.append({"size": size, "tpu us": t_tpu * 1e6, "cpu us": t_cpu * 1e6})
    dist.destroy_process_group()
    if rank == 0:
        import json

        with open(out, "w") as f:
            json.dump(rows, f)


def run():
    from common import fmt_bytes

    with tempfile.TemporaryDirectory() as d:
        store, out = os.path.join(d, "store"), os.path.join(d, "rows.json")
        mp.start_processes(_worker, args=(2, store, out), nprocs=2, start_method="spawn")
        import json

        with open(out) as f:
            raw = json.load(f)
    return [{"size": fmt_bytes(r["size"]), "tpu us": round(r["tpu us"], 1), "cpu us": round(r["cpu us"], 1),
             "tpu GB/s": round(r["size"] / r["tpu us"] / 1e3, 3), "cpu GB/s": round(r["size"] / r["cpu us"] / 1e3, 3),
             "ratio": round(r["tpu us"] / r["cpu us"], 2)} for r in raw]


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import print_table, save

    rows = run()
    print_table(TITLE, rows)
    save("all_reduce", rows)
