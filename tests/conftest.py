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


@pytest.fixture(autouse=True)
def no_leak():
    """Every test: fails if device memory allocated by tensors is not back to
    its baseline afterwards (the caching allocator may keep it reserved)."""
    torch.tpu.synchronize()
    before = [torch.tpu.memory_allocated(i) for i in range(torch.tpu.device_count())]
    yield
    after = [torch.tpu.memory_allocated(i) for i in range(torch.tpu.device_count())]
    # Not yet back? Garbage in reference cycles (collect), or a backward pass
    # whose last buffers the autograd engine's tpu worker thread drops just
    # after the caller resumed (its graph task dies there): look again
    # briefly before calling it a leak.
    for attempt in range(20):
        if after == before:
            break
        import gc
        import time

        gc.collect()
        time.sleep(0.01 * attempt)
        after = [torch.tpu.memory_allocated(i) for i in range(torch.tpu.device_count())]
    assert after == before, f"device memory leaked: before {before}, after {after}"


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
