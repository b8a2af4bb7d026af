"""The optimization problem the optimizer tests share (tests/test_optim_db.py,
tests/test_device_generic_modules.py): seeded parameters and per-step
gradients, made on CPU, and a quadratic loss for the optimizers that step
with a closure (LBFGS)."""

from __future__ import annotations

import torch


def shapes(info):
    # Muon takes 2-D parameters only; everyone else gets a matrix and a vector
    return [(6, 5), (5, 3)] if info.name == "Muon" else [(6, 5), (5,)]


def _randn(shape, dtype, g):
    return torch.randn(shape, generator=g, dtype=dtype)


def make_params(info, dtype):
    g = torch.Generator().manual_seed(0)
    return [_randn(s, dtype, g) for s in shapes(info)]


def grads(info, dtype, step):
    g = torch.Generator().manual_seed(100 + step)
    if info.only_supports_sparse_grads:
        return [_randn(s, dtype, g).to_sparse() for s in shapes(info)]
    return [_randn(s, dtype, g) for s in shapes(info)]


def loss(params):
    """A quadratic with a different curvature per element (closure optimizers)."""
    total = 0
    for k, p in enumerate(params):
        r = torch.view_as_real(p) if p.is_complex() else p
        w = torch.linspace(0.5, 2.0, r.numel(), dtype=r.dtype, device=r.device).reshape(r.shape)
        total = total + (w * (r - 0.1 * (k + 1)) ** 2).sum()
    return total


def step(info, opt, params, dtype, index):
    """Step `index`: with a closure over loss() for the optimizers that need
    one, else with that step's gradients, moved to the parameters' device."""
    if info.step_requires_closure:
        def closure():
            opt.zero_grad()
            value = loss(params)
            value.backward()
            return value
        opt.step(closure)
    else:
        for p, g in zip(params, grads(info, dtype, index)):
            p.grad = g.to(p.device)
        opt.step()
