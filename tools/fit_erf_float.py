"""Fits the float erf and erfc polynomials of csrc/kernels/common/vec_math.h
(least squares on Chebyshev nodes, close to minimax) and prints them with
their float32 Horner error. Run: python tools/fit_erf_float.py (numpy only)."""

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


# erfc(x) = t e^(-x^2 + g(t)) for x >= 0, t = 1 / (1 + x/2) in [1/6.05, 1]
# (x up to 10.1, past which erfc underflows float): g(t) = ln(erfcx(x) / t),
# by Horner in s = t - 0.58 (centred: float rounding stays ~1e-7). Its
# absolute error is erfc's relative error.
def erfc_exponent(t):
    x = (1 / t - 1) * 2
    return np.log(np.vectorize(math.erfc)(x) / t) + x * x


T_LO, SHIFT, DEG = 1 / 6.05, 0.58, 10
n = 4000
t = (T_LO + 1) / 2 + (1 - T_LO) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
g, *_ = np.linalg.lstsq(np.vander(t - SHIFT, DEG + 1, increasing=True), erfc_exponent(t), rcond=None)
g = g.astype(np.float32)
ts = np.linspace(T_LO, 1, 200001)
s = (ts.astype(np.float32) - np.float32(SHIFT)).astype(np.float32)
acc = np.full(s.shape, g[-1], dtype=np.float32)
for k in range(DEG - 1, -1, -1):
    acc = (acc * s + g[k]).astype(np.float32)
e_erfc = np.abs(acc - erfc_exponent(ts)).max()
print(f"// erfc exponent, highest degree first (absolute error {e_erfc:.3g}):",
      ", ".join(f"{v:.9g}f" for v in g[::-1]))
