"""Many host threads using the device at once: per-thread current device and
stream, the allocator and the copy paths under contention."""

import threading

import torch


def test_many_host_threads():
    errors = []

    def worker(i):
        try:
            device = i % torch.tpu.device_count()
            torch.tpu.set_device(device)
            stream = torch.tpu.Stream(device=device)
            for j in range(30):
                x = torch.full((257, 3), float(i * 100 + j))
                with torch.tpu.stream(stream):
                    t = x.to("tpu").t().clone()
                    u = t.to(f"tpu:{(device + 1) % torch.tpu.device_count()}")
                back = u.cpu()
                if not torch.equal(back, x.t()):
                    errors.append(f"thread {i} iteration {j}: wrong data")
                if torch.tpu.current_device() != device:
                    errors.append(f"thread {i}: current device changed under it")
        except Exception as e:  # noqa: BLE001 (collected and reported below)
            errors.append(f"thread {i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    torch.tpu.synchronize(0)
    torch.tpu.synchronize(1)


def test_current_stream_is_per_thread():
    s = torch.tpu.Stream()
    seen = {}
    with torch.tpu.stream(s):
        t = threading.Thread(target=lambda: seen.setdefault("other", torch.tpu.current_stream()))
        t.start()
        t.join()
        assert torch.tpu.current_stream() == s
    assert seen["other"] == torch.tpu.default_stream()
