"""CTC loss on tpu (aten::_ctc_loss and _ctc_loss_backward, both length
overloads) against CPU, beyond what the nn.functional.ctc_loss OpInfo covers:
the reductions with gradients, concatenated and padded targets, zero_infinity
with impossible alignments, a blank other than 0, unbatched input, int32
targets and lengths, non-contiguous log_probs, the Tensor-lengths overloads
(one counted synchronisation), the autogen .out overloads, and CPU's argument
errors (type and message)."""

import contextlib
import functools
import re

import pytest
import torch
import torch.nn.functional as F

import torch_tpu

aten = torch.ops.aten


def _log_probs(T, N, C, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(T, N, C, generator=g, dtype=dtype).log_softmax(2)


def _problem(T=30, N=5, C=7, S=8, dtype=torch.float32, blank=0, seed=0):
    """log_probs, padded targets (labels != blank) and lengths, with varied
    input and target lengths (one empty target, one input shorter than T)."""
    g = torch.Generator().manual_seed(seed + 1)
    log_probs = _log_probs(T, N, C, dtype, seed)
    labels = [c for c in range(C) if c != blank]
    targets = torch.tensor(labels)[torch.randint(0, len(labels), (N, S), generator=g)]
    target_lengths = torch.randint(1, S + 1, (N,), generator=g)
    target_lengths[0] = 0
    input_lengths = torch.full((N,), T, dtype=torch.long)
    input_lengths[-1] = T - 7
    return log_probs, targets, input_lengths, target_lengths


def _concatenated(targets, target_lengths):
    return torch.cat([targets[b, :n] for b, n in enumerate(target_lengths.tolist())])


def _loss_and_grad(device, log_probs, targets, input_lengths, target_lengths, grad_seed=3, **kwargs):
    """F.ctc_loss on `device` and the gradient of log_probs for a seeded
    grad_output; lengths stay lists or move with the tensors."""
    def move(x):
        return x.to(device) if isinstance(x, torch.Tensor) else x
    lp = log_probs.detach().to(device).requires_grad_()
    loss = F.ctc_loss(lp, move(targets), move(input_lengths), move(target_lengths), **kwargs)
    g = torch.Generator().manual_seed(grad_seed)
    grad_output = torch.rand(loss.shape, generator=g, dtype=loss.dtype) + 0.5
    loss.backward(grad_output.to(device))
    return loss.detach().cpu(), lp.grad.cpu()


def _assert_matches_cpu(*args, **kwargs):
    expected = _loss_and_grad("cpu", *args, **kwargs)
    with torch_tpu.no_fallback():
        actual = _loss_and_grad("tpu", *args, **kwargs)
    torch.testing.assert_close(actual, expected, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("lengths", ["list", "tensor"])
def test_loss_and_grad_match_cpu(dtype, reduction, layout, lengths):
    log_probs, targets, input_lengths, target_lengths = _problem(dtype=dtype)
    if layout == "concatenated":
        targets = _concatenated(targets, target_lengths)
    if lengths == "list":
        input_lengths, target_lengths = input_lengths.tolist(), target_lengths.tolist()
    _assert_matches_cpu(log_probs, targets, input_lengths, target_lengths, reduction=reduction)


def _impossible_problem(dtype):
    # Element 1's target [2, 2, 2, 3] needs 6 steps (a blank between repeated
    # labels) but has 4; element 3's [1, 1, 1, 1] needs 7 and has 5.
    log_probs = _log_probs(6, 4, 5, dtype, seed=4)
    targets = torch.tensor([[1, 2, 3, 4], [2, 2, 2, 3], [4, 3, 0, 0], [1, 1, 1, 1]])
    input_lengths = torch.tensor([6, 4, 6, 5])
    target_lengths = torch.tensor([4, 4, 2, 4])
    return log_probs, targets, input_lengths, target_lengths


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_impossible_alignments_match_cpu(dtype, zero_infinity, reduction):
    problem = _impossible_problem(dtype)
    _assert_matches_cpu(*problem, reduction=reduction, zero_infinity=zero_infinity)
    loss, grad = _loss_and_grad("tpu", *problem, reduction="none", zero_infinity=zero_infinity)
    if zero_infinity:
        assert loss[1] == 0 and loss[3] == 0
        assert torch.all(grad[:, [1, 3]] == 0)
    else:
        assert loss[1] == float("inf") and loss[3] == float("inf")
    assert torch.isfinite(loss[[0, 2]]).all() and torch.isfinite(grad[:, [0, 2]]).all()


@pytest.mark.parametrize("blank", [3, 6])
def test_blank_other_than_zero_matches_cpu(blank):
    log_probs, targets, input_lengths, target_lengths = _problem(C=7, blank=blank, dtype=torch.float64)
    for reduction in ("none", "mean"):
        _assert_matches_cpu(log_probs, targets, input_lengths, target_lengths, blank=blank, reduction=reduction)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("lengths", ["list", "tensor", "scalar tensor"])
def test_unbatched_input_matches_cpu(reduction, lengths):
    log_probs = _log_probs(12, 1, 6, torch.float32, seed=5)[:, 0]   # [T, C]
    targets = torch.tensor([1, 4, 4, 2, 5])
    input_lengths, target_lengths = {
        "list": ([12], [5]),
        "tensor": (torch.tensor([12]), torch.tensor([5])),
        "scalar tensor": (torch.tensor(12), torch.tensor(5)),
    }[lengths]
    _assert_matches_cpu(log_probs, targets, input_lengths, target_lengths, reduction=reduction)


def test_int32_targets_and_noncontiguous_log_probs_match_cpu():
    # [N, T, C] transposed to [T, N, C], a common layout; int32 labels.
    log_probs = _log_probs(9, 20, 6, torch.float32, seed=6).transpose(0, 1)
    g = torch.Generator().manual_seed(7)
    targets = torch.randint(1, 6, (9, 7), generator=g, dtype=torch.int32)
    input_lengths = torch.randint(10, 21, (9,), generator=g)
    target_lengths = torch.randint(0, 8, (9,), generator=g)
    results = {}
    for device in ("cpu", "tpu"):
        lp = log_probs.to(device)
        nll, log_alpha = aten._ctc_loss(lp, targets.to(device), input_lengths.tolist(), target_lengths.tolist())
        grad = aten._ctc_loss_backward(torch.linspace(0.5, 2, 9, dtype=lp.dtype).to(device), lp, targets.to(device),
                                       input_lengths.tolist(), target_lengths.tolist(), nll, log_alpha, 0)
        results[device] = (nll.cpu(), log_alpha.cpu(), grad.cpu())
    (nll_c, alpha_c, grad_c), (nll_t, alpha_t, grad_t) = results["cpu"], results["tpu"]
    torch.testing.assert_close(nll_t, nll_c)
    torch.testing.assert_close(grad_t, grad_c)
    # log_alpha where CPU writes it (t < input length, s <= 2 * target length); -inf elsewhere.
    assert alpha_t.shape == alpha_c.shape and alpha_t.is_contiguous()
    for b in range(9):
        t, s = input_lengths[b].item(), 2 * target_lengths[b].item() + 1
        torch.testing.assert_close(alpha_t[b, :t, :s], alpha_c[b, :t, :s])
        rest = torch.ones_like(alpha_t[b], dtype=torch.bool)
        rest[:t, :s] = False
        rest[0, :2] = False   # CPU fills row 0 with -inf and writes states 0 and 1
        assert torch.all(alpha_t[b][rest] == float("-inf"))


def test_strided_concatenated_targets_match_cpu():
    # CPU (and CUDA) start element b's labels at offset sum(target_lengths[:b])
    # in elements whatever the stride: the same layout on tpu reads the same.
    log_probs = _log_probs(12, 3, 6, torch.float64, seed=13)
    base = torch.randint(1, 6, (20,), generator=torch.Generator().manual_seed(14))
    il, tl = [12, 12, 10], [4, 3, 3]
    expected = aten._ctc_loss(log_probs, base[::2], il, tl)[0]
    actual = aten._ctc_loss(log_probs.to("tpu"), base.to("tpu")[::2], il, tl)[0]
    torch.testing.assert_close(actual.cpu(), expected)


def test_zero_input_and_target_lengths_match_cpu():
    log_probs = _log_probs(5, 4, 4, torch.float64, seed=8)
    targets = torch.tensor([[1, 2], [3, 3], [1, 1], [2, 1]])
    input_lengths, target_lengths = [0, 0, 5, 3], [0, 2, 0, 2]
    for zero_infinity in (False, True):
        _assert_matches_cpu(log_probs, targets, input_lengths, target_lengths, reduction="none",
                            zero_infinity=zero_infinity)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_tensor_lengths_overloads_match_cpu_with_one_sync_each(dtype):
    log_probs, targets, input_lengths, target_lengths = _problem(dtype=dtype, seed=9)
    input_lengths = input_lengths.to(torch.int32)   # any integral type, as on CPU
    grad_output = torch.rand(5, dtype=dtype) + 0.5
    results = {}
    for device in ("cpu", "tpu"):
        args = [t.to(device) for t in (log_probs, targets, input_lengths, target_lengths)]
        gd = grad_output.to(device)
        torch_tpu.reset_stats()
        nll, log_alpha = aten._ctc_loss.Tensor(*args, blank=0, zero_infinity=False)
        forward_syncs = dict(torch_tpu.stats()["syncs"])
        torch_tpu.reset_stats()
        grad = aten._ctc_loss_backward.Tensor(gd, *args, nll, log_alpha, 0, False)
        backward_syncs = dict(torch_tpu.stats()["syncs"])
        results[device] = (nll.cpu(), grad.cpu())
        if device == "tpu":   # the lengths, read in one copy
            assert forward_syncs == {"copy_d2h": 1} and backward_syncs == {"copy_d2h": 1}
    torch.testing.assert_close(results["tpu"], results["cpu"])
    # Through autograd: _ctc_loss.Tensor's formula calls _ctc_loss_backward.Tensor.
    grads = {}
    for device in ("cpu", "tpu"):
        lp = log_probs.detach().to(device).requires_grad_()
        nll, _ = aten._ctc_loss.Tensor(lp, targets.to(device), input_lengths.to(device), target_lengths.to(device))
        nll.backward(grad_output.to(device))
        grads[device] = lp.grad.cpu()
    torch.testing.assert_close(grads["tpu"], grads["cpu"])


def test_out_overloads_match_functional():
    log_probs, targets, input_lengths, target_lengths = (t.to("tpu") for t in _problem(seed=10))
    il, tl = input_lengths.tolist(), target_lengths.tolist()
    nll, log_alpha = aten._ctc_loss(log_probs, targets, il, tl)
    out0, out1 = torch.empty(0, device="tpu"), torch.empty(0, device="tpu")
    aten._ctc_loss.out(log_probs, targets, il, tl, out0=out0, out1=out1)
    torch.testing.assert_close((out0.cpu(), out1.cpu()), (nll.cpu(), log_alpha.cpu()))
    out0, out1 = torch.empty(0, device="tpu"), torch.empty(0, device="tpu")
    aten._ctc_loss.Tensor_out(log_probs, targets, input_lengths, target_lengths, out0=out0, out1=out1)
    torch.testing.assert_close((out0.cpu(), out1.cpu()), (nll.cpu(), log_alpha.cpu()))
    grad_output = torch.ones(5, device="tpu")
    expected = aten._ctc_loss_backward(grad_output, log_probs, targets, il, tl, nll, log_alpha, 0)
    out = torch.empty(0, device="tpu")
    aten._ctc_loss_backward.out(grad_output, log_probs, targets, il, tl, nll, log_alpha, 0, out=out)
    torch.testing.assert_close(out.cpu(), expected.cpu())


def test_module_trains_without_fallback():
    log_probs, targets, input_lengths, target_lengths = _problem(T=40, N=6, C=9, S=10, seed=11)
    logits = {d: torch.nn.Parameter(log_probs.clone().to(d)) for d in ("cpu", "tpu")}
    losses = {}
    for device in ("cpu", "tpu"):
        ctc = torch.nn.CTCLoss(zero_infinity=True)
        opt = torch.optim.SGD([logits[device]], lr=0.5)
        losses[device] = []
        with torch_tpu.no_fallback() if device == "tpu" else contextlib.nullcontext():
            for _ in range(5):
                opt.zero_grad()
                loss = ctc(logits[device].log_softmax(2), targets.to(device), input_lengths.to(device),
                           target_lengths.to(device))
                loss.backward()
                opt.step()
                losses[device].append(loss.item())
    torch.testing.assert_close(torch.tensor(losses["tpu"]), torch.tensor(losses["cpu"]))   # float32 tolerances
    assert losses["tpu"][-1] < losses["tpu"][0]


# ---- errors --------------------------------------------------------------------

def _valid(device, dtype=torch.float32):
    lp = _log_probs(6, 2, 5, dtype, seed=12).to(device)
    return lp, torch.tensor([[1, 2, 3], [4, 4, 1]], device=device), [6, 5], [3, 2]


def _backward_args(device, **change):
    lp, targets, il, tl = _valid(device)
    nll, log_alpha = aten._ctc_loss(lp, targets, il, tl)
    args = dict(grad=torch.ones(2, device=device), log_probs=lp, targets=targets, input_lengths=il,
                target_lengths=tl, neg_log_likelihood=nll, log_alpha=log_alpha, blank=0)
    for name, fn in change.items():
        args[name] = fn(args[name])
    return args


def _backward_call(device, op=aten._ctc_loss_backward, **change):
    args = _backward_args(device, **change)
    return functools.partial(op, **args)


# case -> device -> the failing call, its inputs already made (so that the
# launches a call makes can be counted).
_ERRORS = {
    "empty log_probs": lambda d: functools.partial(
        aten._ctc_loss, torch.empty(0, 2, 5, device=d), _valid(d)[1], [0, 0], [3, 2]),
    "float targets": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1].float(), [6, 5], [3, 2]),
    "2-d log_probs": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0][0], _valid(d)[1], [6, 5], [3, 2]),
    "3-d targets": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1][None], [6, 5], [3, 2]),
    "blank too large": lambda d: functools.partial(aten._ctc_loss, *_valid(d), 5),
    "blank negative": lambda d: functools.partial(aten._ctc_loss, *_valid(d), -1),
    "input_lengths size": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1], [6], [3, 2]),
    "target_lengths size": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1], [6, 5], [3, 2, 1]),
    "negative target length": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1], [6, 5], [3, -1]),
    "target longer than targets": lambda d: functools.partial(
        aten._ctc_loss, _valid(d)[0], _valid(d)[1], [6, 5], [4, 2]),
    "targets batch": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1][:1], [6, 5], [3, 2]),
    "concatenated targets size": lambda d: functools.partial(
        aten._ctc_loss, _valid(d)[0], _valid(d)[1].flatten(), [6, 5], [3, 2]),
    "negative input length": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1], [-1, 5], [3, 2]),
    "input length too long": lambda d: functools.partial(aten._ctc_loss, _valid(d)[0], _valid(d)[1], [7, 5], [3, 2]),
    "float input_lengths": lambda d: functools.partial(
        aten._ctc_loss.Tensor, _valid(d)[0], _valid(d)[1], torch.tensor([6.0, 5.0], device=d),
        torch.tensor([3, 2], device=d)),
    "bool target_lengths": lambda d: functools.partial(
        aten._ctc_loss.Tensor, _valid(d)[0], _valid(d)[1], torch.tensor([6, 5], device=d),
        torch.tensor([True, True], device=d)),
    "Tensor lengths, blank too large": lambda d: functools.partial(
        aten._ctc_loss.Tensor, _valid(d)[0], _valid(d)[1], torch.tensor([6, 5], device=d),
        torch.tensor([3, 2], device=d), 5),
    "Tensor lengths too long": lambda d: functools.partial(
        aten._ctc_loss.Tensor, _valid(d)[0], _valid(d)[1], torch.tensor([6, 9], device=d),
        torch.tensor([3, 2], device=d)),
    "F.ctc_loss bad lengths": lambda d: functools.partial(
        F.ctc_loss, _valid(d)[0], _valid(d)[1], torch.tensor([6, 5], device=d), torch.tensor([3, 7], device=d)),
    "backward 2-d log_probs": lambda d: _backward_call(d, log_probs=lambda t: t[0]),
    "backward 2-d log_alpha": lambda d: _backward_call(d, log_alpha=lambda t: t[0]),
    "backward double log_alpha": lambda d: _backward_call(d, log_alpha=lambda t: t.double()),
    "backward float targets": lambda d: _backward_call(d, targets=lambda t: t.float()),
    "backward 0-d grad": lambda d: _backward_call(d, grad=lambda t: t[0]),
    "backward double grad": lambda d: _backward_call(d, grad=lambda t: t.double()),
    "backward 2-d nll": lambda d: _backward_call(d, neg_log_likelihood=lambda t: t[:, None]),
    "backward float lengths": lambda d: _backward_call(
        d, op=aten._ctc_loss_backward.Tensor, input_lengths=lambda x: torch.tensor(x, device=d, dtype=torch.float),
        target_lengths=lambda x: torch.tensor(x, device=d)),
}

