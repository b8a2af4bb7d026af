"""One rank of tests/test_distributed.py: runs every check in CHECKS on a
2-process "tccl" group and writes {check: "ok" | traceback} as JSON.

    python tests/distributed_worker.py RANK WORLD WORKDIR

References are CPU eager results computed locally from every rank's inputs
(each rank can rebuild the others' deterministic inputs)."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist
import torch_tpu
from torch_tpu.distributed import ProcessGroupTCCL

sys.path.insert(0, os.path.dirname(__file__))
from conftest import ALL_DTYPES, make_tensor  # noqa: E402

R = dist.ReduceOp
CHECKS: dict = {}
TIMEOUT = timedelta(seconds=30)


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


def dev(rank: int) -> torch.device:
    return torch.device("tpu", rank)


def inputs(dtype, world, shape=(5, 3)):
    """Rank r's input for a reduction, for every r (the reference needs all)."""
    if dtype.is_floating_point and dtype.itemsize == 1:  # float8: values it holds exactly
        return [make_tensor(shape, torch.float32, seed=r).div(8).round().to(dtype) for r in range(world)]
    return [make_tensor(shape, dtype, seed=r) for r in range(world)]


def assert_equal(actual: torch.Tensor, expected: torch.Tensor, what=""):
    actual = actual.cpu()
    if actual.dtype.itemsize == 1 and actual.dtype.is_floating_point:
        actual, expected = actual.float(), expected.float()
    if actual.dtype in (torch.uint16, torch.uint32, torch.uint64):
        actual, expected = actual.to(torch.int64), expected.to(torch.int64)
    torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True, msg=lambda m: f"{what}: {m}")


def reference_reduce(op, xs, dtype):
    """CPU eager reduction of the ranks' inputs, in the dtype's own arithmetic."""
    n = len(xs)
    if dtype.is_floating_point and dtype.itemsize == 1:
        return reference_reduce(op, [x.float() for x in xs], torch.float32).to(dtype)
    if dtype in (torch.uint16, torch.uint32, torch.uint64, torch.bool):
        wide = [x.to(torch.int64) for x in xs]
        out = reference_reduce(op, wide, torch.int64)
        return out != 0 if dtype == torch.bool else out.to(dtype)
    acc = xs[0].clone()
    for x in xs[1:]:
        if op in (R.SUM, R.AVG):
            acc = acc + x
        elif op == R.PRODUCT:
            acc = acc * x
        elif op == R.MIN:
            acc = torch.minimum(acc, x)
        elif op == R.MAX:
            acc = torch.maximum(acc, x)
        elif op == R.BAND:
            acc = acc & x
        elif op == R.BOR:
            acc = acc | x
        elif op == R.BXOR:
            acc = acc ^ x
    if op == R.AVG:
        acc = acc / n if (dtype.is_floating_point or dtype.is_complex) else torch.div(acc, n, rounding_mode="trunc")
    return acc.to(dtype)


def ops_for(dtype):
    if dtype.is_complex:
        return [R.SUM, R.AVG]
    ops = [R.SUM, R.PRODUCT, R.MIN, R.MAX]
    if not dtype.is_floating_point:
        ops += [R.BAND, R.BOR, R.BXOR]
    if dtype != torch.bool:
        ops.append(R.AVG)
    return ops


DTYPES = ALL_DTYPES + [torch.float8_e4m3fn, torch.float8_e5m2]


# -- setup ------------------------------------------------------------------
@check
def backend_is_tccl(rank, world):
    pg = dist.distributed_c10d._get_default_group()
    assert isinstance(pg, ProcessGroupTCCL), type(pg)
    assert dist.get_backend() == "tccl", dist.get_backend()
    assert pg.bound_device_id == dev(rank), pg.bound_device_id
    assert torch.tpu.device_count() >= world


# -- collectives, every dtype -------------------------------------------------
@check
def all_reduce_every_op_and_dtype(rank, world):
    for dtype in DTYPES:
        xs = inputs(dtype, world)
        for op in ops_for(dtype):
            t = xs[rank].to(dev(rank))
            dist.all_reduce(t, op=op)
            assert_equal(t, reference_reduce(op, xs, dtype), f"all_reduce {op} {dtype}")


