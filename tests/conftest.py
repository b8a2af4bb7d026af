"""Test-suite setup. Strict mode is on for every test: a host access to device
memory crashes with a clear message instead of reading it by luck. The env
var must be set before torch (and so torch_tpu, through autoload) is imported."""

import os

os.environ.setdefault("TORCH_TPU_STRICT", "1")

import pytest  # noqa: E402
import torch  # noqa: E402
import torch_tpu  # noqa: E402,F401

# Every dtype PyTorch has on CPU that the issue names, plus the unsigned ones.
ALL_DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.uint16, torch.uint32, torch.uint64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
    torch.complex64, torch.complex128,
]


def make_tensor(shape, dtype, seed=0):
    """Deterministic values that every dtype can represent exactly."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_complex:
        real = torch.randint(-50, 50, shape, generator=g).to(dtype)
        imag = torch.randint(-50, 50, shape, generator=g).to(dtype)
        return real + 1j * imag
    if dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        return torch.randint(0, 200, shape, generator=g).to(dtype)
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 100).round().to(dtype) / 4
    return torch.randint(-100, 100, shape, generator=g).to(dtype)


def pytest_collection_modifyitems(config, items):
    """The smoke lane's share of the generated checks: shard 0's float32
    value checks (about 140 cases, one per entry and OpInfo). The
    handwritten smoke tests carry the mark themselves."""
    for item in items:
        if item.nodeid.startswith("tests/generated/test_ops_0.py") and "values" in item.name \
                and "float32" in item.name:
            item.add_marker(pytest.mark.smoke)


class stream_gate:
    """Holds a tpu stream (the current one by default) at a gate: work
    enqueued on it after the gate waits until the block ends or open() is
    called. Tests of asynchrony use it to see work that has not run yet
    without timing anything."""

    # A host call that wrongly blocks on work held at the gate would hang:
    # the watchdog opens the gate and the test fails. Correct code never
    # meets it, however slow the machine.
    WATCHDOG_S = 300

    def __init__(self, stream=None):
        import threading

        if stream is None:
            self._gate = torch_tpu._C._StreamGate()
        else:
            with torch.tpu.stream(stream):
                self._gate = torch_tpu._C._StreamGate()
        self.expired = False
        self._watchdog = threading.Timer(self.WATCHDOG_S, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()

    def _expire(self):
        self.expired = True
        self._gate.open()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.open()
        assert not self.expired, "the host blocked on work held at a stream gate"

    def open(self):
        self._watchdog.cancel()
        self._gate.open()

    def wait_reached(self):
        """Returns once the device is at the gate: all work before it ran."""
        self._gate.wait_reached()


def drain_autograd_device_threads():
    """The autograd engine runs a backward's tpu work on one thread per
    device, and that thread drops a finished graph task (and the buffers it
    still holds) only after waking the caller. A tiny backward on each device
    goes through the same queue after it: once it returns, the earlier task
    is gone. This one holds no device memory when it ends (its saved scalar
    is not a tensor; its grad dies with x)."""
    for d in range(torch.tpu.device_count()):
        x = torch.ones(1, device=f"tpu:{d}", requires_grad=True)
        (x * 2).sum().backward()
    torch.tpu.synchronize()


def live_blocks(device: int) -> list:
    """The allocated blocks of a device, for a leak report."""
    return [(hex(b["address"]), b["size"], b["requested_size"])
            for seg in torch.tpu.memory_snapshot() if seg["device"] == device
            for b in seg["blocks"] if b["state"] == "active_allocated"]


def allocated() -> list:
    return [torch.tpu.memory_allocated(i) for i in range(torch.tpu.device_count())]


@pytest.fixture(autouse=True)
def no_leak():
    """Every test: fails if device memory allocated by tensors is not back to
    its baseline afterwards (the caching allocator may keep it reserved).
    Deterministic: garbage in reference cycles is collected before the
    baseline, and before a reading that differs is believed, as are the
    autograd device threads drained; no retry or timing."""
    import gc

    gc.collect()
    # Everything still alive now (torch, op_db, pytest's reports, FakeTensorMode's
    # dispatch cache: ~5 K objects per 400 OpInfo tests) moves to gc's permanent generation, so each collection
    # walks only what the tests made since: it took 2 ms at the first test
    # and 58 ms by the 10,000th. A frozen object is still freed when its last
    # reference goes; only a reference cycle made of frozen objects would
    # outlive its last use (the leak check would name its device memory).
    gc.freeze()
    before = allocated()
    yield
    after = allocated()
    if after != before:
        # A reading equal to the baseline holds nothing of this test's, so the
        # costly steps run only to explain a difference: garbage in reference
        # cycles, then the memory a finished backward's graph task still holds
        # until the autograd device threads are drained.
        gc.collect()
        after = allocated()
    if after != before:
        drain_autograd_device_threads()
        after = allocated()
    if after != before:
        leaked = {d: live_blocks(d) for d in range(len(after)) if after[d] != before[d]}
        pytest.fail(f"device memory leaked: before {before}, after {after}; live blocks "
                    f"(address, size, requested) per device: {leaked}", pytrace=False)


@pytest.fixture
def fresh_dynamo():
    """For torch.compile tests: Dynamo's caches and counters start empty."""
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    yield
    # Compiled code and its guards hold the test's tensors (and their device
    # memory) until reset: release them before the leak check looks.
    torch._dynamo.reset()