# Refused only after reading the lengths, which takes a device kernel (the
# lengths gathered for one copy to the host).
_AFTER_READING_LENGTHS = {"Tensor lengths too long"}


def _device_neutral(message):
    # ATen's checkScalarType names the tensor type ("CPUFloatType"), and
    # Python's error translation turns CPU's and CUDA's into "torch.FloatTensor"
    # / "torch.cuda.FloatTensor"; it knows no other device's.
    return re.sub(r"tpu(\w+)Type", r"torch.\1Tensor", message)


@pytest.mark.parametrize("case", sorted(_ERRORS))
def test_errors_match_cpu(case):
    cpu_call, tpu_call = _ERRORS[case]("cpu"), _ERRORS[case]("tpu")
    with pytest.raises(Exception) as cpu_error:
        cpu_call()
    launches = torch_tpu.stats()["launches"]
    with pytest.raises(Exception) as tpu_error:
        tpu_call()
    assert type(tpu_error.value) is type(cpu_error.value)
    assert _device_neutral(str(tpu_error.value)) == str(cpu_error.value)
    if case not in _AFTER_READING_LENGTHS:
        assert torch_tpu.stats()["launches"] == launches, "refused only after launching"


@pytest.mark.parametrize("op", ["forward", "backward"])
def test_half_is_not_implemented_as_on_cpu(op):
    def call(device):
        lp, targets, il, tl = _valid(device)
        if op == "forward":
            return aten._ctc_loss(lp.half(), targets, il, tl)
        nll, log_alpha = aten._ctc_loss(lp, targets, il, tl)
        return aten._ctc_loss_backward(torch.ones(2, device=device).half(), lp.half(), targets, il, tl,
                                       nll.half(), log_alpha.half(), 0)
    for device in ("cpu", "tpu"):
        with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
            call(device)


def test_label_out_of_range_raises_at_synchronisation():
    # CPU reads out of bounds here; the device refuses and stays usable.
    lp, targets, il, tl = _valid("tpu")
    nll, _ = aten._ctc_loss(lp, torch.tensor([[1, 2, 5], [4, 4, 1]], device="tpu"), il, tl)
    with pytest.raises(RuntimeError, match="target label 5 .* out of range for 5 classes"):
        nll.cpu()
    nll, _ = aten._ctc_loss(lp, targets, il, tl)
    torch.testing.assert_close(nll.cpu(), aten._ctc_loss(*_valid("cpu"))[0])
