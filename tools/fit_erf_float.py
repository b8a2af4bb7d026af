"""Fits the float erf polynomials of csrc/kernels/common/vec_math.h (least squares on
Chebyshev nodes, close to minimax) and prints them with their float32 Horner
error. Run: python tools/fit_erf_float.py (numpy only)."""

import math

import numpy as np

erf = np.vectorize(math.erf)


def fit(f, a, b, deg, xform, rel, n=4000):
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    x = (a + b) / 2 + (b - a) / 2 * t
    y = f(x)
    w = 1 / np.abs(y) if rel else np.ones_like(y)
    c, *_ = np.linalg.lstsq(np.vander(xform(x), deg + 1, increasing=True) * w[:, None], y * w, rcond=None)
    c = c.astype(np.float32)
    xs = np.linspace(a, b, 200001)
    ys, us = f(xs), xform(xs).astype(np.float32)
    acc = np.full_like(us, c[-1])
    for k in range(deg - 1, -1, -1):
        acc = (acc * us + c[k]).astype(np.float32)
    err = np.abs(acc - ys) / (np.abs(ys) if rel else 1)
    return c, err.max()


def erf_over_x(x):
    return np.where(x == 0, 2 / math.sqrt(math.pi), erf(x) / np.where(x == 0, 1, x))


# |x| < 1: erf(x) = x * P(x^2); 1 <= |x| < 4: erf(|x|) = Q(|x| - 2.5); beyond: 1.
small, e_small = fit(erf_over_x, 0, 1, 6, lambda x: x * x, rel=True)
big, e_big = fit(erf, 1, 4, 12, lambda x: x - 2.5, rel=False)
print(f"// small (relative error {e_small:.3g}):", ", ".join(f"{v:.9g}f" for v in small))
print(f"// big (absolute error {e_big:.3g}):", ", ".join(f"{v:.9g}f" for v in big))
