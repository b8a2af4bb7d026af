"""The P0 tensor chain: host -> device -> device copy -> host, for every dtype,
shape and layout, and between devices."""

import itertools
import subprocess
import sys

import pytest
import torch

from conftest import ALL_DTYPES, make_tensor

pytestmark = pytest.mark.smoke  # in the fast lane (pyproject.toml)

SHAPES = [(), (0,), (1,), (7,), (3, 0, 2), (4097,), (3, 5, 7), (2, 3, 4, 5)]


def test_user_example():
    cpu = torch.arange(8, dtype=torch.float32)
    tpu = cpu.to("tpu")
    cloned = tpu.clone()
    back = cloned.to("cpu")
    assert tpu.device == torch.device("tpu", 0)
    assert cloned.data_ptr() != tpu.data_ptr()
    assert torch.equal(back, cpu)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip(dtype, shape):
    cpu = make_tensor(shape, dtype)
    tpu = cpu.to("tpu")
    assert tpu.is_tpu and tpu.dtype == dtype and tpu.shape == cpu.shape
    back = tpu.clone().cpu()
    assert back.dtype == dtype and back.stride() == cpu.stride()
    assert torch.equal(back, cpu)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_views_cross_the_boundary(dtype):
    base = make_tensor((6, 8), dtype, seed=1)
    views = {
        "transposed": lambda x: x.t(),
        "sliced": lambda x: x[1:5, 2:7],
        "stepped": lambda x: x[::2, ::3],
        "offset": lambda x: x.view(-1)[5:29],
        "expanded": lambda x: x[:1].expand(4, 8),
        "permuted_3d": lambda x: x.view(2, 3, 8).permute(2, 0, 1),
    }
    tpu_base = base.to("tpu")
    for name, make in views.items():
        # host view -> device
        assert torch.equal(make(base).to("tpu").cpu(), make(base)), name
        # device view -> host
        assert torch.equal(make(tpu_base).cpu(), make(base)), name
        # device view -> device copy
        assert torch.equal(make(tpu_base).clone().cpu(), make(base)), name
        # copy into a non-contiguous device destination (an expanded one is
        # rejected, as on CPU)
        dst = torch.zeros_like(tpu_base)
        expected = torch.zeros_like(base)
        try:
            make(expected).copy_(make(base))
        except RuntimeError as cpu_error:
            with pytest.raises(RuntimeError, match="more than one element of the written-to"):
                make(dst).copy_(make(base))
            assert "more than one element" in str(cpu_error)
            continue
        make(dst).copy_(make(base))
        assert torch.equal(dst.cpu(), expected), name


def test_storage_offset_is_kept():
    base = torch.arange(20.0).to("tpu")
    view = base[5:15].view(2, 5)[:, 1:]
    assert view.storage_offset() == 6
    assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert torch.equal(view.cpu(), torch.arange(20.0)[5:15].view(2, 5)[:, 1:])


def _conversion_cases():
    for src_dtype, dst_dtype in itertools.product(ALL_DTYPES, ALL_DTYPES):
        if src_dtype.is_complex and not dst_dtype.is_complex:
            continue  # covered separately: CPU warns and drops the imaginary part
        yield src_dtype, dst_dtype


@pytest.mark.parametrize("direction", ["h2d", "d2h", "d2d"])
def test_dtype_conversions_match_cpu(direction):
    failures = []
    for src_dtype, dst_dtype in _conversion_cases():
        src = make_tensor((5, 6), src_dtype, seed=3).t()  # non-contiguous source
        expected = torch.empty(6, 5, dtype=dst_dtype).copy_(src)
        if direction == "h2d":
            got = torch.empty(6, 5, dtype=dst_dtype, device="tpu").copy_(src).cpu()
        elif direction == "d2h":
            got = torch.empty(6, 5, dtype=dst_dtype).copy_(src.to("tpu"))
        else:
            got = torch.empty(6, 5, dtype=dst_dtype, device="tpu").copy_(src.to("tpu")).cpu()
        if not torch.equal(got, expected):
            failures.append(f"{src_dtype} -> {dst_dtype}")
    assert not failures, f"{direction} conversions differ from CPU: {failures}"


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("direction", ["h2d", "d2h", "d2d"])
def test_complex_to_real_drops_imaginary_like_cpu(direction):
    src = torch.tensor([1.5 + 2j, -3 - 4j], dtype=torch.complex64)
    expected = torch.empty(2, dtype=torch.float32).copy_(src)
    if direction == "h2d":
        got = torch.empty(2, device="tpu").copy_(src).cpu()
    elif direction == "d2h":
        got = torch.empty(2).copy_(src.to("tpu"))
    else:
        got = torch.empty(2, device="tpu").copy_(src.to("tpu")).cpu()
    assert torch.equal(got, expected)


