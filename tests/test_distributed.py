"""torch.distributed on tpu ("tccl"): two processes, one check per test.

One process pair (tests/distributed_worker.py) runs every check once, on a
FileStore rendezvous, and reports each check's outcome; the tests below read
those outcomes. References are CPU eager results. Every wait is bounded."""

import fcntl
import json
import os
import subprocess
import sys

import pytest
import torch

from distributed_worker import CHECKS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORLD = 2
PAIR_TIMEOUT_S = 240  # the whole pair; it takes ~30 s on 2 shared cores


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE, env.get("PYTHONPATH", "")])
    env.setdefault("TORCH_TPU_STRICT", "1")
    # Two ranks share the host's cores: one kernel thread each.
    env["TORCH_TPU_CORES"] = "1"
    env["OMP_NUM_THREADS"] = "1"
    return env


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    # pytest-xdist workers share one run of the pair: the first to get the
    # lock runs it, the others read its results.
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this session's folder, shared by its workers
    workdir = base / "tccl_pair"
    with open(base / "tccl_pair.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (workdir / "done").exists():
            workdir.mkdir(exist_ok=True)
            try:
                _run_pair(workdir)
            finally:  # a failed run is reported once, not rerun by each worker
                (workdir / "done").write_text("")
    results = []
    for r in range(WORLD):
        path = workdir / f"rank{r}.json"
        log = workdir / f"rank{r}.log"
        assert path.exists(), f"rank {r} wrote no results; output:\n{log.read_text()[-4000:]}"
        results.append(json.loads(path.read_text()))
    return results


def _run_pair(workdir):
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "distributed_worker.py"), str(r), str(WORLD),
                               str(workdir)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(WORLD)]
    try:
        for r, p in enumerate(procs):
            (workdir / f"rank{r}.log").write_text(p.communicate(timeout=PAIR_TIMEOUT_S)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()


@pytest.mark.parametrize("name", list(CHECKS))
def test_check_on_both_ranks(outcomes, name):
    for rank, results in enumerate(outcomes):
        assert results.get(name) == "ok", f"rank {rank}:\n{results.get(name)}"


def test_destroy_process_group_leaves_nothing_running(outcomes):
    for rank, results in enumerate(outcomes):
        assert results["destroy_leaves_nothing_running"] == "ok", results["destroy_leaves_nothing_running"]


def test_backend_string_composition(outcomes):
    for rank, results in enumerate(outcomes):
        assert results["composed_backend_string"] == "ok", results["composed_backend_string"]


def test_hung_peer_times_out_with_an_error(outcomes):
    for rank, results in enumerate(outcomes):
        assert results["hung_peer_times_out"] == "ok", results["hung_peer_times_out"]
    print(outcomes[0]["hung_peer_error"])


def test_dead_peer_gives_an_error_not_a_hang(outcomes):
    assert outcomes[0]["dead_peer_raises"] == "ok", outcomes[0]["dead_peer_raises"]
    print(outcomes[0]["dead_peer_error"])


def test_registered_for_tpu():
    import torch.distributed as dist

    assert dist.Backend.default_device_backend_map["tpu"] == "tccl"
    assert "tccl" in dist.Backend.backend_list
    assert torch.tpu.device_count() >= WORLD


def test_single_process_group_runs_without_peers(tmp_path):
    # A world of one: every collective is the identity, through the same path.
    import torch.distributed as dist
    from torch_tpu.distributed import ProcessGroupTCCL
    from datetime import timedelta

    pg = ProcessGroupTCCL(dist.HashStore(), 0, 1, timedelta(seconds=10))
    x = torch.arange(6, dtype=torch.int16, device="tpu").view(2, 3)
    opts = dist.AllreduceOptions()
    opts.reduceOp = dist.ReduceOp.AVG
    pg.allreduce([x], opts).wait()
    assert torch.equal(x.cpu(), torch.arange(6, dtype=torch.int16).view(2, 3))
    assert pg.name() == "tccl" and pg.rank() == 0 and pg.size() == 1
    pg.shutdown()


def test_train_ddp_example_under_torchrun(tmp_path):
    # torchrun with 2 processes, each on tpu:LOCAL_RANK; the example compares
    # itself with CPU full-batch training (--check) and exits 1 on a mismatch.
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
           os.path.join(ROOT, "examples", "train_ddp.py"), "--steps", "4", "--check"]
    run = subprocess.run(cmd, env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=PAIR_TIMEOUT_S)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "OK" in run.stdout, run.stdout
