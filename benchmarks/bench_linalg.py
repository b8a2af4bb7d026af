"""Batched solvers on the device LAPACK (scipy-openblas32, one matrix per
task spread over the device's cores) against CPU eager (torch's bundled
MKL LAPACK) in the same process: solve, cholesky, qr, svd, eigh, and the
general-matrix ones (eig, lstsq, cholesky_solve, ldl_factor, matrix_exp),
float32, at n = 64 (a batch of 64) and n = 512 (a batch of 4).
ratio = tpu time / CPU time (target: <= 2). Functional calls, so both sides
allocate their outputs; the errors check (info) syncs on both sides as
torch.linalg does."""

from __future__ import annotations

import torch

import torch_tpu  # noqa: F401
from common import compare, print_table, save

SIZES = ((64, 64), (512, 4))  # (n, batch)


def run(sizes=SIZES) -> list:
    g = torch.Generator().manual_seed(0)
    rows = []
    for n, batch in sizes:
        a = torch.randn(batch, n, n, generator=g)
        spd = a @ a.mT + n * torch.eye(n)
        b = torch.randn(batch, n, 8, generator=g)
        cases = [
            ("solve", torch.linalg.solve, (a, b)),
            ("cholesky", torch.linalg.cholesky, (spd,)),
            ("qr", torch.linalg.qr, (a,)),
            ("svd", lambda x: torch.linalg.svd(x, full_matrices=False), (a,)),
            ("eigh", torch.linalg.eigh, (spd,)),
            ("eig", torch.linalg.eig, (a,)),
            ("lstsq", lambda x, y: torch.linalg.lstsq(x, y).solution, (a, b)),
            ("cholesky_solve", torch.cholesky_solve, (b, torch.linalg.cholesky(spd))),
            ("ldl_factor", torch.linalg.ldl_factor, (spd,)),
            ("matrix_exp", torch.linalg.matrix_exp, (a / n ** 0.5,)),
        ]
        for name, fn, args in cases:
            dev = tuple(t.to("tpu") for t in args)
            t_tpu, t_cpu = compare(lambda: fn(*dev), lambda: fn(*args), repeat=3)
            rows.append({"op (float32)": name, "shape": f"{batch}x{n}x{n}", "tpu ms": t_tpu * 1e3,
                         "cpu ms": t_cpu * 1e3, "ratio": t_tpu / t_cpu})
    return rows


if __name__ == "__main__":
    rows = run()
    print_table("Batched linear algebra, float32 (ratio = tpu / cpu; target <= 2)", rows)
    save("linalg", rows)
