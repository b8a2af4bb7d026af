"""Differential fuzzing: random programs of tensor ops run on tpu and on CPU
eager, compared after every step.

A program is data (JSON): input specs and a list of steps. Each step names an
op from OPS, the state slots it reads, and its constant arguments; its result
becomes a new slot (in-place and out= steps change a slot instead). Inputs
cover empty and non-contiguous tensors, broadcasting shapes and a mix of
dtypes; steps cover views (whose in-place updates must reach their base),
in-place ops, out= and type promotion.

Checks per step: where CPU raises, tpu raises the same exception type (after
a sync: device errors arrive there); otherwise every live slot matches CPU in
shape, dtype and values (exact for integers and bool).

Values start as multiples of 1/4 in [-4, 4], exact in every float type. Ops
whose result jumps on a tiny change (floor, comparisons, argmax, sort, sin of a
large argument) read only "exact" slots, those computed from inputs by exact
ops, so rounding
differences between two correct implementations cannot fail a program.

    python tests/fuzz_programs.py --programs 20000 [--seed N]   # fuzz; saves shrunk failures
    python tests/fuzz_programs.py --replay tests/fuzz_regressions/<name>.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time

import torch

from cuda_dtype_reference import abs_on_cpu_as_cuda

REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_regressions")
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "uint8", "bool"]
LOW_PRECISION = ("float16", "bfloat16")

# name -> (arity, kind, exact, make_args(rng) -> dict of constants)
# kind: "new" (a new slot), "inplace" (changes slot 0), "view" (a new slot
# aliasing slot 0), "out" (writes slot 0 via out=, reading the others).
def _dim(rng):
    return {"dim": rng.randint(-3, 2)}


OPS = {
    "neg": (1, "new", True, None), "abs": (1, "new", True, None), "relu": (1, "new", True, None),
    "sign": (1, "new", True, None), "floor": (1, "new", True, None),
    "exp": (1, "new", False, None), "sin": (1, "new", False, None), "tanh": (1, "new", False, None),
    "sigmoid": (1, "new", False, None), "sqrt_abs": (1, "new", False, None),
    "add": (2, "new", True, None), "sub": (2, "new", True, None), "mul": (2, "new", True, None),
    "div": (2, "new", False, None), "maximum": (2, "new", True, None), "minimum": (2, "new", True, None),
    "floor_divide": (2, "new", True, None), "remainder": (2, "new", True, None),
    "eq": (2, "new", True, None), "lt": (2, "new", True, None), "where": (3, "new", True, None),
    "add_scalar": (1, "new", True, lambda r: {"value": r.choice([2, -1, 0.5, True])}),
    "sum": (1, "new", True, _dim), "mean": (1, "new", False, _dim), "amax": (1, "new", True, _dim),
    "argmax": (1, "new", True, _dim), "cumsum": (1, "new", True, _dim),
    "sort": (1, "new", True, _dim), "cast": (1, "new", True, lambda r: {"dtype": r.choice([d for d in DTYPES if d != "uint8"])}),  # float -> uint8 of negatives is undefined in torch
    "cat": (2, "new", True, _dim), "matmul": (2, "new", False, None),
    "clone_t": (1, "new", True, None), "contiguous": (1, "new", True, None),
    "t": (1, "view", True, None), "transpose": (1, "view", True, lambda r: {"d0": r.randint(-2, 1), "d1": r.randint(-2, 1)}),
    "narrow": (1, "view", True, lambda r: {"dim": r.randint(-2, 1), "start": r.randint(0, 2), "length": r.randint(0, 2)}),
    "unsqueeze": (1, "view", True, _dim), "select": (1, "view", True, lambda r: {"dim": r.randint(-2, 1), "index": r.randint(0, 2)}),
    "expand": (1, "view", True, lambda r: {"size": r.choice([[2, -1], [3, 1, -1], [-1]])}),
    "reshape": (1, "new", True, lambda r: {"size": r.choice([[-1], [2, -1], [-1, 1]])}),
    "diagonal": (1, "view", True, None),
    "add_": (2, "inplace", True, None), "mul_": (2, "inplace", True, None),
    "clamp_": (1, "inplace", True, lambda r: {"lo": r.choice([-1, 0, None]), "hi": r.choice([1, 2.5, None])}),
    "copy_": (2, "inplace", True, None), "zero_": (1, "inplace", True, None),
    "add_out": (3, "out", True, None), "mul_out": (3, "out", True, None),
    "index_select": (2, "new", True, lambda r: {"dim": r.randint(-2, 1)}),
}
# Ops whose result a rounding difference in their input changes by far more
# than a rounding: discontinuous ones (copy_ casts: float to an integer slot
# truncates) and sin, whose argument may be large (sin(exp(16)): one ulp of
# exp(16) in float32 is 1.0).
DISCONTINUOUS = {"floor", "sign", "eq", "lt", "argmax", "sort", "floor_divide", "remainder", "cast", "where",
                 "index_select", "copy_", "sin"}


# Known differences, skipped (each has an xfail program in fuzz_regressions/,
# with "xfail": why and "raises": the exception its replay raises):
# op -> (predicate on the CPU arguments, reason).
KNOWN = {}


def _undefined(kind: str, xs: list) -> bool:
    """An in-place or out= step whose destination shares memory with one of
    its inputs: CPU's result depends on its loop order (not checked when out=
    is resized), so there is nothing to compare."""
    if kind not in ("inplace", "out"):
        return False
    dest = xs[0].untyped_storage().data_ptr()
    return any(x.untyped_storage().data_ptr() == dest for x in xs[1:])


_UNARY = {"neg": torch.neg, "abs": abs_on_cpu_as_cuda, "relu": torch.relu, "sign": torch.sign, "floor": torch.floor,
          "exp": torch.exp, "sin": torch.sin, "tanh": torch.tanh, "sigmoid": torch.sigmoid}
_BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
           "minimum": torch.minimum, "floor_divide": torch.floor_divide, "remainder": torch.remainder,
           "eq": torch.eq, "lt": torch.lt, "matmul": torch.matmul}


def apply(name: str, xs: list, a: dict):
    """Runs one op; returns the result (or None for in-place/out, which change xs[0])."""
    x = xs[0]
    if name in _UNARY:
        return _UNARY[name](x)
    if name == "sqrt_abs":
        return torch.sqrt(abs_on_cpu_as_cuda(x))
    if name in _BINARY:
        return _BINARY[name](x, xs[1])
    if name == "where":
        return torch.where(xs[2].bool(), x, xs[1])
    if name == "add_scalar":
        return x + a["value"]
    if name in ("sum", "mean", "amax", "argmax", "cumsum"):
        return getattr(torch, name)(x, a["dim"])
    if name == "sort":
        return torch.sort(x, a["dim"], stable=True)[0]
    if name == "cast":
        return x.to(getattr(torch, a["dtype"]))
    if name == "cat":
        return torch.cat([x, xs[1]], a["dim"])
    if name == "clone_t":
        return x.t().clone() if x.dim() == 2 else x.clone()
    if name == "contiguous":
        return x.contiguous()
    if name == "t":
        return x.t()
    if name == "transpose":
        return x.transpose(a["d0"], a["d1"])
    if name == "narrow":
        return x.narrow(a["dim"], a["start"], a["length"])
    if name == "unsqueeze":
        return x.unsqueeze(a["dim"])
    if name == "select":
        return x.select(a["dim"], a["index"])
    if name == "expand":
        return x.expand(*a["size"])
    if name == "reshape":
        return x.reshape(*a["size"])
    if name == "diagonal":
        return x.diagonal()
    if name == "index_select":
        idx = xs[1].flatten().long().abs().remainder(max(1, x.shape[a["dim"]] if x.dim() else 1))
        return x.index_select(a["dim"], idx)
    if name == "add_":
        x.add_(xs[1])
    elif name == "mul_":
        x.mul_(xs[1])
    elif name == "clamp_":
        x.clamp_(a["lo"], a["hi"])
    elif name == "copy_":
        x.copy_(xs[1])
    elif name == "zero_":
        x.zero_()
    elif name == "add_out":
        torch.add(xs[1], xs[2], out=x)
    elif name == "mul_out":
        torch.mul(xs[1], xs[2], out=x)
    else:
        raise KeyError(name)
    return None


def make_input(spec: dict, device: str) -> torch.Tensor:
    """A tensor from its spec: shape, dtype, seed, and a layout (contiguous,
    transposed or strided), built on CPU and then moved with its layout."""
    g = torch.Generator().manual_seed(spec["seed"])
    dtype = getattr(torch, spec["dtype"])
    shape = spec["shape"]
    base_shape = list(shape)
    if spec["layout"] == "strided" and shape:
        base_shape[-1] *= 2
    vals = torch.randint(-16, 17, base_shape, generator=g).to(torch.float64) / 4
    if dtype == torch.bool:
        t = vals > 0
    elif dtype.is_floating_point:
        t = vals.to(dtype)
    else:
        t = (vals * 4).to(dtype) if dtype != torch.uint8 else (vals * 4).abs().to(dtype)
    if spec["layout"] == "strided" and shape:
        t = t[..., ::2]
    elif spec["layout"] == "transposed" and len(shape) >= 2:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    if device == "cpu":
        return t
    out = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=device)
    return out.copy_(t)


def random_program(seed: int, steps: int = 8) -> dict:
    rng = random.Random(seed)
    inputs = []
    for i in range(rng.randint(2, 4)):
        ndim = rng.choice([0, 1, 1, 2, 2, 2, 3])
        shape = [rng.choice([0, 1, 2, 3, 3, 4]) if rng.random() < 0.15 else rng.choice([1, 2, 3, 4])
                 for _ in range(ndim)]
        inputs.append({"shape": shape, "dtype": rng.choice(DTYPES[:6] + ["float32"] * 3 + ["bool"]),
                       "layout": rng.choice(["contiguous", "contiguous", "transposed", "strided"]),
                       "seed": rng.randrange(1 << 30)})
    exact = [True] * len(inputs)
    prog = []
    for _ in range(steps):
        name = rng.choice(sorted(OPS))
        arity, kind, op_exact, make_args = OPS[name]
        pool = [i for i in range(len(exact)) if exact[i]] if name in DISCONTINUOUS else list(range(len(exact)))
        if not pool:
            continue
        args = [rng.choice(pool) for _ in range(arity)]
        prog.append({"op": name, "args": args, "const": make_args(rng) if make_args else {}})
        if kind in ("new", "view"):
            exact.append(op_exact and all(exact[j] for j in args))
        elif kind in ("inplace", "out"):
            exact[args[0]] = exact[args[0]] and op_exact and all(exact[j] for j in args)
    return {"seed": seed, "inputs": inputs, "steps": prog}


# Steps over all runs: compared (both computed; every live slot compared),
# both_raised (the same exception type on both), skipped (see _run).
STATS = {"compared": 0, "both_raised": 0, "skipped": 0}


def _float_tolerance(program: dict) -> dict:
    """Floats are compared at the precision of the least precise type the
    program computes in: a float64 slot can hold a float32 result (type
    promotion), and integers promote to float32 in div, mean, exp..."""
    dtypes = {s["dtype"] for s in program["inputs"]} | {st["const"]["dtype"] for st in program["steps"]
                                                       if st["op"] == "cast"}
    if dtypes & set(LOW_PRECISION):
        return {"rtol": 2e-2, "atol": 2e-2}
    if dtypes - {"float64"}:
        return {"rtol": 1e-4, "atol": 1e-5}
    return {"rtol": 1e-9, "atol": 1e-12}


def run(program: dict, device: str = "tpu", skip_known: bool = True) -> str | None:
    """Runs the program on CPU and on `device`; returns None when they agree,
    else a description of the first difference. Steps in KNOWN are skipped
    unless skip_known is False (saved programs replay them: their xfail)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # out= resize deprecations, on both devices alike
        return _run(program, device, skip_known)


