"""Does a network train on tpu as it does on CPU eager? A check that holds on
any CPU.

Two float32 runs of one network part wherever a ReLU or max input lies
within rounding of its tie: the two devices sum in different orders, take
different sides, and one gradient element jumps. Which side is taken depends
on the CPU (its oneDNN and BLAS paths), so a float32 state compared with a
tolerance tuned on one CPU fails on another. The check therefore compares
pointwise only what rounding cannot flip:

1. **float64, step by step.** From each state of a CPU float64 run, one step
   on tpu in float64 gives CPU's loss, parameters, buffers and optimizer
   state (the gradients) to within float64 rounding. Its rounding (1e-16)
   is far too small to meet a tie by chance, so this is strict and
   pointwise: every op, its gradient and the optimizer.
2. **float32 loss, step by step.** From the same states cast to float32, the
   loss is continuous at a tie (ReLU and max are continuous; only their
   derivatives jump), so tpu's float32 loss may be no further from the
   float64 loss than a small multiple of CPU float32's distance.
3. **float32 update, step by step.** Each state tensor's float32 update
   (new state - old state) must be the float64 update to within a small
   multiple of CPU float32's error, normwise, plus what flipped ties may
   move. A flip moves one summand of a gradient reduction, so it changes a
   tensor's update by a small fraction of its norm; a wrong kernel moves it
   by a large one.
4. **The free float32 run on tpu learns.**

An example module (train_gpt.py, ...) provides `model()`, `optimizer(model)`,
`train_step(model, opt, *batch) -> float` and `batches(steps)`, and may set
`f64_rtol` when its model computes some parts in float32 whatever its dtype
(then the float64 step can only be as exact as float32).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import torch

# float64 steps sum in other orders on the two devices: errors of a few
# hundred ulp of the values, far below anything a wrong op produces.
F64_RTOL = 1e-9
# A tensor that is rounding noise itself (the gradient of a bias that batch
# norm cancels is 0 plus 1e-17) is held to the scale of its kind: the
# largest parameter, buffer or optimizer state of the step, times this.
F64_NOISE = 1e-3
# tpu's float32 error may be this many times CPU float32's (both relative to
# float64), plus a few ulp for a CPU whose own error is 0 by chance.
F32_FACTOR = 4.0
F32_FLOOR = 8 * torch.finfo(torch.float32).eps
# A flipped tie moves one summand of a reduction over thousands: 2% of a
# gradient's norm leaves room for several flips in one tensor and catches a
# kernel that is wrong anywhere but in a handful of elements.
FLIP_ALLOWANCE = 2e-2
# Rounding noise of a gradient that is 0 in exact arithmetic: about
# eps32 * sqrt(terms summed) of the gradients around it, 1e-5 or less.
NOISE_FLOOR = 1e-4
# Optimizer state keys in _state's names.
_OPT_STATE = (".momentum_buffer", ".exp_avg", ".exp_avg_sq", ".max_exp_avg_sq")


@dataclass
class Report:
    steps: int
    problems: list[str] = field(default_factory=list)
    f32_loss_error: tuple[float, float] = (0.0, 0.0)  # (tpu, cpu), relative to float64
    worst_update_error: tuple[str, float] = ("", 0.0)  # tensor, error / allowed error
    worst_f64: float = 0.0  # largest float64 difference, as a fraction of its tolerance
    free_losses: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        tpu, cpu = self.f32_loss_error
        name, upd = self.worst_update_error
        lines = [f"{self.steps} steps; float64 step: worst difference {self.worst_f64:.2g} of its tolerance; "
                 f"float32 loss error vs float64: tpu {tpu:.2e}, cpu {cpu:.2e}; "
                 f"worst float32 gradient error: {upd:.2g} of its allowance ({name})",
                 "free tpu run losses: " + " ".join(f"{x:.4f}" for x in self.free_losses)]
        return "\n".join(lines + self.problems)


def _cast(batch, dtype, device):
    return tuple((t.to(dtype) if t.is_floating_point() else t).to(device) for t in batch)


def _one_step(example, model, opt, batch, device, dtype):
    """One training step on a copy of (model, opt) moved to device and dtype:
    its loss, its new state, and its gradients."""
    m = copy.deepcopy(model).to(device=device, dtype=dtype)
    o = example.optimizer(m)
    o.load_state_dict(copy.deepcopy(opt.state_dict()))
    loss = example.train_step(m, o, *_cast(batch, dtype, device))
    return loss, _state(m, o), _grads(m)


def _f64(t: torch.Tensor) -> torch.Tensor:
    # A copy: the reference model's own tensors change in place at its next step.
    return t.detach().to("cpu", torch.float64 if t.is_floating_point() else t.dtype, copy=True)


def _state(model, opt) -> dict[str, torch.Tensor]:
    """Parameters, buffers and floating optimizer state (momentum, moments)."""
    out = dict(model.state_dict())
    names = {id(p): n for n, p in model.named_parameters()}
    for p, s in opt.state.items():
        for k, v in s.items():
            if torch.is_tensor(v) and v.is_floating_point() and v.dim() > 0:
                out[f"{names[id(p)]}.{k}"] = v
    return {k: _f64(v) for k, v in out.items()}


def _kind(key: str) -> str:
    """Optimizer state (by its suffix), or model state."""
    return next((suffix for suffix in _OPT_STATE if key.endswith(suffix)), "model")


def _kind_scales(state) -> dict[str, float]:
    scales: dict[str, float] = {}
    for k, v in state.items():
        if v.is_floating_point() and v.numel():
            scales[_kind(k)] = max(scales.get(_kind(k), 0.0), float(v.abs().max()))
    return scales


def _grads(model) -> dict[str, torch.Tensor]:
    return {f"{n}.grad": _f64(p.grad) for n, p in model.named_parameters() if p.grad is not None}


def _linear(state, grads, before) -> dict[str, torch.Tensor]:
    """What a step computes linearly from the batch: the gradients (after any
    clipping) and the floating buffers' changes (running statistics).
    Adam's update divides by a gradient's magnitude, which turns the
    rounding noise of a gradient that is 0 in exact arithmetic (the key
    bias under softmax, a bias batch norm cancels) into a full-size random
    step; the float64 check covers that division pointwise."""
    out = dict(grads)
    for k, v in before.items():
        if v.is_floating_point() and f"{k}.grad" not in grads and not k.endswith(_OPT_STATE):
            out[f"{k}.change"] = state[k] - v
    return out


def _check_linear(report, t, tpu, cpu, want):
    """Check 3: each tensor's float32 error, normwise, within a multiple of
    CPU float32's, plus FLIP_ALLOWANCE of its own norm, plus NOISE_FLOOR of
    the step's typical tensor of its size (a tensor that is 0 in exact
    arithmetic is rounding noise on both devices)."""
    total = sum(float(w.norm()) ** 2 for w in want.values()) ** 0.5
    count = sum(w.numel() for w in want.values())
    for k, w in want.items():
        e_tpu = float((tpu[k] - w).norm())
        e_cpu = float((cpu[k] - w).norm())
        allowed = (F32_FACTOR * e_cpu + FLIP_ALLOWANCE * float(w.norm())
                   + NOISE_FLOOR * total * (w.numel() / count) ** 0.5)
        if e_tpu / allowed > report.worst_update_error[1]:
            report.worst_update_error = (f"step {t} {k}", e_tpu / allowed)
        if e_tpu > allowed:
            report.problems.append(f"step {t}: float32 {k} error {e_tpu:.2e} "
                                   f"(cpu {e_cpu:.2e}, norm {float(w.norm()):.2e})")


def compare(example, steps: int, device: str = "tpu", seed: int = 0) -> Report:
    torch.manual_seed(seed)
    model = example.model().double()
    opt = example.optimizer(model)
    report = Report(steps)
    f64_rtol = getattr(example, "f64_rtol", None) or F64_RTOL
    loss_err = {"tpu": 0.0, "cpu": 0.0}
    for t, batch in enumerate(example.batches(steps)):
        before = _state(model, opt)
        tpu64, tpu64_state, _ = _one_step(example, model, opt, batch, device, torch.float64)
        tpu32, tpu32_state, tpu32_grads = _one_step(example, model, opt, batch, device, torch.float32)
        cpu32, cpu32_state, cpu32_grads = _one_step(example, model, opt, batch, "cpu", torch.float32)
        loss = example.train_step(model, opt, *_cast(batch, torch.float64, "cpu"))
        after = _state(model, opt)

        # 1. float64, pointwise.
        if not math.isclose(tpu64, loss, rel_tol=f64_rtol):
            report.problems.append(f"step {t}: float64 loss tpu {tpu64!r} cpu {loss!r}")
        scale = _kind_scales(after)
        for k, want in after.items():
            got = tpu64_state[k]
            if not want.is_floating_point():
                ok = torch.equal(got, want)
                diff = float("nan")
            else:
                tol = f64_rtol * max(float(want.abs().max()), F64_NOISE * scale[_kind(k)])
                diff = float((got - want).abs().max())
                report.worst_f64 = max(report.worst_f64, diff / tol)
                ok = diff <= tol
            if not ok:
                report.problems.append(f"step {t}: float64 {k} differs by {diff:.3e}")

        # 2. float32 losses against float64.
        loss_err["tpu"] = max(loss_err["tpu"], abs(tpu32 - loss) / abs(loss))
        loss_err["cpu"] = max(loss_err["cpu"], abs(cpu32 - loss) / abs(loss))

        # 3. float32 gradients and statistics against float64's, normwise.
        _check_linear(report, t, _linear(tpu32_state, tpu32_grads, before),
                      _linear(cpu32_state, cpu32_grads, before),
                      _linear(after, _grads(model), before))

    report.f32_loss_error = (loss_err["tpu"], loss_err["cpu"])
    if loss_err["tpu"] > F32_FACTOR * loss_err["cpu"] + F32_FLOOR:
        report.problems.append(f"float32 loss error {loss_err['tpu']:.2e} vs cpu {loss_err['cpu']:.2e}")

    # 4. The free float32 run on tpu learns.
    torch.manual_seed(seed)
    free = example.model().to(device)
    opt = example.optimizer(free)
    report.free_losses = [example.train_step(free, opt, *_cast(b, torch.float32, device))
                          for b in example.batches(steps)]
    if steps >= 10 and not min(report.free_losses[-5:]) < report.free_losses[0] - 0.5:
        report.problems.append("the free tpu run does not learn")
    return report


def main(example, argv=None) -> int:
    """The examples' command line: compare tpu with CPU for --steps steps and
    list any host fallback (by default a fallback raises)."""
    import argparse

    import torch_tpu

    p = argparse.ArgumentParser(description=example.__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--allow-fallback", action="store_true")
    args = p.parse_args(argv)
    if args.allow_fallback:
        torch_tpu.set_fallback_policy("allow")
    torch_tpu.reset_stats()
    report = compare(example, args.steps)
    print(report.text())
    routes: dict[str, int] = {}
    for r in torch_tpu.stats()["ops"].values():
        for route, n in r.items():
            routes[route] = routes.get(route, 0) + n
    print("op calls by route:", routes)
    fallbacks = torch_tpu.telemetry.fallback_calls()
    for op, n in sorted(fallbacks.items()):
        print(f"host fallback: {op}: {n}")
    return 0 if report.ok and not fallbacks else 1
