"""torch.optim.lr_scheduler and torch.optim.swa_utils (AveragedModel, SWALR,
update_bn) driving tpu parameters: the same training on CPU and tpu gives
the same learning rates, parameters, averaged weights and BatchNorm
statistics, with no operator on the host fallback."""

import pytest
import torch
import torch_tpu
from torch.optim import lr_scheduler
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn

SCHEDULERS = {
    "StepLR": lambda opt: lr_scheduler.StepLR(opt, step_size=2, gamma=0.5),
    "MultiStepLR": lambda opt: lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.3),
    "ExponentialLR": lambda opt: lr_scheduler.ExponentialLR(opt, gamma=0.8),
    "CosineAnnealingLR": lambda opt: lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda opt: lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2),
    "OneCycleLR": lambda opt: lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=6),
    "CyclicLR": lambda opt: lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.2, step_size_up=2),
    "LambdaLR": lambda opt: lr_scheduler.LambdaLR(opt, lambda e: 1 / (1 + e)),
    "LinearLR": lambda opt: lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3),
    "PolynomialLR": lambda opt: lr_scheduler.PolynomialLR(opt, total_iters=5, power=2.0),
    "SequentialLR": lambda opt: lr_scheduler.SequentialLR(
        opt, [lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2), lr_scheduler.ExponentialLR(opt, 0.9)],
        milestones=[2]),
    "ChainedScheduler": lambda opt: lr_scheduler.ChainedScheduler(
        [lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2), lr_scheduler.ExponentialLR(opt, 0.9)]),
    "ReduceLROnPlateau": lambda opt: lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5),
}


def _model(device):
    # No bias before the BatchNorm: its gradient is zero up to rounding, which
    # Adam would scale up to lr-sized steps of either sign on either device.
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8, bias=False), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                               torch.nn.Linear(8, 2)).to(device)


def _batches(device, n=6):
    g = torch.Generator().manual_seed(1)
    return [torch.randn(10, 4, generator=g).to(device) for _ in range(n)]


def _train_with_scheduler(device, name, optim_cls):
    model = _model(device)
    kwargs = {"momentum": 0.9} if optim_cls is torch.optim.SGD else {}
    opt = optim_cls(model.parameters(), lr=0.1, **kwargs)
    sched = SCHEDULERS[name](opt)
    lrs = []
    for x in _batches(device):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        if name == "ReduceLROnPlateau":
            sched.step(loss.item())  # the metric is a host float, as in a training loop
        else:
            sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    return lrs, [p.detach().cpu() for p in model.parameters()]


@pytest.mark.parametrize("optim_cls", [torch.optim.SGD, torch.optim.Adam], ids=["SGD", "Adam"])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_matches_cpu(name, optim_cls):
    cpu_lrs, cpu_params = _train_with_scheduler("cpu", name, optim_cls)
    before = torch_tpu.stats()
    tpu_lrs, tpu_params = _train_with_scheduler("tpu", name, optim_cls)
    assert torch_tpu.telemetry.fallback_calls() == torch_tpu.telemetry.fallback_calls(before)
    assert tpu_lrs == pytest.approx(cpu_lrs, rel=1e-12)
    for a, b in zip(tpu_params, cpu_params):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def _swa(device, ema):
    model = _model(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if ema:
        avg = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
    else:
        avg = AveragedModel(model)
    swa_sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
    lrs = []
    batches = _batches(device)
    for x in batches:
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        avg.update_parameters(model)
        swa_sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    if not ema:
        update_bn(batches, avg)  # recompute BatchNorm statistics for the averaged weights
    state = {k: v.detach().cpu() for k, v in avg.state_dict().items()}
    # the averaged copy lives on the device (n_averaged stays where AveragedModel puts it: the CPU)
    assert all(v.device.type == device for v in avg.module.state_dict().values())
    return lrs, state


@pytest.mark.parametrize("ema", [False, True], ids=["swa_update_bn", "ema_with_buffers"])
def test_swa_utils_match_cpu(ema):
    cpu_lrs, cpu_state = _swa("cpu", ema)
    before = torch_tpu.stats()
    tpu_lrs, tpu_state = _swa("tpu", ema)
    assert torch_tpu.telemetry.fallback_calls() == torch_tpu.telemetry.fallback_calls(before)
    assert tpu_lrs == pytest.approx(cpu_lrs, rel=1e-12)
    assert tpu_state.keys() == cpu_state.keys()
    for k in cpu_state:
        torch.testing.assert_close(tpu_state[k], cpu_state[k], rtol=1e-4, atol=1e-5, msg=lambda m: f"{k}: {m}")