def _run(program: dict, device: str, skip_known: bool) -> str | None:
    tolerance = _float_tolerance(program)
    cpu = [make_input(s, "cpu") for s in program["inputs"]]
    dev = [make_input(s, device) for s in program["inputs"]]
    for k, step in enumerate(program["steps"]):
        name, args, const = step["op"], step["args"], step["const"]
        where = f"step {k} {name}{args} {const}"
        known = KNOWN.get(name)
        # Skipped: a step reading a slot an earlier step failed to make (both
        # devices raised), an undefined one, or a known difference.
        if any(j >= len(cpu) or cpu[j] is None for j in args) or \
                _undefined(OPS[name][1], [cpu[j] for j in args]) or \
                (skip_known and known and known[0]([cpu[j] for j in args])):
            STATS["skipped"] += 1
            if OPS[name][1] in ("new", "view"):
                cpu.append(None)
                dev.append(None)
            continue
        try:
            want, cpu_err = apply(name, [cpu[j] for j in args], const), None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            want, cpu_err = None, e
        try:
            got = apply(name, [dev[j] for j in args], const)
            torch.tpu.synchronize()  # device errors (division by zero, indices) arrive here
            dev_err = None
        except Exception as e:  # noqa: BLE001
            got, dev_err = None, e
        if cpu_err is not None or dev_err is not None:
            if type(cpu_err) is not type(dev_err):
                return f"{where}: CPU raised {cpu_err!r}, tpu raised {dev_err!r}"
            STATS["both_raised"] += 1
            if OPS[name][1] in ("new", "view"):
                cpu.append(None)
                dev.append(None)
            continue
        STATS["compared"] += 1
        if OPS[name][1] in ("new", "view"):
            cpu.append(want)
            dev.append(got)
        for j, (c, d) in enumerate(zip(cpu, dev)):
            if c is None:
                continue
            if c.shape != d.shape or c.dtype != d.dtype:
                return f"{where}: slot {j} is {tuple(d.shape)} {d.dtype} on tpu, {tuple(c.shape)} {c.dtype} on CPU"
            try:
                exact = not (c.dtype.is_floating_point or c.dtype.is_complex)
                torch.testing.assert_close(d.cpu(), c, equal_nan=True, check_stride=False,
                                           **({"rtol": 0, "atol": 0} if exact else tolerance))
            except AssertionError as e:
                return f"{where}: slot {j} differs: {str(e).splitlines()[0:4]}"
    return None


