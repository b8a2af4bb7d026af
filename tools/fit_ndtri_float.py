"""Fits the deep-tail polynomial of the float ndtri of
csrc/kernels/common/vec_math.h: for q = min(p, 1 - p) below 1e-7 (past the
range of Giles' erfinv fit), Phi^-1(q) = r P(1/r) with r = sqrt(-ln q), down
to float's smallest subnormal (least squares on Chebyshev nodes, P in
s = 1/r - S_MID), and prints it with its float32 Horner error.
Run: python tools/fit_ndtri_float.py (numpy and the standard library only)."""

import math
from statistics import NormalDist

import numpy as np

INV = NormalDist().inv_cdf
DEG = 6
S_LO, S_HI = 1 / math.sqrt(-math.log(1e-45)) - 0.002, 1 / math.sqrt(-math.log(1.2e-7))
S_MID = 0.17


def target(s):  # Phi^-1(e^(-1/s^2)) s
    return np.array([INV(math.exp(-1 / (v * v))) * v for v in s])


n = 2000
s = (S_LO + S_HI) / 2 + (S_HI - S_LO) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
c, *_ = np.linalg.lstsq(np.vander(s - S_MID, DEG + 1, increasing=True), target(s), rcond=None)
c = c.astype(np.float32)
ss = np.linspace(S_LO, S_HI, 20001)
u = (ss.astype(np.float32) - np.float32(S_MID)).astype(np.float32)
acc = np.full(u.shape, c[-1], dtype=np.float32)
for k in range(DEG - 1, -1, -1):
    acc = (acc * u + c[k]).astype(np.float32)
err = np.abs((acc - target(ss)) / target(ss)).max()
print(f"// s in [{S_LO:.4f}, {S_HI:.4f}], P in s - {S_MID}, highest degree first (relative error {err:.3g}):")
print(", ".join(f"{v:.9g}f" for v in c[::-1]))