@check
def all_reduce_uint64_beyond_int64(rank, world):
    # Values >= 2**63 order as unsigned: MIN/MAX must not see them as negative.
    values = [[2 ** 63 + 5, 7, 2 ** 64 - 1], [3, 2 ** 63 + 1, 2 ** 63]]
    for op, pick in ((R.MIN, min), (R.MAX, max)):
        t = torch.tensor([v - 2 ** 64 if v >= 2 ** 63 else v for v in values[rank]]).view(torch.uint64)
        t = t.to(dev(rank))
        dist.all_reduce(t, op=op)
        got = [v % 2 ** 64 for v in t.cpu().view(torch.int64).tolist()]
        assert got == [pick(a, b) for a, b in zip(*values)], (op, got)


@check
def all_reduce_premul_sum(rank, world):
    for dtype in (torch.float32, torch.float64, torch.bfloat16):
        xs = inputs(dtype, world)
        t = xs[rank].to(dev(rank))
        dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.5))
        assert_equal(t, sum(x * 0.5 for x in xs).to(dtype), f"premul_sum {dtype}")


@check
def broadcast_and_all_gather_every_dtype(rank, world):
    for dtype in DTYPES:
        xs = inputs(dtype, world)
        t = xs[rank].to(dev(rank))
        dist.broadcast(t, src=1)
        assert_equal(t, xs[1], f"broadcast {dtype}")
        outs = [torch.empty_like(xs[0], device=dev(rank)) for _ in range(world)]
        dist.all_gather(outs, xs[rank].to(dev(rank)))
        for r in range(world):
            assert_equal(outs[r], xs[r], f"all_gather {dtype}")
        flat = torch.empty((world * 5, 3), dtype=dtype, device=dev(rank))
        dist.all_gather_into_tensor(flat, xs[rank].to(dev(rank)))
        assert_equal(flat, torch.cat(xs), f"all_gather_into_tensor {dtype}")


@check
def reduce_scatter_every_op(rank, world):
    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.int16, torch.uint8):
        for op in ops_for(dtype):
            big = [make_tensor((world * 4, 3), dtype, seed=10 + r) for r in range(world)]
            expected = reference_reduce(op, big, dtype).chunk(world)[rank]
            out = torch.empty((4, 3), dtype=dtype, device=dev(rank))
            dist.reduce_scatter_tensor(out, big[rank].to(dev(rank)), op=op)
            assert_equal(out, expected, f"reduce_scatter_tensor {op} {dtype}")
            out2 = torch.empty((4, 3), dtype=dtype, device=dev(rank))
            dist.reduce_scatter(out2, [c.to(dev(rank)) for c in big[rank].chunk(world)], op=op)
            assert_equal(out2, expected, f"reduce_scatter {op} {dtype}")


@check
def reduce_to_one_rank(rank, world):
    xs = inputs(torch.float32, world)
    t = xs[rank].to(dev(rank))
    dist.reduce(t, dst=1, op=R.MAX)
    if rank == 1:
        assert_equal(t, reference_reduce(R.MAX, xs, torch.float32))
    else:
        assert_equal(t, xs[rank])  # NCCL leaves non-root tensors unspecified; gloo leaves them as they were


@check
def all_to_all_forms(rank, world):
    # all_to_all_single with uneven splits: rank r sends r + 1 + j rows to rank j.
    send = [torch.arange(sum(r + 1 + j for j in range(world)) * 2, dtype=torch.int32).view(-1, 2) + 100 * r
            for r in range(world)]
    in_splits = [rank + 1 + j for j in range(world)]
    out_splits = [r + 1 + rank for r in range(world)]
    out = torch.empty((sum(out_splits), 2), dtype=torch.int32, device=dev(rank))
    dist.all_to_all_single(out, send[rank].to(dev(rank)), out_splits, in_splits)
    expected = torch.cat([send[r].split([r + 1 + j for j in range(world)])[rank] for r in range(world)])
    assert_equal(out, expected, "all_to_all_single")
    ins = [make_tensor((2, 2), torch.float64, seed=20 + rank * world + j) for j in range(world)]
    outs = [torch.empty((2, 2), dtype=torch.float64, device=dev(rank)) for _ in range(world)]
    dist.all_to_all(outs, [t.to(dev(rank)) for t in ins])
    for r in range(world):
        assert_equal(outs[r], make_tensor((2, 2), torch.float64, seed=20 + r * world + rank), "all_to_all")


