"""Stub claims checked against the installed wheel: does the ATen native
implementation a `route: stub` entry reuses (Variant.native: a structured
class's impl() or a native function) really reference the entry's stub, and
does it pass the stub the tensors' device rather than a hard-coded CPU?

libtorch_cpu.so of the 2.13 wheel is not stripped, so binutils alone answer
(docs/pytorch-2.13-facts.md, "The stub route"):

  nm -C -S --defined-only   every function's address and size (.symtab)
  objdump -R                GOT slots -> exported objects (the stubs) and PLT slots
  objdump -D -b binary      each function's bytes, disassembled alone (~ms)

A stub is a global object always reached through the GOT, so "references
stub X" is reliable even when the call is inlined. Callees are followed to a
small depth, stopping at dispatcher calls (at::_ops::*), which are reported.
At each DispatchStubImpl::get_call_ptr call site the device argument (%esi) is
classified: zeroed means the constant CPU ("CPU(const)"), anything else comes
from the tensors. Limits: references, not calls on every path; depth 3; x86-64
only; the device classification is a window heuristic. The generated tests
prove at run time that the stub kernel is reached; this is the static lint.

Setup (reading the symbol table) takes ~5 s; each function a few ms. Results
are cached under build/codegen_cache/, keyed by the library file and this file.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple
from .. import json_cache, paths
from ..model.manifest import Route, Via

ROOT = paths.ROOT
CACHE_DIR = os.path.join(ROOT, "build", "codegen_cache")
DEPTH = 3

OK = "ok"
WRONG_STUB = "wrong stub"
CPU_DEVICE = "cpu device"
NOT_FOUND = "not found"
SKIPPED = "skipped"


@dataclass(frozen=True)
class Analysis:
    """What one native function reaches (all overloads matching the query)."""
    query: str
    symbols: Tuple[str, ...]                     # demangled functions analysed
    stubs: Tuple[str, ...]                       # stubs referenced
    cpu_const: Tuple[str, ...]                   # stubs called with a constant CPU device
    dispatcher_calls: Tuple[str, ...]            # at::_ops::<op> called (redispatches)


@dataclass(frozen=True)
class Finding:
    op: str              # the entry
    variant: str         # the registered overload whose native code was checked
    native: str          # at::native class or function
    status: str          # ok / wrong stub / cpu device / not found / skipped
    message: str
    stubs: Tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == OK


# --------------------------------------------------------------------------
# Public entry points


def unavailable_reason() -> Optional[str]:
    """None if the check can run here, else why not."""
    import platform

    if platform.machine() not in ("x86_64", "AMD64"):
        return f"the disassembly heuristics are x86-64 only (this is {platform.machine()})"
    for tool in ("nm", "objdump", "readelf"):
        if _tool(tool) is None:
            return f"'{tool}' not found (install binutils)"
    return None


def native_query(variant) -> str:
    """The demangled-name prefix of a variant's native implementation; for a
    plain function also "|N", its number of parameters (fill_ has two
    overloads: only the one the variant calls is analysed)."""
    if variant.via == Via.STRUCTURED:
        return f"at::native::{variant.native}::impl("
    return f"at::native::{variant.native}(|{len(variant.signature.params)}"


def check(entries, cache_dir: Optional[str] = CACHE_DIR) -> List[Finding]:
    """One finding per (stub entry, variant reaching native code), sorted."""
    variants = [(e, v) for e in sorted(entries, key=lambda e: e.op) if e.route == Route.STUB
                for v in e.variants if v.via in (Via.STRUCTURED, Via.NATIVE)]
    if not variants:
        return []
    reason = unavailable_reason()
    if reason:
        return [Finding(e.op, v.op, v.native, SKIPPED, f"not checked: {reason}")
                for e, v in variants]
    queries = sorted({native_query(v) for _, v in variants})
    results = analyse(queries, cache_dir)
    by_stub = _ops_by_stub(entries)
    return [_finding(e, v, results[native_query(v)], by_stub.get(e.stub, set())) for e, v in variants]


def _ops_by_stub(entries) -> Dict[str, set]:
    """stub -> the overloads (as dispatcher calls spell them: '.' as '_')
    registered for tpu by the stub entries that name it."""
    out: Dict[str, set] = {}
    for e in entries:
        if e.route != Route.STUB:
            continue
        for stub in [e.stub] + [s for s, _, _ in e.also_stubs]:
            out.setdefault(stub, set()).update(v.op.replace(".", "_") for v in e.variants)
    return out


def problems(entries, cache_dir: Optional[str] = CACHE_DIR,
             manifest_path: str = "ops.yaml") -> List[str]:
    """Messages for `python -m codegen check`, one per entry with a wrong
    claim. A check that cannot run here is not a problem (the generated tests
    still prove at run time that each stub kernel is reached); see skipped()."""
    bad: Dict[str, List[Finding]] = {}
    for f in check(entries, cache_dir):
        if f.status not in (OK, SKIPPED):
            bad.setdefault(f.op, []).append(f)
    lines = {e.op: e.line for e in entries}
    out = []
    for op, findings in sorted(bad.items()):
        first = findings[0]
        where = f"{manifest_path}:{lines[op]}: " if lines.get(op) else f"{manifest_path}: "
        variants = ", ".join(f.variant for f in findings)
        fix = {WRONG_STUB: f"name the stub it reaches ({', '.join(first.stubs)})" if first.stubs
               else "use route: direct (no stub is reached)",
               CPU_DEVICE: "use route: direct with a handwritten kernel",
               NOT_FOUND: "use route: direct, or fix codegen's native name"}[first.status]
        out.append(f"{where}op '{op}' key 'stub': libtorch_cpu.so contradicts the claim: "
                   f"at::native::{first.native} ({variants}) {first.message}\n  fix: {fix}")
    return out


def skipped(entries, cache_dir: Optional[str] = CACHE_DIR) -> Optional[str]:
    """Why the check was skipped for all entries, or None if it ran."""
    findings = check(entries, cache_dir)
    if findings and all(f.status == SKIPPED for f in findings):
        return findings[0].message
    return None


def summary(findings: Sequence[Finding]) -> str:
    """One cell for the coverage table (all variants of one entry)."""
    if not findings:
        return "—"
    bad = [f for f in findings if f.status not in (OK, SKIPPED)]
    if bad:
        return "; ".join(f"✗ {f.variant}: {f.message}" for f in bad)
    if all(f.status == SKIPPED for f in findings):
        return "not checked"
    return "✓ confirmed"


def _finding(entry, variant, a: Analysis, stub_ops=frozenset()) -> Finding:
    where = (entry.op, variant.op, variant.native)
    if not a.symbols:
        return Finding(*where, NOT_FOUND,
                       f"no function {_describe(a.query)} in libtorch_cpu.so (not exported, "
                       "or the generator's name for it is wrong)")
    if entry.stub not in a.stubs:
        # A composite member that calls a sibling (the functional calling its
        # out= overload) reaches the stub through the tpu registration of it.
        # So does an implementation that calls another entry's op whose tpu
        # registration runs the same stub (_linalg_det -> linalg_lu_factor_ex).
        siblings = {v.op.replace(".", "_") for v in entry.variants if v is not variant}
        via = sorted((siblings | set(stub_ops)).intersection(a.dispatcher_calls))
        if via and not a.stubs:
            return Finding(*where, OK, f"reaches {entry.stub} through {', '.join(via)} "
                           "(the dispatcher, to a tpu registration that runs it)", a.stubs)
        seen = ", ".join(a.stubs) if a.stubs else "no stub"
        hint = f"; it reaches {', '.join(a.dispatcher_calls)} through the dispatcher" \
            if a.dispatcher_calls and not a.stubs else ""
        return Finding(*where, WRONG_STUB, f"references {seen}, not {entry.stub}{hint}",
                       a.stubs)
    if entry.stub in a.cpu_const:
        return Finding(*where, CPU_DEVICE,
                       f"calls {entry.stub} with a hard-coded CPU device: a tpu kernel "
                       "would never run (use route: direct)", a.stubs)
    return Finding(*where, OK, f"references {entry.stub}, device taken from the tensors",
                   a.stubs)


def _describe(query: str) -> str:
    prefix, _, arity = query.partition("|")
    return f"{prefix}...)" + (f" with {arity} parameters" if arity else "")


def analyse(queries: Iterable[str], cache_dir: Optional[str] = CACHE_DIR) -> Dict[str, Analysis]:
    """query (a demangled-name prefix such as 'at::native::abs_out(') ->
    Analysis. Raises RuntimeError if the check cannot run (unavailable_reason)."""
    queries = sorted(set(queries))
    reason = unavailable_reason()
    if reason:
        raise RuntimeError(reason)
    lib = library_path()
    cache_file = _cache_file(cache_dir, lib)
    cached = _cache_load(cache_file)
    missing = [q for q in queries if q not in cached]
    if missing:
        binary = _binary(lib)
        for q in missing:
            cached[q] = binary.analyse(q)
        _cache_store(cache_file, cached)
    return {q: cached[q] for q in queries}


def library_path() -> str:
    import torch.utils  # the wheel's lib folder; no backend autoload needed

    return os.path.join(os.path.dirname(os.path.dirname(torch.utils.__file__)), "lib",
                        "libtorch_cpu.so")


# --------------------------------------------------------------------------
# Cache


def _cache_file(cache_dir: Optional[str], lib: str) -> Optional[str]:
    if not cache_dir:
        return None
    st = os.stat(lib)
    with open(os.path.abspath(__file__), "rb") as f:
        code = hashlib.sha256(f.read()).hexdigest()
    key = hashlib.sha256(f"{lib}:{st.st_size}:{st.st_mtime_ns}:{code}".encode()).hexdigest()[:24]
    return os.path.join(cache_dir, f"stub_check-{key}.json")


def _cache_load(path: Optional[str]) -> Dict[str, Analysis]:
    if not path:
        return {}
    rows = json_cache.read(path)
    try:
        return {q: Analysis(q, *(tuple(r[k]) for k in ("symbols", "stubs", "cpu_const",
                                                        "dispatcher_calls")))
                for q, r in rows.items()}
    except (AttributeError, KeyError, TypeError, ValueError):  # missing or older layout
        return {}


def _cache_store(path: Optional[str], results: Dict[str, Analysis]) -> None:
    if not path:
        return
    rows = {q: {"symbols": a.symbols, "stubs": a.stubs, "cpu_const": a.cpu_const,
                "dispatcher_calls": a.dispatcher_calls} for q, a in sorted(results.items())}
    if not json_cache.write(path, rows):
        return
    try:
        prefix = os.path.basename(path).split("-")[0] + "-"
        for name in os.listdir(os.path.dirname(path)):
            if name.startswith(prefix) and os.path.join(os.path.dirname(path), name) != path:
                os.remove(os.path.join(os.path.dirname(path), name))
    except OSError:
        pass


# --------------------------------------------------------------------------
# The binary


def _tool(name: str) -> Optional[str]:
    """binutils, honouring $NM/$OBJDUMP/$READELF and the compiler's own
    (conda toolchains prefix their binutils)."""
    env = os.environ.get(name.upper())
    if env and shutil.which(env):
        return shutil.which(env)
    path = shutil.which(name)
    if path:
        return path
    gcc = shutil.which("gcc")
    if gcc:
        try:
            prog = subprocess.run([gcc, f"-print-prog-name={name}"], capture_output=True,
                                  text=True, timeout=10).stdout.strip()
            if prog and shutil.which(prog):
                return shutil.which(prog)
        except (OSError, subprocess.SubprocessError):
            pass
    return None


def _run(*cmd: str) -> str:
    return subprocess.run([_tool(cmd[0]), *cmd[1:]], capture_output=True, text=True,
                          check=True).stdout


_STUB_TYPE = re.compile(r"(\w+)_DECLARE_DISPATCH_type")
_STUB_OBJECT = re.compile(r"::(\w+_(?:stub|kernel|Kernel))$")
_SKIP = re.compile(r"^(?:c10::|std::|at::TensorIteratorBase::|at::TensorIterator::|"
                   r"at::TensorIteratorConfig::|at::internal::|at::native::DispatchStubImpl|"
                   r"at::_ops::|__|operator |at::Tensor::|at::TensorBase::|at::detail::)")
_CALL = re.compile(r"\t(?:call|jmp)\s+0x([0-9a-f]+)\s*$")
_RIP_REF = re.compile(r"# 0x([0-9a-f]+)")
_OPS_CALL = re.compile(r"at::_ops::(\w+)::(?:call|redispatch)")


@functools.lru_cache(maxsize=2)
def _binary(lib: str) -> "_Binary":
    return _Binary(lib)


class _Binary:
    def __init__(self, lib: str):
        self.lib = lib
        self.funcs: List[Tuple[int, int, str]] = []
        self.by_name: Dict[str, List[Tuple[int, int]]] = {}
        data: List[Tuple[int, int, str]] = []
        for line in _run("nm", "-C", "-S", "--defined-only", lib).splitlines():
            p = line.split(" ", 3)
            if len(p) < 4:
                continue
            try:
                addr, size = int(p[0], 16), int(p[1], 16)
            except ValueError:
                continue
            kind, name = p[2], p[3]
            if kind in "TtWw":
                self.funcs.append((addr, size, name))
                self.by_name.setdefault(name, []).append((addr, size))
            elif kind in "BbDdVvRr":
                data.append((addr, size, name))
        self.funcs.sort()
        self.faddr = [f[0] for f in self.funcs]
        data.sort()
        self.data, self.daddr = data, [d[0] for d in data]
        self.got: Dict[int, str] = {}
        jslot: Dict[int, str] = {}
        for line in _run("objdump", "-R", "-C", lib).splitlines():
            p = line.split(None, 2)
            if len(p) == 3:
                sym = re.sub(r"@@?\S*$", "", p[2])
                if p[1] == "R_X86_64_GLOB_DAT":
                    self.got[int(p[0], 16)] = sym
                elif p[1] == "R_X86_64_JUMP_SLOT":
                    jslot[int(p[0], 16)] = sym
        self.segments = [(int(m[1], 16), int(m[0], 16), int(m[2], 16)) for m in re.findall(
            r"LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+\s+(0x[0-9a-f]+)",
            _run("readelf", "-lW", lib))]
        self.fh = open(lib, "rb")
        self.plt: Dict[int, str] = {}
        sec = re.search(r"\]\s+\.plt\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)",
                        _run("readelf", "-SW", lib))
        if sec:
            start, size = int(sec.group(1), 16), int(sec.group(2), 16)
            for line in self._disasm(start, size).splitlines():
                m = re.match(r"\s*([0-9a-f]+):\s+jmp\s+\*0x[0-9a-f]+\(%rip\)\s+# 0x([0-9a-f]+)",
                             line)
                if m and int(m.group(2), 16) in jslot:
                    self.plt[(int(m.group(1), 16) // 16) * 16] = jslot[int(m.group(2), 16)]
        self.names = sorted(self.by_name)

    def _offset(self, vaddr: int) -> int:
        for v, o, size in self.segments:
            if v <= vaddr < v + size:
                return vaddr - v + o
        raise ValueError(hex(vaddr))

    def _disasm(self, addr: int, size: int) -> str:
        self.fh.seek(self._offset(addr))
        code = self.fh.read(size)
        with tempfile.NamedTemporaryFile(suffix=".bin") as tf:
            tf.write(code)
            tf.flush()
            return _run("objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                        "--no-show-raw-insn", f"--adjust-vma={addr:#x}", tf.name)

    def _func_at(self, a: int) -> Optional[str]:
        i = bisect.bisect_right(self.faddr, a) - 1
        if i >= 0 and self.funcs[i][0] <= a < self.funcs[i][0] + max(self.funcs[i][1], 1):
            return self.funcs[i][2]
        return None

    def _data_at(self, a: int) -> Optional[str]:
        if a in self.got:
            return self.got[a]
        i = bisect.bisect_right(self.daddr, a) - 1
        if i >= 0 and self.data[i][0] <= a < self.data[i][0] + max(self.data[i][1], 1):
            return self.data[i][2]
        return None

    @functools.lru_cache(maxsize=None)
    def _scan(self, addr: int, size: int):
        """-> (callees, data refs, {(stub or None, device arg)} per get_call_ptr site)."""
        calls: Set[str] = set()
        refs: Set[str] = set()
        sites: Set[Tuple[Optional[str], str]] = set()
        window: List[Tuple[Optional[str], Optional[str]]] = []  # (esi setter, data ref)
        for line in self._disasm(addr, size).splitlines():
            ins = line.split("\t", 1)[-1].strip()
            ref = None
            m = _RIP_REF.search(line)
            if m:
                ref = self._data_at(int(m.group(1), 16))
                if ref:
                    refs.add(ref)
            m = _CALL.search(line)
            if m:
                target = int(m.group(1), 16)
                name = self.plt.get(target) or self.plt.get((target // 16) * 16) or \
                    self._func_at(target)
                if name and name.startswith("at::native::DispatchStubImpl::get_call_ptr"):
                    sites.add((_site_stub(window), _device_arg(window)))
                elif name and not (addr <= target < addr + size):
                    calls.add(name)
            setter = ins if (re.search(r",%esi\s*$", ins) or re.match(r"xor\s+%esi,%esi", ins)) \
                else None
            window = (window + [(setter, ref)])[-24:]
        return calls, refs, sites

    def analyse(self, query: str) -> Analysis:
        prefix, _, arity = query.partition("|")
        lo = bisect.bisect_left(self.names, prefix)
        symbols = []
        for name in self.names[lo:]:
            if not name.startswith(prefix):
                break
            if "[clone" not in name and (not arity or _arity(name, prefix) == int(arity)):
                symbols.append(name)
        stubs: Set[str] = set()
        cpu_const: Set[str] = set()
        ops: Set[str] = set()
        seen: Set[str] = set()

        def visit(name: str, depth: int) -> None:
            if name in seen or depth < 0:
                return
            seen.add(name)
            for addr, size in self.by_name.get(name, []):
                calls, refs, sites = self._scan(addr, size)
                for r in refs:
                    m = _STUB_TYPE.search(r)
                    if m:
                        stubs.add(m.group(1))
                    else:
                        m = _STUB_OBJECT.search(r)
                        if m:
                            stubs.add(m.group(1))
                for stub, dev in sites:
                    if dev == "CPU(const)" and stub:
                        cpu_const.add(stub)
                for c in calls:
                    for m in _STUB_TYPE.finditer(c):
                        stubs.add(m.group(1))
                    m = _OPS_CALL.match(c)
                    if m:
                        ops.add(m.group(1))
                        continue
                    if not _SKIP.search(c) and c in self.by_name:
                        visit(c, depth - 1)

        for s in symbols:
            visit(s, DEPTH)
        return Analysis(query, tuple(symbols), tuple(sorted(stubs)), tuple(sorted(cpu_const)),
                        tuple(sorted(ops)))


def _arity(symbol: str, prefix: str) -> int:
    """Number of parameters of a demangled function whose name ends the prefix."""
    depth, count, seen = 0, 0, False
    for ch in symbol[len(prefix):]:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            if depth == 0:
                break  # the closing parenthesis of the parameter list
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
        if not ch.isspace():
            seen = True
    return count + 1 if seen else 0


def _site_stub(window) -> Optional[str]:
    for _, ref in reversed(window):
        if not ref or "::DEFAULT" in ref or "::AVX" in ref:
            continue
        m = _STUB_TYPE.search(ref)
        if m:
            return m.group(1)
        if ref.endswith(("_stub", "_kernel", "Kernel")):
            return ref.rsplit("::", 1)[-1]
    return None


def _device_arg(window) -> str:
    esi = next((s for s, _ in reversed(window) if s), None)
    if esi is None:
        return "dynamic?"
    if re.match(r"xor\s+%esi,%esi", esi) or re.match(r"mov\s+\$0x0,%esi", esi):
        return "CPU(const)"
    if re.match(r"mov\s+\$0x[0-9a-f]+,%esi", esi):
        return "const:" + esi.split("$")[1].split(",")[0]
    return "dynamic"
