"""The names the ecosystem expects of a package called torch_tpu with device
"tpu" (Google's TorchTPU conventions, which transformers follows):
torch.compile(backend="tpu"), the c10d backends "tpu_dist" and "tpu", and
torch.backends.tpu."""

from datetime import timedelta

import pytest
import torch
import torch.distributed as dist


def _chain(x, y, z):
    return torch.nn.functional.gelu(x * y + z).sum(-1)


def test_compile_backend_tpu_is_inductor_on_tpu(fresh_dynamo):
    from torch._dynamo.utils import counters

    args = [torch.randn(8, 16, device="tpu") for _ in range(3)]
    out = torch.compile(_chain, backend="tpu")(*args)
    torch.testing.assert_close(out.cpu(), _chain(*(a.cpu() for a in args)))
    assert counters["inductor"]["fxgraph_cache_miss"] + counters["inductor"]["fxgraph_cache_hit"] >= 1
    assert "tpu" in torch._dynamo.list_backends()


def test_compile_backend_tpu_takes_modes(fresh_dynamo):
    args = [torch.randn(8, 16, device="tpu") for _ in range(3)]
    f = torch.compile(_chain, backend="tpu", mode="reduce-overhead")
    for _ in range(3):  # record, then replay
        out = f(*args)
    torch.testing.assert_close(out.cpu(), _chain(*(a.cpu() for a in args)))


def test_allow_excess_precision_false_rounds_like_eager(fresh_dynamo):
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(4096, generator=g).bfloat16().to("tpu") for _ in range(3)]

    def f(x, y, z):
        return (x * y + z) * y  # eager rounds each product and sum to bfloat16

    eager = f(*args).cpu()
    assert torch.backends.tpu.allow_excess_precision is True
    fused = torch.compile(f, backend="tpu")(*args).cpu()
    assert not torch.equal(fused, eager)  # float32 intermediates: other roundings
    torch._dynamo.reset()
    torch.backends.tpu.allow_excess_precision = False
    try:
        exact = torch.compile(f, backend="tpu")(*args).cpu()
    finally:
        torch.backends.tpu.allow_excess_precision = True
    assert torch.equal(exact, eager)


def test_backends_tpu_namespace():
    import torch.backends.tpu as tb

    assert tb is torch.backends.tpu
    assert tb.is_built() and tb.is_available() == torch.tpu.is_available()
    assert tb.cpu_capability == torch.tpu.cpu_capability()["selected"]
    with pytest.raises(AttributeError, match="read-only"):
        tb.cpu_capability = "avx2"
    with pytest.raises(TypeError, match="must be a bool"):
        tb.allow_excess_precision = 1
    assert tb.launch_blocking is torch.tpu.get_launch_blocking() is False
    tb.launch_blocking = True
    try:
        assert torch.tpu.get_launch_blocking() is True
    finally:
        tb.launch_blocking = False


@pytest.mark.parametrize("name", ["tpu_dist", "tpu", "tccl"])
def test_c10d_backend_names(name):
    assert dist.Backend.default_device_backend_map["tpu"] == "tccl"
    dist.init_process_group(backend=name, store=dist.HashStore(), rank=0, world_size=1,
                            timeout=timedelta(seconds=30))
    try:
        x = torch.arange(4.0, device="tpu")
        dist.all_reduce(x)
        dist.barrier(device_ids=[0])  # as transformers calls it
        assert x.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
        assert dist.get_backend() == name
    finally:
        dist.destroy_process_group()