@check
def gather_and_scatter(rank, world):
    xs = inputs(torch.int64, world)
    outs = [torch.empty_like(xs[0], device=dev(rank)) for _ in range(world)] if rank == 0 else None
    dist.gather(xs[rank].to(dev(rank)), outs, dst=0)
    if rank == 0:
        for r in range(world):
            assert_equal(outs[r], xs[r], "gather")
    out = torch.empty_like(xs[0], device=dev(rank))
    dist.scatter(out, [x.to(dev(rank)) for x in xs] if rank == 1 else None, src=1)
    assert_equal(out, xs[rank], "scatter")


@check
def send_recv_and_batch_isend_irecv(rank, world):
    peer = 1 - rank
    mine = make_tensor((3, 4), torch.float16, seed=30 + rank)
    theirs = make_tensor((3, 4), torch.float16, seed=30 + peer)
    got = torch.zeros((3, 4), dtype=torch.float16, device=dev(rank))
    if rank == 0:
        dist.send(mine.to(dev(rank)), dst=peer)
        dist.recv(got, src=peer)
    else:
        dist.recv(got, src=peer)
        dist.send(mine.to(dev(rank)), dst=peer)
    assert_equal(got, theirs, "send/recv")
    # Both ranks post their receive first: must not deadlock.
    got2 = torch.zeros((3, 4), dtype=torch.float16, device=dev(rank))
    reqs = dist.batch_isend_irecv([dist.P2POp(dist.irecv, got2, peer),
                                   dist.P2POp(dist.isend, mine.to(dev(rank)), peer)])
    for r in reqs:
        r.wait()
    assert_equal(got2, theirs, "batch_isend_irecv")


@check
def coalesced_forms(rank, world):
    xs = inputs(torch.float32, world)
    ys = inputs(torch.float32, world, shape=(7,))
    a, b = xs[rank].to(dev(rank)), ys[rank].to(dev(rank))
    dist.all_reduce_coalesced([a, b], op=R.MAX)
    assert_equal(a, reference_reduce(R.MAX, xs, torch.float32), "all_reduce_coalesced")
    assert_equal(b, reference_reduce(R.MAX, ys, torch.float32), "all_reduce_coalesced")
    # FSDP2's pattern: the coalescing manager around single-tensor collectives.
    outs = [torch.empty((world * 5, 3), device=dev(rank)) for _ in range(2)]
    with dist.distributed_c10d._coalescing_manager(device=dev(rank), async_ops=True) as cm:
        for o in outs:
            dist.all_gather_into_tensor(o, xs[rank].to(dev(rank)))
    cm.wait()
    for o in outs:
        assert_equal(o, torch.cat(xs), "coalesced all_gather_into_tensor")
    rs = [torch.empty((2, 3), device=dev(rank)) for _ in range(2)]
    big = [make_tensor((world * 2, 3), torch.float32, seed=40 + r) for r in range(world)]
    with dist.distributed_c10d._coalescing_manager(async_ops=False):
        for o in rs:
            dist.reduce_scatter_tensor(o, big[rank].to(dev(rank)))
    for o in rs:
        assert_equal(o, (big[0] + big[1]).chunk(world)[rank], "coalesced reduce_scatter_tensor")
    lists = [[torch.empty(5, 3, device=dev(rank)) for _ in range(world)] for _ in range(2)]
    dist.all_gather_coalesced(lists, [xs[rank].to(dev(rank)), xs[rank].to(dev(rank)) * 2])
    for r in range(world):
        assert_equal(lists[0][r], xs[r], "all_gather_coalesced")
        assert_equal(lists[1][r], xs[r] * 2, "all_gather_coalesced")


