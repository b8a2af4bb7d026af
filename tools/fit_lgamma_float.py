"""Fits the float lgamma polynomial of csrc/kernels/common/vec_math.h:
lgamma(2 + d) = d P(d) for |d| <= 1/2 (least squares on Chebyshev nodes,
relative, close to minimax), and prints it with its float32 Horner error.
Run: python tools/fit_lgamma_float.py (numpy only)."""

import math

import numpy as np

DEG = 9


def target(d):
    return np.array([math.lgamma(2 + v) / v for v in d])


n = 4000
d = 0.5 * np.cos(np.pi * (np.arange(n) + 0.5) / n)  # never 0
y = target(d)
w = 1 / np.abs(y)
c, *_ = np.linalg.lstsq(np.vander(d, DEG + 1, increasing=True) * w[:, None], y * w, rcond=None)
c = c.astype(np.float32)

ds = np.linspace(-0.5, 0.5, 200000)  # even count: 0 is not among them
acc = np.full(ds.shape, c[-1], dtype=np.float32)
for k in range(DEG - 1, -1, -1):
    acc = (acc * ds.astype(np.float32) + c[k]).astype(np.float32)
err = np.abs(acc - target(ds)) / np.abs(target(ds))
print(f"// P, highest degree first (relative error {err.max():.3g}):")
print(", ".join(f"{v:.9g}f" for v in c[::-1]))
