"""The slow-device lane: the tests whose host code reads device results run
again with every device task delayed (TORCH_TPU_SLOW_DEVICE_US), so that a
missing synchronisation (host code reading device memory, or a stream not
waiting for another) reads stale data and fails there, where on an idle fast
device it would usually win the race.

Only what needs the delay runs again, in one subprocess: each way host code
reads the device (copies back to the host, across devices, non-blocking into
pinned memory, through views, item(), torch.save, a training step with its
optimizer and LSTM's autograd thread). The ordering primitives themselves
(streams, events, record_stream, blocking copies) are tested without timing
in tests/test_streams_events.py: a gate holds the stream (conftest's
stream_gate), which shows a missing wait on any machine, so they do not run
here again. The subprocess first checks that the delay is in force."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DELAY_US = 300
SUBSET = [
    "tests/test_p0_chain.py::test_user_example",
    "tests/test_p0_chain.py::test_views_cross_the_boundary",
    "tests/test_p0_chain.py::test_copy_between_devices",
    "tests/test_p0_chain.py::test_non_blocking_copies",
    "tests/test_storage_views.py::test_writes_through_views_are_visible",
    "tests/test_storage_views.py::test_resize_grows_and_keeps_data",
    "tests/test_serialization.py",
    "tests/test_scalars.py::test_item_matches_cpu",
    "tests/test_scalars.py::test_fill_and_zero",
    "tests/test_train_examples.py::test_one_training_step_on_tpu_is_cpus",
    "tests/test_train_examples.py::test_example_script_runs[train_lstm]",
]
# The runner: the delay must be what the runtime uses (a misspelt variable
# would leave the device fast and the lane blind), then pytest on the subset.
RUNNER = f"""
import sys
import torch_tpu
assert torch_tpu._C._slow_device_us() == {DELAY_US}, torch_tpu._C._slow_device_us()
import pytest
sys.exit(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly", *sys.argv[1:]]))
"""


def test_subset_passes_on_a_slow_device():
    env = dict(os.environ, TORCH_TPU_SLOW_DEVICE_US=str(DELAY_US))
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run([sys.executable, "-c", RUNNER, *SUBSET],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    tail = proc.stdout[-5000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    last = proc.stdout.splitlines()[-1]
    assert " passed" in last and "deselected" not in last and "skipped" not in last, tail