@check
def cpu_tensors_and_objects(rank, world):
    xs = inputs(torch.float32, world)
    t = xs[rank].clone()
    dist.all_reduce(t)
    assert_equal(t, xs[0] + xs[1], "cpu all_reduce")
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    assert objs == [{"rank": r} for r in range(world)], objs
    dist.barrier()


# -- stream semantics ---------------------------------------------------------
@check
def work_wait_orders_current_stream(rank, world):
    # The collective's results are copied back on a side stream; the device is
    # slowed down so a reader that did not wait would likely see the old
    # values (the asserts hold for correct code whatever the timing).
    torch_tpu._C._set_slow_device_us(20000)
    try:
        side = torch.tpu.Stream()
        x = torch.full((1 << 20,), float(rank + 1), device=dev(rank))
        side.wait_stream(torch.tpu.current_stream())
        with torch.tpu.stream(side):
            work = dist.all_reduce(x, async_op=True)
        work.wait()  # the default stream now waits for the side stream's copy
        total = x.sum()
        fut = work.get_future()
        value = fut.wait()[0]
        assert value is x
        assert total.item() == float(sum(range(1, world + 1))) * (1 << 20), total.item()
        side.synchronize()
        assert work.is_completed()
        assert fut.done()
    finally:
        torch_tpu._C._set_slow_device_us(0)


@check
def future_then_sees_results(rank, world):
    x = torch.full((4,), float(rank), device=dev(rank))
    fut = dist.all_reduce(x, async_op=True).get_future()
    doubled = fut.then(lambda f: f.value()[0] * 2).wait()
    assert_equal(doubled, torch.full((4,), 2.0 * sum(range(world))), "then")


# -- errors -------------------------------------------------------------------
@check
def wrong_device_raises(rank, world):
    other = torch.ones(3, device=dev(1 - rank))
    try:
        dist.all_reduce(other)
    except ValueError as e:
        assert "bound to tpu:" in str(e), e
    else:
        raise AssertionError("all_reduce on another device did not raise")
    outs = [torch.empty(3) for _ in range(world)]
    try:
        dist.all_gather(outs, torch.ones(3, device=dev(rank)))
    except ValueError as e:
        assert "same device" in str(e), e
    else:
        raise AssertionError("all_gather across cpu and tpu did not raise")
    dist.barrier()


@check
def size_mismatch_raises_gloos_error(rank, world):
    # The tpu error is the one CPU tensors get (gloo's check), type and text.
    def error(device):
        try:
            dist.all_gather_into_tensor(torch.empty(7, device=device), torch.ones(3, device=device))
        except Exception as e:  # noqa: BLE001
            return type(e), str(e).split("\n")[0]
        return None

    cpu, tpu = error("cpu"), error(dev(rank))
    assert cpu is not None and tpu == cpu, (cpu, tpu)
    dist.barrier()


# -- training -------------------------------------------------------------------
STEPS, BATCH, LR = 4, 8, 0.1


class Net(torch.nn.Module):
    def __init__(self, unused_branch=False):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)
        self.unused = torch.nn.Linear(8, 4) if unused_branch else None

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def make_net(unused_branch=False):
    torch.manual_seed(0)
    return Net(unused_branch)


def batches(steps=STEPS, micro=1):
    g = torch.Generator().manual_seed(7)
    return [[(torch.randn(BATCH, 8, generator=g), torch.randn(BATCH, 4, generator=g)) for _ in range(micro)]
            for _ in range(steps)]


def train_cpu(micro=1, unused_branch=False):
    """Single process, full batch: the reference."""
    net = make_net(unused_branch)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    losses = []
    for step in batches(micro=micro):
        opt.zero_grad()
        for x, y in step:
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            losses.append(loss.item())
        opt.step()
    return losses, net


def local(x, rank, world):
    n = x.shape[0] // world
    return x[rank * n:(rank + 1) * n]


