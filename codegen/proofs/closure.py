"""Composite closure proof: is every aten overload that a `route: composite`
entry reaches on tpu covered by the manifest?

How an op is traced (docs/pytorch-2.13-facts.md, "Composite closure"):
OpInfo sample inputs are generated on CPU, checked to run there (a sample that
fails on CPU does not apply to the overload), moved to tpu and turned into fake
tpu tensors (FakeTensorMode().from_tensor). The overload itself is then called
on them under a recording TorchDispatchMode, which sits below Autograd:

- a CompositeImplicitAutograd op has already decomposed when the mode sees it,
  so the mode records what it decomposes into;
- an op that the manifest does not register but that has a composite kernel
  (CompositeExplicitAutograd, ...NonFunctional, or an Implicit one reached
  below Autograd) runs that kernel on tpu: the mode runs the same kernel
  (`op._op_dk(key, ...)`) and records what its body calls, recursively;
- an op the manifest registers is recorded and not looked into.

Paths depend on the device, shapes and arguments, hence fake *tpu* tensors and
the union over the samples of a few dtypes.

Every traced overload must then be covered:
  direct / stub / fallback   registered by an entry (Entry.variants)
  composite body             unregistered, its composite kernel's body was traced
                             (and is itself checked); "no dispatcher calls" means
                             a view or metadata op (t, transpose.int, _unsafe_view...)
  exempt                     EXEMPT below: not an aten op, needs no kernel
  proven composite           the op of another composite entry that is proven
Anything else is uncovered. A proof needs at least one traced sample ("no
samples" otherwise) and no sample whose trace failed on tpu while it ran on CPU.

Samples: sample_inputs first, reference_inputs when none applies (the Scalar
overloads); a sample must hold a tensor or be a factory call, whose device
becomes tpu; a ShapeEnv lets data-dependent ops (nonzero, item) go on with
unbacked sizes. At most MAX_SAMPLES per OpInfo and dtype.

Limits: a proof covers the paths the samples take. Fake tensors carry the
Python key, so some bodies take a slightly different path (a view built by
alias_with_sizes_and_strides calls as_strided on them): the fake trace may
name more ops than the device needs, not fewer as far as we know. A composite
body that read data through a raw pointer instead of the dispatcher would get
a null pointer from a fake tensor; such a crash kills the tracer process and
the op is reported as not proven ("the tracer process died").

Tracing needs the built extension (real tpu tensors); it runs in a subprocess
(`python -m codegen.proofs.closure --worker`) unless torch_tpu is already loaded in
this process. Results are cached under build/codegen_cache/ per op, keyed by the
overloads the manifest registers, the torch version and this file.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..errors import BuildError
from ..facts import upstream
from ..facts.opinfo_db import all_opinfos
from .. import json_cache, paths
from ..model.manifest import Route

ROOT = paths.ROOT
CACHE_DIR = os.path.join(ROOT, "build", "codegen_cache")
_KEEP_CACHE_FILES = 8

# Traced overloads that need no kernel, each with the reason. Keep this list
# explicit and short: an entry here is a claim about the real device.
EXEMPT = {
    "prim::device": "TorchScript primitive returning the tensor's device (metadata, no kernel)",
}

# Dtypes traced when neither the entry nor its OpInfo says otherwise.
DEFAULT_DTYPES = ("float32", "int64")
MAX_SAMPLES = 24          # per OpInfo and dtype: bounds the time, keeps it deterministic
_MAX_ERRORS = 3

_NAMESPACES = ("nn.functional.", "special.", "linalg.", "fft.")

STATUS_PROVEN = "proven"
STATUS_NOT_PROVEN = "not proven"
STATUS_NO_SAMPLES = "no samples"


class ProofUnavailable(BuildError):
    """Tracing could not run at all (the extension is not built, ...). A
    BuildError, so the CLI reports it as one line, like a failed build."""


@dataclass(frozen=True)
class Proof:
    op: str                              # "linear", "fill.Scalar"
    status: str                          # proven / not proven / no samples
    traced: Tuple[Tuple[str, str], ...]  # (overload, how it is covered or why not), sorted
    uncovered: Tuple[str, ...]           # overloads without coverage, sorted
    fallback: Tuple[str, ...]            # covered only by the host fallback
    samples: int                         # samples traced
    failed: int                          # samples that ran on CPU but failed to trace on tpu
    opinfos: Tuple[str, ...]
    dtypes: Tuple[str, ...]
    errors: Tuple[str, ...] = ()         # first trace errors

    @property
    def proven(self) -> bool:
        return self.status == STATUS_PROVEN

    def summary(self) -> str:
        """One line for tables and messages."""
        if self.status == STATUS_NO_SAMPLES:
            why = "no OpInfo named like the op" if not self.opinfos else \
                f"no sample of {', '.join(self.opinfos)} applies to the overload"
            return f"no samples ({why}; set tests.opinfo)"
        if self.proven:
            text = f"proven ({self.samples} samples)"
            if self.fallback:
                text += "; host fallback: " + ", ".join(self.fallback)
            return text
        parts = []
        if self.uncovered:
            parts.append("uncovered: " + ", ".join(self.uncovered))
        if self.failed:
            parts.append(f"trace failed on {self.failed} of {self.samples + self.failed} samples"
                         + (f" ({self.errors[0]})" if self.errors else ""))
        return "not proven: " + "; ".join(parts)


# --------------------------------------------------------------------------
# Public entry point


def prove(entries, extra_ops: Iterable[str] = (), cache_dir: Optional[str] = CACHE_DIR,
          in_process: Optional[bool] = None) -> Dict[str, Proof]:
    """Proofs for every `route: composite` entry (and for extra_ops: overloads
    without an entry, e.g. core ops that may work through their composite
    kernel today), keyed by op name. Raises ProofUnavailable if nothing could
    be traced because the tracer itself cannot run."""
    registered = _registered(entries)
    targets = _targets(entries, extra_ops, registered)
    if not targets:
        return {}
    # One cache file per manifest registration set (and torch, and this
    # file); in it, one trace per op, so `check` (composite entries) and
    # `coverage` (those plus core ops without an entry) share their traces.
    key = _cache_key(registered)
    cached = _cache_read(cache_dir, key)
    pending = [t for t in targets if cached.get(t["op"], {}).get("target") != t]
    if pending:
        request = {"registered": sorted(registered), "targets": pending}
        if in_process is None:
            in_process = "torch_tpu" in sys.modules
        traced = _trace_in_process(request) if in_process else _trace_in_subprocess(request)
        for t in pending:
            cached[t["op"]] = {"target": t, "raw": traced[t["op"]]}
        _cache_write(cache_dir, key, cached)
    return resolve({t["op"]: cached[t["op"]]["raw"] for t in targets}, registered)


def problems(entries, root: str = ROOT, manifest_path: str = "ops.yaml") -> List[str]:
    """Messages for `python -m codegen check`: one per composite entry that is
    not proven (uncovered overloads, failed traces, or no samples at all)."""
    if not any(e.route == Route.COMPOSITE for e in entries):
        return []
    try:
        proofs = prove(entries, cache_dir=os.path.join(root, "build", "codegen_cache"))
    except ProofUnavailable as e:
        return [f"composite closures cannot be proven: {e}"]
    out = []
    for e in sorted(entries, key=lambda e: e.op):
        p = proofs.get(e.op)
        if e.route != Route.COMPOSITE or p is None or p.proven:
            continue
        where = f"{manifest_path}:{e.line}: " if e.line else f"{manifest_path}: "
        if p.status == STATUS_NO_SAMPLES:
            fix = "name OpInfos whose samples call this overload in the entry's tests.opinfo"
        elif p.uncovered:
            fix = "add entries that register the uncovered overloads"
        else:
            fix = "see the errors; an op whose trace fails on fake tensors needs a kernel"
        how = dict(p.traced)
        detail = "".join(f"\n    {u}: {how[u]}" for u in p.uncovered)
        out.append(f"{where}op '{e.op}' key 'route': composite closure {p.summary()}{detail}"
                   f"\n  fix: {fix}")
    return out


def resolve(raw: Dict[str, dict], registered: Dict[str, str]) -> Dict[str, Proof]:
    """Turns raw traces into proofs. A composite may rely on another proven
    composite: iterate to a fixed point (cycles stay unproven)."""
    proven: Set[str] = set()
    while True:
        proofs = {op: _proof(op, r, registered, proven) for op, r in sorted(raw.items())}
        now = {op for op, p in proofs.items() if p.proven}
        if now == proven:
            return proofs
        proven = now


def _proof(op: str, r: dict, registered: Dict[str, str], proven: Set[str]) -> Proof:
    traced, uncovered, fallback = [], [], []
    for name, info in sorted(r["ops"].items()):
        if name == op:
            continue  # the composite being proven
        how, ok = _coverage(name, info, registered, proven)
        traced.append((name, how))
        if not ok:
            uncovered.append(name)
        elif how == "fallback":
            fallback.append(name)
    if r["samples"] == 0 and r["failed"] == 0:
        status = STATUS_NO_SAMPLES
    elif uncovered or r["failed"]:
        status = STATUS_NOT_PROVEN
    else:
        status = STATUS_PROVEN
    return Proof(op=op, status=status, traced=tuple(traced), uncovered=tuple(uncovered),
                 fallback=tuple(fallback), samples=r["samples"], failed=r["failed"],
                 opinfos=tuple(r["opinfos"]), dtypes=tuple(r["dtypes"]),
                 errors=tuple(r["errors"]))


def _coverage(name: str, info: dict, registered: Dict[str, str],
              proven: Set[str]) -> Tuple[str, bool]:
    if name in registered:
        return registered[name], True
    if name in EXEMPT:
        return "exempt: " + EXEMPT[name], True
    if info.get("expanded") and not info.get("body_failed"):
        if info.get("body_calls"):
            return f"composite body ({info['expanded']})", True
        return f"composite body ({info['expanded']}), no dispatcher calls", True
    if name in proven:
        return "proven composite", True
    caller = f" (called by {info['parent']})" if info.get("parent") else ""
    if info.get("body_failed"):
        return f"its {info['expanded']} body failed on tpu{caller}: {info['body_failed']}", False
    return "no tpu kernel" + caller, False


def _registered(entries) -> Dict[str, str]:
    """overload -> route, for every overload an entry registers."""
    return {v.op: e.route for e in entries for v in e.variants}


def _targets(entries, extra_ops: Iterable[str], registered: Dict[str, str]) -> List[dict]:
    targets = {}
    for e in entries:
        if e.route == Route.COMPOSITE:
            targets[e.op] = {"op": e.op, "opinfo": sorted(e.tests.opinfo),
                             "dtypes": list(e.dtypes)}
    for op in extra_ops:
        if op not in targets and op not in registered:
            targets[op] = {"op": op, "opinfo": [], "dtypes": []}
    return [targets[k] for k in sorted(targets)]


# --------------------------------------------------------------------------
# Cache


def _cache_key(registered: Dict[str, str]) -> str:
    import torch

    with open(os.path.abspath(__file__), "rb") as f:
        code = hashlib.sha256(f.read()).hexdigest()
    blob = json.dumps({"torch": torch.__version__, "git": torch.version.git_version,
                       "code": code, "registered": sorted(registered.items())}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _cache_read(cache_dir: Optional[str], key: str) -> Dict[str, dict]:
    """op -> {"target": what was traced, "raw": the trace}."""
    if not cache_dir:
        return {}
    data = json_cache.read(os.path.join(cache_dir, f"closure-{key}.json"))
    return data if isinstance(data, dict) else {}


def _cache_write(cache_dir: Optional[str], key: str, raw: dict) -> None:
    if not cache_dir:
        return
    if not json_cache.write(os.path.join(cache_dir, f"closure-{key}.json"), raw):
        return
    try:
        files = sorted((os.path.join(cache_dir, n) for n in os.listdir(cache_dir)
                        if n.startswith("closure-") and n.endswith(".json")),
                       key=os.path.getmtime, reverse=True)
        for old in files[_KEEP_CACHE_FILES:]:
            os.remove(old)
    except OSError:
        pass  # a cache that cannot be written only costs time


# --------------------------------------------------------------------------
# Tracing (runs where torch_tpu is loaded)


def _trace_in_subprocess(request: dict) -> dict:
    """Runs the tracer in a fresh process that loads torch_tpu. The worker
    appends one JSON line per traced op; if it dies (a crash in some kernel's
    body), the op it was on is recorded as crashed and the rest is retried."""
    env = dict(os.environ)
    env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)  # the CLI turns it off for itself
    raw: Dict[str, dict] = {}
    pending = list(request["targets"])
    with tempfile.TemporaryDirectory() as tmp:
        while pending:
            req, out = os.path.join(tmp, "request.json"), os.path.join(tmp, "result.jsonl")
            with open(req, "w") as f:
                json.dump(dict(request, targets=pending), f)
            if os.path.exists(out):
                os.remove(out)
            proc = subprocess.run([sys.executable, "-m", "codegen.proofs.closure", "--worker", req, out],
                                  cwd=ROOT, env=env, capture_output=True, text=True)
            done, started = _read_lines(out)
            raw.update(done)
            pending = [t for t in pending if t["op"] not in done]
            if proc.returncode == 0 and not pending:
                break
            if proc.returncode == 0 or started is None or started in done:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
                raise ProofUnavailable(
                    f"the closure tracer failed (exit {proc.returncode}):\n{tail}")
            # The worker died while tracing `started` (a crash in some body).
            raw[started] = {"ops": {}, "samples": 0, "failed": 1, "opinfos": [], "dtypes": [],
                            "errors": [f"the tracer process died (exit {proc.returncode}) on it"]}
            pending = [t for t in pending if t["op"] != started]
    return raw


def _read_lines(path: str) -> Tuple[Dict[str, dict], Optional[str]]:
    """The results the worker wrote, and the op it started last."""
    done: Dict[str, dict] = {}
    started = None
    try:
        with open(path) as f:
            for line in f:
                try:
                    item = json.loads(line)
                except ValueError:
                    break  # a line cut short by the crash
                if "start" in item:
                    started = item["start"]
                else:
                    done[item["op"]] = item["result"]
    except OSError:
        pass
    return done, started


def _trace_in_process(request: dict) -> dict:
    return _Tracer(set(request["registered"])).run(request["targets"])


class _Tracer:
    def __init__(self, registered: Set[str]):
        try:
            import torch
            import torch_tpu  # noqa: F401  (real tpu tensors)
        except Exception as e:  # ImportError, or the extension's own build check
            raise ProofUnavailable(f"cannot load torch_tpu ({e}); run python -m codegen first")
        self.torch = torch
        self.registered = registered

        self.op_db = all_opinfos()

    # -- OpInfo selection
    def opinfos(self, op: str, hints: Sequence[str]):
        """The entry's tests.opinfo ("name" for all variants, "name.variant"),
        else the OpInfos whose name or aten_name is the op's name (as the
        generated tests choose them, codegen/testgen/op_tests.py), or whose name is
        nn.functional.<name> (special., linalg., fft.), or an alias of it."""

        up = upstream.lookup(op)
        names = set(hints) if hints else {op.split(".", 1)[0]} | ({up.base} if up else set())
        found = []
        for info in self.op_db:
            full = info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")
            if hints:  # "name.": only the OpInfo without a variant
                match = full in names or info.name in names or (
                    not info.variant_test_name and f"{info.name}." in names)
            else:  # also "nn.functional.embedding" for embedding, and aliases
                short = info.name.rsplit(".", 1)[-1] if info.name.startswith(_NAMESPACES) else ""
                aliases = {a.name for a in getattr(info, "aliases", ())}
                match = bool({info.name, info.aten_name, short} & names or aliases & names)
            if match:
                found.append((full, info))
        return sorted(found, key=lambda x: x[0])

    def dtypes_for(self, info, wanted: Sequence[str]):
        torch = self.torch
        supported = info.supported_dtypes("cpu")
        names = [d for d in (wanted or DEFAULT_DTYPES) if getattr(torch, d) in supported]
        if not names and supported:
            names = [sorted(str(d).replace("torch.", "") for d in supported)[0]]
        return names

    # -- tracing
    def run(self, targets: List[dict]) -> dict:
        """Leaves the process as it found it (warning filters, the CPU and
        Python/numpy random states): in-process callers are test suites."""
        import random
        import warnings

        py_state = random.getstate()
        try:
            import numpy

            np_state = numpy.random.get_state()
        except ImportError:
            numpy = np_state = None
        try:
            with warnings.catch_warnings(), self.torch.random.fork_rng(devices=[]):
                warnings.simplefilter("ignore")
                return {t["op"]: self.trace(t["op"], t["opinfo"], t["dtypes"])
                        for t in targets}
        finally:
            random.setstate(py_state)
            if numpy is not None:
                numpy.random.set_state(np_state)

    def overload(self, op: str):
        name, _, overload = op.partition(".")
        return getattr(getattr(self.torch.ops.aten, name), overload or "default")

    def trace(self, op: str, hints: Sequence[str], dtypes: Sequence[str]) -> dict:
        target = self.overload(op)
        rec = _recorder(self.registered)
        samples = failed = 0
        errors: List[str] = []
        used_infos, used_dtypes = [], set()
        for full, info in self.opinfos(op, hints):
            used_infos.append(full)
            for dt in self.dtypes_for(info, dtypes):
                # OpInfo's sample_inputs first; its (larger) reference_inputs
                # only when no sample applies, e.g. to the Scalar overloads.
                for source in (info.sample_inputs, info.reference_inputs):
                    applied = 0
                    for args, kwargs in self._applicable(target, source, dt):
                        applied += 1
                        used_dtypes.add(dt)
                        ok, error = self._trace_one(target, rec, args, kwargs)
                        samples += ok
                        failed += not ok
                        if error and error not in errors and len(errors) < _MAX_ERRORS:
                            errors.append(error)
                    if applied:
                        break
        return {"ops": {k: rec.ops[k] for k in sorted(rec.ops)}, "samples": samples,
                "failed": failed, "errors": errors, "opinfos": used_infos,
                "dtypes": sorted(used_dtypes)}

    def _applicable(self, target, source, dtype: str):
        """(args, kwargs) of up to MAX_SAMPLES samples that run on CPU."""
        import random

        torch = self.torch
        torch.random.default_generator.manual_seed(0)  # samples are made on CPU
        random.seed(0)
        try:
            import numpy

            numpy.random.seed(0)
        except ImportError:
            pass
        try:
            sample_list = list(source("cpu", getattr(torch, dtype)))
        except Exception:
            return
        applied = 0
        for s in sample_list:
            if applied == MAX_SAMPLES:
                return
            kwargs = {k: v for k, v in s.kwargs.items() if k != "requires_grad"}  # Python API only
            kwargs = _aten_kwargs(target, kwargs)
            args = (s.input, *s.args)
            if not _has_tensor((args, kwargs)) and "device" not in kwargs:
                continue  # nothing would be on tpu: not a tpu call
            if self._runs_on_cpu(target, args, kwargs):
                applied += 1
                yield args, kwargs

    def _trace_one(self, target, rec, args, kwargs) -> Tuple[bool, str]:
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        # A shape environment lets data-dependent ops (nonzero, item) produce
        # unbacked sizes instead of stopping the trace.
        mode = FakeTensorMode(shape_env=ShapeEnv())
        to_fake = lambda x: mode.from_tensor(x.detach().to("tpu"), static_shapes=True)  # noqa: E731
        fargs, fkwargs = _map_tensors((args, kwargs), to_fake)
        if "device" in fkwargs:  # factories: create on tpu, not where the sample says
            fkwargs["device"] = "tpu"
        try:
            with mode, rec:
                target(*fargs, **fkwargs)
            return True, ""
        except Exception as e:
            text = str(e).strip()
            return False, f"{type(e).__name__}: {text.splitlines()[0][:160]}" if text else \
                type(e).__name__
        finally:
            rec.stack.clear()

    def _runs_on_cpu(self, target, args, kwargs) -> bool:
        torch = self.torch
        cargs, ckwargs = _map_tensors((args, kwargs), lambda x: x.detach().clone())
        try:
            with torch.no_grad():
                target(*cargs, **ckwargs)
            return True
        except Exception:
            return False


def _aten_kwargs(target, kwargs: dict) -> dict:
    """The Python API's spelling of an argument where the aten schema wants
    another: torch.nn.functional's losses take reduction="mean", their aten
    ops an int (the enum F.* converts it to, torch.nn._reduction.get_enum)."""
    out = dict(kwargs)
    if isinstance(out.get("reduction"), str):
        ints = {a.name for a in target._schema.arguments if str(a.type) == "int"}
        if "reduction" in ints:
            from torch.nn import _reduction

            out["reduction"] = _reduction.get_enum(out["reduction"])
    return out


def _has_tensor(obj) -> bool:
    found = []
    _map_tensors(obj, found.append)
    return bool(found)


def _map_tensors(obj, fn):
    import torch

    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(_map_tensors(x, fn) for x in obj)
    if isinstance(obj, list):
        return [_map_tensors(x, fn) for x in obj]
    if isinstance(obj, dict):
        return {k: _map_tensors(v, fn) for k, v in obj.items()}
    return obj


def _short(func) -> str:
    """aten::add.Tensor -> add.Tensor (the manifest's spelling); others keep
    their namespace (prim::device)."""
    name = func.name()
    return name[len("aten::"):] if name.startswith("aten::") else name


def _recorder(registered: Set[str]):
    import torch
    from torch._C import DispatchKey
    from torch.utils._python_dispatch import TorchDispatchMode

    has = torch._C._dispatch_has_kernel_for_dispatch_key
    keys = (DispatchKey.CompositeExplicitAutograd,
            DispatchKey.CompositeExplicitAutogradNonFunctional,
            DispatchKey.CompositeImplicitAutograd)

    class Recorder(TorchDispatchMode):
        """Records every overload reaching the Python key; runs the composite
        kernel of unregistered overloads under itself, as the device would."""

        def __init__(self):
            super().__init__()
            self.ops: Dict[str, dict] = {}
            self.stack: List[str] = []
            self.count = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = _short(func)
            self.count += 1
            info = self.ops.setdefault(name, {"parent": self.stack[-1] if self.stack else "",
                                              "expanded": "", "body_failed": "",
                                              "body_calls": False})
            if name not in registered and func.namespace == "aten":
                key = next((k for k in keys if has(func.name(), k.name)), None)
                if key is not None:
                    info["expanded"] = key.name
                    before = self.count
                    self.stack.append(name)
                    try:
                        with self:
                            result = func._op_dk(key, *args, **kwargs)
                        if self.count > before:
                            info["body_calls"] = True
                        if _all_fake(result):
                            return result
                        # A body that builds its result without the dispatcher
                        # (alias_with_sizes_and_strides in _unsafe_view) hands
                        # back a plain meta tensor: its trace is recorded, its
                        # result comes from FakeTensorMode instead.
                    except Exception as e:
                        # The device would run this body too: the op is not
                        # covered. Go on without it to see the rest.
                        if not info["body_failed"]:
                            info["body_failed"] = f"{type(e).__name__}: " + \
                                (str(e).strip().splitlines() or [""])[0][:120]
                    finally:
                        self.stack.pop()
            return func(*args, **kwargs)

    return Recorder()


def _all_fake(result) -> bool:
    from torch._subclasses.fake_tensor import FakeTensor

    found = []
    _map_tensors(result, found.append)
    return all(isinstance(t, FakeTensor) for t in found)


_EXIT_UNAVAILABLE = 3


def _worker(request_path: str, result_path: str) -> int:
    with open(request_path) as f:
        request = json.load(f)
    try:
        tracer = _Tracer(set(request["registered"]))
    except ProofUnavailable as e:
        print(str(e), file=sys.stderr)
        return _EXIT_UNAVAILABLE
    with open(result_path, "a") as out:
        for target in request["targets"]:
            out.write(json.dumps({"start": target["op"]}) + "\n")
            out.flush()
            result = tracer.run([target])[target["op"]]
            out.write(json.dumps({"op": target["op"], "result": result}) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        sys.exit(_worker(sys.argv[2], sys.argv[3]))
    print("usage: python -m codegen.proofs.closure --worker REQUEST.json RESULT.json", file=sys.stderr)
    sys.exit(2)