def shrink(program: dict, failure: str) -> dict:
    """Removes steps while the program still fails (any difference counts):
    one step at a time, from the end, until no single removal keeps it failing."""
    prog = json.loads(json.dumps(program))
    changed = True
    while changed:
        changed = False
        for k in reversed(range(len(prog["steps"]))):
            trial = dict(prog, steps=prog["steps"][:k] + prog["steps"][k + 1:])
            trial = _renumber(prog, k, trial)
            if trial is not None and run(trial) is not None:
                prog, changed = trial, True
    return prog


def _renumber(prog: dict, k: int, trial: dict):
    """Slots after the removed step's result shift down by one; a later step
    reading that result makes the removal impossible (None)."""
    n_in = len(prog["inputs"])
    kind = OPS[prog["steps"][k]["op"]][1]
    if kind not in ("new", "view"):
        return trial
    slot = n_in + sum(1 for s in prog["steps"][:k] if OPS[s["op"]][1] in ("new", "view"))
    steps = []
    for s in trial["steps"]:
        if slot in s["args"]:
            return None
        steps.append(dict(s, args=[a - 1 if a > slot else a for a in s["args"]]))
    return dict(trial, steps=steps)


def save_regression(program: dict, failure: str) -> str:
    body = json.dumps(program, sort_keys=True)
    name = "seed%d_%s.json" % (program["seed"], hashlib.sha1(body.encode()).hexdigest()[:8])
    os.makedirs(REGRESSIONS, exist_ok=True)
    path = os.path.join(REGRESSIONS, name)
    with open(path, "w") as f:
        json.dump(dict(program, found=failure), f, indent=1, sort_keys=True)
        f.write("\n")
    return path