def train_ddp(rank, world, micro=1, unused_branch=False, **ddp_kwargs):
    from torch.nn.parallel import DistributedDataParallel as DDP

    net = make_net(unused_branch).to(dev(rank))
    ddp = DDP(net, device_ids=[rank], **ddp_kwargs)
    opt = torch.optim.SGD(ddp.parameters(), lr=LR)
    losses = []
    for step in batches(micro=micro):
        opt.zero_grad()
        for i, (x, y) in enumerate(step):
            x, y = local(x, rank, world).to(dev(rank)), local(y, rank, world).to(dev(rank))
            ctx = ddp.no_sync() if i < len(step) - 1 else _nullcontext()
            with ctx:
                loss = torch.nn.functional.mse_loss(ddp(x), y)
                loss.backward()
            mean = loss.detach().clone()
            dist.all_reduce(mean, op=R.AVG)
            losses.append(mean.item())
        opt.step()
    return losses, net, ddp


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def compare_training(cpu, tpu, what):
    (cpu_losses, cpu_net), (tpu_losses, tpu_net) = cpu, tpu
    torch.testing.assert_close(torch.tensor(tpu_losses), torch.tensor(cpu_losses), rtol=1e-5, atol=1e-6,
                               msg=lambda m: f"{what} losses: {m}")
    for (name, p), q in zip(cpu_net.named_parameters(), tpu_net.parameters()):
        q = q.full_tensor() if hasattr(q, "full_tensor") else q
        torch.testing.assert_close(q.detach().cpu(), p.detach(), rtol=1e-5, atol=1e-6,
                                   msg=lambda m: f"{what} {name}: {m}")


@check
def ddp_matches_cpu_full_batch(rank, world):
    losses, net, ddp = train_ddp(rank, world, bucket_cap_mb=0.0001)  # several gradient buckets
    logging_data = ddp._get_ddp_logging_data()
    assert logging_data["num_buckets_reduced"] > 1, logging_data  # several gradient buckets
    compare_training(train_cpu(), (losses, net), "ddp")


@check
def ddp_no_sync_matches_cpu(rank, world):
    # With the gradients as views into DDP's buckets, which tccl reduces in place.
    compare_training(train_cpu(micro=2), train_ddp(rank, world, micro=2, gradient_as_bucket_view=True)[:2],
                     "ddp no_sync")


@check
def ddp_find_unused_parameters(rank, world):
    losses, net, _ = train_ddp(rank, world, unused_branch=True, find_unused_parameters=True)
    compare_training(train_cpu(unused_branch=True), (losses, net), "ddp find_unused_parameters")


@check
def fsdp2_matches_cpu_full_batch(rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh("tpu", (world,))
    net = make_net().to(dev(rank))
    fully_shard(net.fc1, mesh=mesh)
    fully_shard(net.fc2, mesh=mesh)
    fully_shard(net, mesh=mesh)
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    losses = []
    for [(x, y)] in batches():
        x, y = local(x, rank, world).to(dev(rank)), local(y, rank, world).to(dev(rank))
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        mean = loss.detach().clone()
        dist.all_reduce(mean, op=R.AVG)
        losses.append(mean.item())
    compare_training(train_cpu(), (losses, net), "fsdp2")


# -- phases -------------------------------------------------------------------------
def thread_names() -> list:
    """Names of this process's native threads (gloo's are "gloo_tcp_loop", "pt_gloo_runloop")."""
    return sorted(open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))


def run_checks(rank, world, results):
    for name, fn in CHECKS.items():
        try:
            fn(rank, world)
            results[name] = "ok"
        except Exception:  # noqa: BLE001  (reported to the test, which fails)
            results[name] = traceback.format_exc()


def phase(results, name, fn):
    try:
        fn()
        results[name] = "ok"
    except Exception:  # noqa: BLE001
        results[name] = traceback.format_exc()


