"""The P0 tensor chain on the simulated TPU: host -> device -> device copy ->
host, for every dtype, plus a look at devices, streams and memory.

    python examples/quickstart.py
"""

import torch

import torch_tpu  # optional: `import torch` already loaded the backend


def main() -> None:
    cpu = torch.arange(8, dtype=torch.float32)
    tpu = cpu.to("tpu")
    cloned = tpu.clone()
    back = cloned.to("cpu")
    assert torch.equal(back, cpu)
    print(f"{cpu.tolist()} -> {tpu.device} -> clone -> cpu: equal")

    dtypes = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
              torch.complex128]
    for dtype in dtypes:
        x = (torch.arange(-6, 6).view(3, 4) % 5).to(dtype)
        y = x.to("tpu").t().clone().to("tpu:1").cpu()
        assert torch.equal(y, x.t()), dtype
    print(f"round trip through tpu:0 and tpu:1 for {len(dtypes)} dtypes: ok")

    props = torch.tpu.get_device_properties(0)
    print(f"{torch.tpu.device_count()} x {props}")
    side = torch.tpu.Stream()
    with torch.tpu.stream(side):
        z = tpu.clone()
    side.synchronize()
    print(f"stream {side.stream_id} copy: {z.cpu().tolist()}")
    print(f"memory allocated on tpu:0: {torch.tpu.memory_allocated(0)} bytes, "
          f"reserved: {torch.tpu.memory_reserved(0)} bytes")
    stats = torch_tpu.stats()
    print(f"copies: {stats['copies']}")
    print(f"host syncs: {stats['syncs']}")


if __name__ == "__main__":
    main()