def fuzz(count: int, first_seed: int, save: bool = True) -> dict:
    """Runs `count` programs, seeds first_seed on. Returns counts and the
    shrunk failures found."""
    seed = first_seed
    programs = steps = 0
    before = dict(STATS)
    failures = []
    while programs < count:
        prog = random_program(seed)
        failure = run(prog)
        programs += 1
        steps += len(prog["steps"])
        if failure is not None:
            small = shrink(prog, failure)
            found = run(small) or failure
            failures.append({"seed": seed, "failure": found,
                             "saved": save_regression(small, found) if save else None})
        seed += 1
    steps_by_outcome = {k: STATS[k] - before[k] for k in STATS}
    return {"programs": programs, "steps": steps, "outcomes": steps_by_outcome, "seeds": [first_seed, seed - 1],
            "failures": failures}


def main():
    import torch_tpu  # noqa: F401

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--programs", type=int, default=20000)
    p.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    p.add_argument("--replay")
    a = p.parse_args()
    if a.replay:
        with open(a.replay) as f:
            print(run(json.load(f), skip_known=False) or "agrees with CPU")
        return
    report = fuzz(a.programs, a.seed)
    print(json.dumps(report, indent=1))
    sys.exit(1 if report["failures"] else 0)


if __name__ == "__main__":
    main()
