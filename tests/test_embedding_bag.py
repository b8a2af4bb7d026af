"""Embedding bags on tpu against CPU eager: F.embedding_bag in sum, mean and
max mode, with offsets or 2-D input, include_last_offset, padding_idx,
per_sample_weights and empty bags, every floating dtype; the auxiliary
outputs of _embedding_bag in the layout FakeTensor predicts for non-CPU
devices; embedding_renorm_ (max_norm) and ATen's errors."""

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

TOL = {torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=5e-2, rtol=2e-2),
       torch.float32: {}, torch.float64: {}}


def weight(dtype, rows=10, dim=6):
    g = torch.Generator().manual_seed(0)
    return torch.randn(rows, dim, generator=g, dtype=torch.float64).to(dtype)


INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
CASES = [  # (offsets, kwargs)
    (torch.tensor([0, 4]), {}),
    (torch.tensor([0, 3, 3, 7]), {}),                              # an empty bag
    (torch.tensor([0, 3, 6, 10]), dict(include_last_offset=True)),
    (torch.tensor([0, 5]), dict(padding_idx=2)),
    # The last bag runs to the end of indices whatever the last offset says, as on CPU.
    (torch.tensor([0, 2, 2, 9]), dict(include_last_offset=True, padding_idx=4)),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", list(TOL), ids=str)
def test_matches_cpu(mode, case, dtype):
    offsets, kw = CASES[case]
    w = weight(dtype)
    expected = F.embedding_bag(INDICES, w, offsets, mode=mode, **kw)
    with torch_tpu.no_fallback():
        actual = F.embedding_bag(INDICES.to("tpu"), w.to("tpu"), offsets.to("tpu"), mode=mode, **kw)
    torch.testing.assert_close(actual.cpu(), expected, **TOL[dtype])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_with_gradient_wanted(mode):
    # A weight that requires grad takes _embedding_bag (not the forward-only op).
    w = weight(torch.float32)
    offsets = torch.tensor([0, 3, 3, 7])
    expected = F.embedding_bag(INDICES, w.clone().requires_grad_(), offsets, mode=mode)
    torch_tpu.reset_stats()
    with torch_tpu.no_fallback():
        actual = F.embedding_bag(INDICES.to("tpu"), w.to("tpu").requires_grad_(), offsets.to("tpu"), mode=mode)
    assert torch_tpu.stats()["ops"]["aten::_embedding_bag"]["direct"] == 1
    torch.testing.assert_close(actual.detach().cpu(), expected.detach())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_per_sample_weights_and_2d_input(dtype):
    w = weight(dtype)
    psw = torch.rand(10, dtype=torch.float64).to(dtype)
    expected = F.embedding_bag(INDICES, w, torch.tensor([0, 4, 7]), per_sample_weights=psw, mode="sum")
    with torch_tpu.no_fallback():
        actual = F.embedding_bag(INDICES.to("tpu"), w.to("tpu"), torch.tensor([0, 4, 7], device="tpu"),
                                 per_sample_weights=psw.to("tpu"), mode="sum")
    torch.testing.assert_close(actual.cpu(), expected, **TOL[dtype])
    bags = INDICES.reshape(2, 5).int()  # 2-D input: one bag per row, int32 indices
    with torch_tpu.no_fallback():
        actual = F.embedding_bag(bags.to("tpu"), w.to("tpu"), mode="mean")
    torch.testing.assert_close(actual.cpu(), F.embedding_bag(bags, w, mode="mean"), **TOL[dtype])


def test_auxiliary_outputs():
    # offset2bag: each index's bag; bag_size: rows per bag (padding left out,
    # 0 past the last bag); max_indices: the row each max came from, -1 for
    # an empty bag. FakeTensor predicts these shapes for a device other than CPU.
    w = torch.arange(30.0).reshape(10, 3)
    w[5] = -w[5]
    indices = torch.tensor([1, 5, 3, 2, 7], device="tpu")
    offsets = torch.tensor([0, 2, 2, 5], device="tpu")
    out, offset2bag, bag_size, max_indices = torch.ops.aten._embedding_bag(
        w.to("tpu"), indices, offsets, False, 2, False, None, True, 3)
    assert offset2bag.tolist() == [0, 0, 2, 2, 2]
    assert bag_size.tolist() == [2, 0, 2, 0]
    assert max_indices.tolist() == [[1, 1, 1], [-1, -1, -1], [7, 7, 7]]
    torch.testing.assert_close(out.cpu(), torch.stack([w[1], torch.zeros(3), w[7]]))
    from torch._subclasses.fake_tensor import FakeTensorMode

    mode = FakeTensorMode()
    fake_args = [mode.from_tensor(t) for t in (w.to("tpu"), indices, offsets)]
    with mode:
        fake = torch.ops.aten._embedding_bag(*fake_args, False, 2, False, None, True, 3)
    for real, predicted in zip((out, offset2bag, bag_size, max_indices), fake):
        assert (real.shape, real.dtype, real.stride()) == (predicted.shape, predicted.dtype, predicted.stride())


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_max_norm_renormalizes_rows(norm_type):
    w = weight(torch.float32) * 3
    idx = torch.tensor([[1, 2, 4, 2], [4, 3, 2, 9]])
    wc, wt = w.clone(), w.to("tpu")
    expected = F.embedding(idx, wc, max_norm=1.5, norm_type=norm_type)
    with torch_tpu.no_fallback():
        actual = F.embedding(idx.to("tpu"), wt, max_norm=1.5, norm_type=norm_type)
    torch.testing.assert_close(actual.cpu(), expected)
    torch.testing.assert_close(wt.cpu(), wc)  # the weight itself changed in place, rows 1, 2, 3, 4, 9 only


def test_errors():
    w = weight(torch.float32).to("tpu")
    with pytest.raises(RuntimeError, match="per_sample_weights only supported with mode='sum'"):
        torch.ops.aten._embedding_bag(w, INDICES.to("tpu"), torch.tensor([0, 4], device="tpu"), False, 2, False,
                                      torch.ones(10, device="tpu"))
    bad = F.embedding_bag(torch.tensor([1, 20], device="tpu"), w, torch.tensor([0], device="tpu"))
    with pytest.raises(IndexError, match="index out of range"):
        bad.cpu()  # a device-side error: reported at the next synchronisation
    with pytest.raises(NotImplementedError):
        F.embedding_bag(INDICES.to("tpu"), w.long(), torch.tensor([0, 4], device="tpu"))


BACKWARD_CASES = [(mode, extra) for mode in ("sum", "mean", "max") for extra in ("plain", "freq", "psw")
                  if not (extra == "psw" and mode != "sum")      # CPU: per_sample_weights need mode='sum'
                  and not (extra == "freq" and mode == "max")]   # CPU: max mode cannot scale by frequency


def _bag_grads(device, mode, offsets, kw, psw, freq):
    w = weight(torch.float64).to(device).detach().requires_grad_()
    p = psw.to(device).detach().requires_grad_() if psw is not None else None
    out = F.embedding_bag(INDICES.to(device), w, offsets.to(device), mode=mode, per_sample_weights=p,
                          scale_grad_by_freq=freq, **kw)
    out.backward(torch.linspace(-1, 1, out.numel(), dtype=torch.float64).reshape(out.shape).to(device))
    return [w.grad.cpu()] + ([p.grad.cpu()] if p is not None else [])


@pytest.mark.parametrize("mode,extra", BACKWARD_CASES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_backward_matches_cpu(mode, extra, case):
    offsets, kw = CASES[case]
    g = torch.Generator().manual_seed(5)
    psw = torch.rand(len(INDICES), generator=g, dtype=torch.float64) if extra == "psw" else None
    with torch_tpu.no_fallback():
        actual = _bag_grads("tpu", mode, offsets, kw, psw, extra == "freq")
    if extra == "freq":
        # CPU's dense backward divides by the count of the wrong row (it reads
        # counts[indices[i]] with i the unique group's number, not a position):
        # the reference is the unscaled gradient divided by each row's count,
        # what CUDA and the documentation give.
        counts = torch.bincount(INDICES, minlength=10).clamp_min(1).to(torch.float64).unsqueeze(1)
        expected = [_bag_grads("cpu", mode, offsets, kw, psw, False)[0] / counts]
    else:
        expected = _bag_grads("cpu", mode, offsets, kw, psw, False)
    for tpu, cpu in zip(actual, expected):
        torch.testing.assert_close(tpu, cpu)