def test_complex_to_real_warns_like_cpu():
    # TORCH_WARN_ONCE: once per process, so look in a fresh one.
    code = ("import warnings, torch, torch_tpu\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    torch.empty(2, device='tpu').copy_(torch.ones(2, dtype=torch.complex64).to('tpu'))\n"
            "print([str(x.message) for x in w])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "Casting complex values to real discards the imaginary part" in proc.stdout, proc.stderr


def test_to_with_dtype_and_device():
    x = torch.linspace(-3, 3, 13)
    assert torch.equal(x.to("tpu", torch.float16).cpu(), x.to(torch.float16))
    assert torch.equal(x.to("tpu").to(torch.int32).cpu(), x.to(torch.int32))
    assert torch.equal(x.to("tpu").to("cpu", torch.bfloat16), x.to(torch.bfloat16))


def test_broadcasting_copy():
    dst = torch.zeros(3, 4, device="tpu")
    dst.copy_(torch.arange(4.0))
    assert torch.equal(dst.cpu(), torch.arange(4.0).expand(3, 4))
    dst.copy_(torch.tensor(7.0, device="tpu"))
    assert torch.equal(dst.cpu(), torch.full((3, 4), 7.0))


def test_copy_between_devices():
    x = make_tensor((17, 9), torch.float32)
    a = x.to("tpu:0")
    b = a.to("tpu:1")
    assert b.device == torch.device("tpu:1")
    assert torch.equal(b.cpu(), x)
    # with a dtype change and a non-contiguous source and destination
    dst = torch.zeros(9, 17, dtype=torch.float64, device="tpu:0")
    dst.t().copy_(b.t().t())
    assert torch.equal(dst.cpu(), torch.zeros(9, 17, dtype=torch.float64).t().copy_(x).t())
    back = torch.empty(17, 9, device="tpu:1", dtype=torch.bfloat16)
    back.copy_(a)
    assert torch.equal(back.cpu(), x.to(torch.bfloat16))


def test_overlapping_copies_are_rejected_like_cpu():
    for device in ("cpu", "tpu"):
        x = torch.arange(16.0).to(device).view(4, 4)
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written"):
            x.copy_(x.t())
        y = torch.arange(16.0).to(device)
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written"):
            y[1:].copy_(y[:-1])


def test_in_place_conversion_of_the_same_memory():
    x = torch.arange(-8, 8, dtype=torch.int32)
    t = x.to("tpu")
    t.view(torch.float32).copy_(t)        # same bytes, same strides, other dtype
    assert torch.equal(t.view(torch.float32).cpu(), x.to(torch.float32))


def test_copy_of_itself_is_a_no_op():
    t = torch.arange(5.0).to("tpu")
    t.copy_(t)
    t.copy_(t.view(5))
    assert torch.equal(t.cpu(), torch.arange(5.0))


def test_bad_broadcast_is_rejected_like_cpu():
    for device in ("cpu", "tpu"):
        with pytest.raises(RuntimeError, match=r"doesn't match the broadcast shape|must match"):
            torch.zeros(2, device=device).copy_(torch.zeros(2, 3))


@pytest.mark.parametrize("pin", [False, True])
def test_non_blocking_copies(pin):
    x = make_tensor((1000, 33), torch.float32)
    src = x.pin_memory() if pin else x
    assert src.is_pinned() == pin
    tpu = src.to("tpu", non_blocking=True)
    out = torch.empty(1000, 33).pin_memory() if pin else torch.empty(1000, 33)
    out.copy_(tpu, non_blocking=True)
    torch.tpu.synchronize()
    assert torch.equal(out, x)


def test_conjugate_and_negative_views_cross_every_boundary():
    x = torch.tensor([1 + 2j, -3 - 4j, 0.5j], dtype=torch.complex64)
    t = x.to("tpu")
    assert t.conj().is_conj()
    for moved in (t.conj().cpu(), t.conj().clone().cpu(), t.conj().to("tpu:1").cpu(),
                  x.conj().to("tpu").cpu()):
        assert torch.equal(moved, x.conj().resolve_conj())
    r = torch.tensor([1.0, -2.0]).to("tpu")
    neg = torch._neg_view(r)
    assert torch.equal(neg.cpu(), torch.tensor([-1.0, 2.0]))
    assert torch.equal(neg.clone().cpu(), torch.tensor([-1.0, 2.0]))
