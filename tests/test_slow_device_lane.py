"""The slow-device lane: a subset of the suite runs again with every device
task delayed (TORCH_TPU_SLOW_DEVICE_US), so that a missing synchronisation
(host code reading device results, or a stream not waiting for another)
reads stale data and fails there, where on an idle fast device it would
usually win the race. The subset covers the paths that order work: the P0
chain, streams and events, copies and views, serialization, and two
training examples."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DELAY_US = "300"
SUBSET = {
    "ordering": ["tests/test_p0_chain.py", "tests/test_streams_events.py", "tests/test_storage_views.py",
                 "tests/test_serialization.py", "tests/test_scalars.py"],
    "training": ["tests/test_train_examples.py", "-k", "train_gpt or train_lstm"],
}


@pytest.mark.parametrize("part", sorted(SUBSET))
def test_subset_passes_on_a_slow_device(part):
    env = dict(os.environ, TORCH_TPU_SLOW_DEVICE_US=DELAY_US)
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-p", "no:randomly", *SUBSET[part]],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    tail = proc.stdout[-5000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout.splitlines()[-1], tail