def main(rank: int, world: int, workdir: str) -> None:
    out_path = os.path.join(workdir, f"rank{rank}.json")
    results: dict = {}

    def save():
        with open(out_path + ".tmp", "w") as f:
            json.dump(results, f)
        os.replace(out_path + ".tmp", out_path)

    # Warm up the device and autograd threads, so that counting native threads
    # afterwards sees only what the process group starts.
    torch.tpu.set_device(rank)  # FSDP2 and the device mesh use the current device
    w = torch.ones(2, device=dev(rank), requires_grad=True)
    (w * 2).sum().backward()
    names_before = thread_names()

    def init(name, timeout=TIMEOUT, **kw):
        dist.init_process_group(init_method=f"file://{os.path.join(workdir, name)}", rank=rank,
                                world_size=world, timeout=timeout, **kw)

    # 1. device_id alone picks tccl.
    init("store_main", device_id=dev(rank))
    run_checks(rank, world, results)
    dist.destroy_process_group()
    save()

    def nothing_left_running():
        import gc

        gc.collect()
        names = thread_names()
        assert not [n for n in names if "gloo" in n], f"after destroy_process_group: {names}, before: {names_before}"

    phase(results, "destroy_leaves_nothing_running", nothing_left_running)

    # 2. "cpu:gloo,tpu:tccl": CPU tensors on gloo, tpu tensors on tccl.
    def composed():
        init("store_composed", backend="cpu:gloo,tpu:tccl")
        try:
            pg = dist.distributed_c10d._get_default_group()
            assert isinstance(pg, ProcessGroupTCCL), type(pg)
            c, t = torch.full((3,), rank + 1.0), torch.full((3,), rank + 1.0, device=dev(rank))
            dist.all_reduce(c)
            dist.all_reduce(t)
            assert_equal(c, torch.full((3,), 3.0))
            assert_equal(t, torch.full((3,), 3.0))
        finally:
            dist.destroy_process_group()
        nothing_left_running()  # c10d's own gloo backend for "cpu", dropped, ended too

    phase(results, "composed_backend_string", composed)
    save()

    # 3. A rank that hangs: the others' collective times out with an error.
    # Rank 1 skips the collective and waits on the store until rank 0 has
    # seen its timeout (no sleep standing in for "long enough").
    def hung_peer():
        timeout = timedelta(seconds=3)
        init("store_hang", device_id=dev(rank), timeout=timeout)
        store = dist.distributed_c10d._get_default_store()
        try:
            if rank == 1:
                store.wait(["hung_peer_seen"], timedelta(seconds=600))
                return
            start = time.monotonic()
            try:
                dist.all_reduce(torch.ones(4, device=dev(rank)))
            except RuntimeError as e:
                elapsed = time.monotonic() - start
                # Not before the timeout (a lower bound: load only adds to it).
                assert elapsed >= 0.9 * timeout.total_seconds(), elapsed
                assert "Timed out" in str(e), str(e)
                results["hung_peer_error"] = f"{type(e).__name__} after {elapsed:.1f}s: {str(e)[:200]}"
            else:
                raise AssertionError("all_reduce with a hung peer did not raise")
            finally:
                store.set("hung_peer_seen", "1")
        finally:
            dist.destroy_process_group()

    phase(results, "hung_peer_times_out", hung_peer)
    save()

    # 4. A rank that dies: the other gets an error, well within the timeout.
    def dead_peer():
        init("store_dead", device_id=dev(rank))
        dist.barrier()
        if rank == 1:
            save()
            os._exit(0)
        start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(4, device=dev(rank)))
        except RuntimeError as e:
            elapsed = time.monotonic() - start
            # The peer's death is seen as such, not waited out as a timeout.
            assert "by peer" in str(e) and "Timed out" not in str(e), str(e)  # closed / reset by peer
            results["dead_peer_error"] = f"{type(e).__name__} after {elapsed:.1f}s: {str(e)[:200]}"
        else:
            raise AssertionError("all_reduce with a dead peer did not raise")
        finally:
            dist.destroy_process_group()

    phase(results, "dead_peer_raises", dead_peer)
    if rank == 1:  # rank 1 exits inside dead_peer; reached only if it failed earlier
        results["dead_peer_raises"] = results.get("dead_peer_raises", "ok")
    save()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
