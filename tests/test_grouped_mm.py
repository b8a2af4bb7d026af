"""torch._grouped_mm on tpu (the experts of transformers' mixture of
experts): every split (2d x 3d, 3d x 2d, 2d x 2d, 3d x 3d) in every floating
dtype against a float64 loop over the groups, empty and uneven groups,
gradients, no host synchronisation, and ATen's argument errors."""

import pytest
import torch

import torch_tpu

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _ref(a, b, offs):
    """ATen's loop over groups, in float64."""
    a, b = a.double(), b.double()
    offs = offs.tolist() if offs is not None else None
    if a.dim() == 3 and b.dim() == 3:
        return a @ b
    starts = [0] + offs[:-1]
    if a.dim() == 2 and b.dim() == 3:
        out = torch.zeros(a.shape[0], b.shape[-1], dtype=torch.float64)
        for g, (s, e) in enumerate(zip(starts, offs)):
            out[s:e] = a[s:e] @ b[g]
    elif a.dim() == 3:
        out = torch.zeros(a.shape[1], b.shape[1], dtype=torch.float64)
        for g, (s, e) in enumerate(zip(starts, offs)):
            out[:, s:e] = a[g] @ b[:, s:e]
    else:
        out = torch.stack([a[:, s:e] @ b[s:e] for s, e in zip(starts, offs)])
    return out


def _tol(dtype):
    return {torch.float16: dict(rtol=2e-3, atol=2e-3), torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2)}.get(dtype, {})


def _case(split, dtype, offs=(3, 3, 10, 16)):
    # Extents in multiples of 16 bytes, which CPU's own _grouped_mm requires
    # (tpu takes any strides).
    g = torch.Generator().manual_seed(0)
    offs = torch.tensor(offs, dtype=torch.int32)
    G, K, N, M = len(offs), 8, 8, 16
    shapes = {"2d3d": ((M, K), (G, K, N)), "3d2d": ((G, M, K), (K, int(offs[-1]))),
              "2d2d": ((M, int(offs[-1])), (int(offs[-1]), N)), "3d3d": ((G, M, K), (G, K, N))}
    a, b = (torch.randn(s, generator=g).to(dtype) for s in shapes[split])
    return a, b, (None if split == "3d3d" else offs)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("split", ["2d3d", "3d2d", "2d2d", "3d3d"])
def test_grouped_mm_matches_the_loop_over_groups(split, dtype):
    a, b, offs = _case(split, dtype)
    args = (a.to("tpu"), b.to("tpu"), offs.to("tpu") if offs is not None else None)
    torch.tpu.synchronize()
    syncs = dict(torch_tpu.stats()["syncs"])
    with torch_tpu.no_fallback():
        out = torch._grouped_mm(*args)
    assert torch_tpu.stats()["syncs"] == syncs  # the offsets stay on the device
    assert out.dtype == dtype and out.device.type == "tpu"
    torch.testing.assert_close(out.cpu(), _ref(a, b, offs).to(dtype), **_tol(dtype))
    if dtype != torch.float64:  # CPU's own takes these dtypes: same layout
        cpu = torch._grouped_mm(a, b, offs)
        assert out.shape == cpu.shape and out.stride() == cpu.stride()


def test_rows_no_group_covers_are_zero():
    a, b, offs = _case("2d3d", torch.float32, offs=(2, 4, 4, 6))  # rows 6..15 in no group
    out = torch._grouped_mm(a.to("tpu"), b.to("tpu"), offs.to("tpu")).cpu()
    assert torch.equal(out[6:], torch.zeros(10, 8))
    torch.testing.assert_close(out, _ref(a, b, offs).float())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_gradients_match_float64(dtype):
    a, b, offs = _case("2d3d", dtype)
    grads = {}
    for dev, dt in (("tpu", dtype), ("cpu", torch.float64)):
        aa, bb = a.to(dev, dt).requires_grad_(), b.to(dev, dt).requires_grad_()
        if dev == "cpu":
            out = _ref(aa, bb, offs)  # differentiable float64 loop
        else:
            out = torch._grouped_mm(aa, bb, offs.to(dev))
        out.square().sum().backward()
        grads[dev] = (aa.grad.cpu(), bb.grad.cpu())
    for got, want in zip(grads["tpu"], grads["cpu"]):
        torch.testing.assert_close(got, want.to(dtype))


def test_argument_errors_are_atens():
    a, b, _ = _case("2d3d", torch.float32)
    a, b = a.to("tpu"), b.to("tpu")
    with pytest.raises(RuntimeError, match="Have to provide offsets"):
        torch._grouped_mm(a, b)
    with pytest.raises(RuntimeError, match="Offsets have to be int32"):
        torch._grouped_mm(a, b, torch.tensor([1, 2, 3, 4], device="tpu"))
    with pytest.raises(RuntimeError, match="contraction dimension"):
        torch._grouped_mm(a[:, :5], b, torch.tensor([1, 2, 3, 4], dtype=torch.int32, device="tpu"))
    with pytest.raises(RuntimeError, match="offs has to be 1D"):
        torch._grouped_mm(a, b, torch.tensor([[1, 2, 3, 4]], dtype=torch.int32, device="tpu"))
    with pytest.raises(RuntimeError, match="floating point matrix"):
        torch._grouped_mm(a.int(), b.int(), torch.tensor([1, 2, 3, 4], dtype=torch.int32, device="tpu"))
