"""max_unpool2d/3d and fractional_max_pool2d/3d on tpu against CPU eager,
forward and backward: batched and unbatched inputs, channels_last, indices
from max_pool, duplicate and invalid indices, the same random_samples on both
devices (the result is deterministic given them), NaN windows."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _grad_check(fn, inputs, dtype):
    cpu_in = [t.clone().requires_grad_(k == 0) for k, t in enumerate(inputs)]
    tpu_in = [t.to("tpu").requires_grad_(k == 0) for k, t in enumerate(inputs)]
    y_cpu = fn(*cpu_in)
    with torch_tpu.no_fallback():
        y = fn(*tpu_in)
    assert y.stride() == y_cpu.stride()
    torch.testing.assert_close(y.detach().cpu(), y_cpu.detach(), rtol=0, atol=0)
    gy = torch.randn(y_cpu.shape, generator=torch.Generator().manual_seed(5), dtype=torch.float64).to(dtype)
    (gc,) = torch.autograd.grad(y_cpu, cpu_in[0], gy)
    with torch_tpu.no_fallback():
        (gt,) = torch.autograd.grad(y, tpu_in[0], gy.to("tpu"))
    torch.testing.assert_close(gt.cpu(), gc)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("batched", [True, False])
def test_max_unpool_of_max_pool_matches_cpu(dims, batched, dtype):
    g = torch.Generator().manual_seed(0)
    shape = ((2,) if batched else ()) + (3,) + (8, 7, 6)[:dims]
    x = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[dims]
    unpool = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[dims]
    y, idx = pool(x, 2, stride=2, return_indices=True)
    size = x.shape[-dims:]
    _grad_check(lambda t, i: unpool(t, i, 2, stride=2, output_size=size), [y, idx], dtype)


def test_max_unpool2d_channels_last_and_duplicates():
    x = torch.randn(2, 3, 4, 4).contiguous(memory_format=torch.channels_last)
    idx = torch.randint(0, 16, (2, 3, 4, 4), generator=torch.Generator().manual_seed(1))
    y_cpu = torch.ops.aten.max_unpool2d(x, idx, [4, 4])
    with torch_tpu.no_fallback():
        y = torch.ops.aten.max_unpool2d(x.to("tpu"), idx.to("tpu"), [4, 4])
    assert y.stride() == y_cpu.stride()
    torch.testing.assert_close(y.cpu(), y_cpu, rtol=0, atol=0)


@pytest.mark.parametrize("dims", [2, 3])
def test_max_unpool_invalid_index_raises_cpu_error(dims):
    x = torch.randn((1, 1) + (2,) * dims)
    idx = torch.zeros((1, 1) + (2,) * dims, dtype=torch.long)
    idx.view(-1)[-1] = 99
    call = (lambda t, i: torch.ops.aten.max_unpool2d(t, i, [4, 4])) if dims == 2 else \
        (lambda t, i: torch.ops.aten.max_unpool3d(t, i, [4, 4, 4], [2, 2, 2], [0, 0, 0]))
    with pytest.raises(RuntimeError) as cpu_err:
        call(x, idx)
    with pytest.raises(RuntimeError) as tpu_err:
        call(x.to("tpu"), idx.to("tpu")).cpu()
    assert str(cpu_err.value) in str(tpu_err.value)


def test_max_unpool_argument_errors_match_cpu():
    x = torch.randn(1, 2, 3, 3)
    for args in [(x, torch.zeros(1, 2, 3, 3, dtype=torch.int32), [6, 6]),
                 (x, torch.zeros(1, 2, 3, 2, dtype=torch.long), [6, 6]),
                 (torch.randn(2, 3), torch.zeros(2, 3, dtype=torch.long), [6, 6])]:
        with pytest.raises(RuntimeError) as cpu_err:
            torch.ops.aten.max_unpool2d(*args)
        with pytest.raises(RuntimeError) as tpu_err:
            torch.ops.aten.max_unpool2d(*[a.to("tpu") if isinstance(a, torch.Tensor) else a for a in args])
        assert str(tpu_err.value) == str(cpu_err.value)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("kernel,out", [(2, 4), (3, 3), ((2, 3, 1), (5, 2, 3))], ids=["k2o4", "k3o3", "mixed"])
def test_fractional_max_pool_matches_cpu(dims, batched, kernel, out, dtype):
    g = torch.Generator().manual_seed(2)
    shape = ((2,) if batched else ()) + (3,) + (9, 8, 7)[:dims]
    x = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    if isinstance(kernel, tuple):
        kernel, out = kernel[:dims], out[:dims]
    samples = torch.rand((2 if batched else 1, 3, dims), generator=g, dtype=torch.float64).to(dtype)
    fn = F.fractional_max_pool2d if dims == 2 else F.fractional_max_pool3d
    _grad_check(lambda t, s: fn(t, kernel, output_size=out, _random_samples=s), [x, samples], dtype)
    y_cpu, i_cpu = fn(x, kernel, output_size=out, _random_samples=samples, return_indices=True)
    with torch_tpu.no_fallback():
        y, i = fn(x.to("tpu"), kernel, output_size=out, _random_samples=samples.to("tpu"), return_indices=True)
    torch.testing.assert_close(i.cpu(), i_cpu, rtol=0, atol=0)


def test_fractional_max_pool_nan_and_channels_last():
    x = torch.randn(2, 3, 9, 8)
    x[0, 1, 2, 3] = float("nan")
    x = x.contiguous(memory_format=torch.channels_last)
    s = torch.rand(2, 3, 2)
    y_cpu, i_cpu = F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=s, return_indices=True)
    with torch_tpu.no_fallback():
        y, i = F.fractional_max_pool2d(x.to("tpu"), 3, output_size=4, _random_samples=s.to("tpu"),
                                       return_indices=True)
    torch.testing.assert_close(y.cpu(), y_cpu, rtol=0, atol=0, equal_nan=True)
    torch.testing.assert_close(i.cpu(), i_cpu, rtol=0, atol=0)
