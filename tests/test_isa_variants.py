"""Kernel ISA variants (csrc/kernels/common/isa.h): the extension is built for a
baseline (x86-64-v3, AVX2) plus AVX-512 variants of the kernels that gain
from them, and picks one at run time from CPUID. These tests check what is
reported, that every variant this CPU can run computes CPU's results, that a
bad TORCH_TPU_CPU_CAPABILITY is a clear import error, and that no AVX-512
instruction hides outside an AVX-512 variant (which would crash an AVX2-only
CPU)."""

import bisect
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import torch

import torch_tpu
from native_binaries import binary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["avx2", "avx512", "avx512_bf16"]
CAP = torch.tpu.cpu_capability()
RUNNABLE = ORDER[:ORDER.index(CAP["best"]) + 1]
HAS_AMX = CAP["features"]["amx_tile"] and CAP["features"]["amx_bf16"]


def run_python(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, timeout=600, cwd=ROOT)


def test_reported_capability():
    f = CAP["features"]
    assert f["avx2"] and f["fma"] and f["f16c"], "the extension loaded, so the baseline is there"
    if "TORCH_TPU_CPU_CAPABILITY" not in os.environ:
        assert CAP["selected"] == CAP["best"]
    best = "avx2"
    if all(f[k] for k in ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd")):
        best = "avx512_bf16" if f["avx512_bf16"] else "avx512"
    assert CAP["best"] == best
    assert torch.tpu.get_device_properties(0).cpu_capability == CAP["selected"]
    assert "cpu_capability='%s'" % CAP["selected"] in repr(torch.tpu.get_device_properties(0))
    if CAP["selected"] != "avx512_bf16":
        assert CAP["gemm"]["bfloat16"] == "float-converted"
    elif HAS_AMX and os.environ.get("TORCH_TPU_AMX") != "0":
        # AMX also needs the kernel's permission (Linux >= 5.16); without it
        # the AVX512-BF16 kernel runs.
        assert CAP["gemm"]["bfloat16"] in ("amx-bf16", "avx512-bf16-dot")
    else:
        assert CAP["gemm"]["bfloat16"] == "avx512-bf16-dot"
    want_f32 = "avx2-vector" if CAP["selected"] == "avx2" else "avx512-vector"
    assert CAP["gemm"]["float32"] == want_f32


MATMUL_CHECK = r"""
import json, torch, torch_tpu
torch.manual_seed(0)
out = {"cap": torch.tpu.cpu_capability()}
errs = {}
for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64):
    for (m, k, n) in ((67, 129, 45), (1, 300, 70), (70, 300, 1), (128, 256, 96)):
        a = torch.randn(3, m, k).mul(4).round().div(4).to(dtype)
        b = torch.randn(3, k, n).mul(4).round().div(4).to(dtype)
        want = torch.bmm(a.double(), b.double())
        got = torch.bmm(a.to("tpu"), b.to("tpu")).cpu().double()
        errs[f"{dtype} {m}x{k}x{n}"] = ((got - want).abs().max() / want.abs().max().clamp(min=1)).item()
        # transposed operands (other packing paths)
        at, bt = a.transpose(1, 2).contiguous().transpose(1, 2), b.transpose(1, 2).contiguous().transpose(1, 2)
        got = torch.bmm(at.to("tpu"), bt.to("tpu")).cpu().double()
        errs[f"{dtype} {m}x{k}x{n} transposed"] = ((got - want).abs().max() / want.abs().max().clamp(min=1)).item()
out["errs"] = errs
print(json.dumps(out))
"""


@pytest.mark.parametrize("isa", ORDER)
def test_every_runnable_variant_computes_the_same(isa):
    if isa not in RUNNABLE:
        pytest.skip(f"this CPU runs at most {CAP['best']}; the {isa} variant cannot execute here")
    proc = run_python(MATMUL_CHECK, TORCH_TPU_CPU_CAPABILITY=isa)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["cap"]["selected"] == isa
    for case, err in res["errs"].items():
        limit = 2e-2 if ("bfloat16" in case or "float16" in case) else 1e-6
        assert err <= limit, (isa, case, err)


@pytest.mark.parametrize("amx", ["1", "0"])
def test_bfloat16_matrix_unit_and_its_fallback_compute_the_same(amx):
    """bfloat16 GEMMs on AMX tiles (where the CPU has them) and on the
    AVX512-BF16 kernel (TORCH_TPU_AMX=0), each against float64."""
    if CAP["best"] != "avx512_bf16":
        pytest.skip("no AVX512-BF16 variant on this CPU")
    if amx == "1" and not HAS_AMX:
        pytest.skip("this CPU has no AMX tiles; the AMX kernel is built but cannot run here")
    proc = run_python(MATMUL_CHECK, TORCH_TPU_CPU_CAPABILITY="avx512_bf16", TORCH_TPU_AMX=amx)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    name = res["cap"]["gemm"]["bfloat16"]
    assert name == ("amx-bf16" if amx == "1" else "avx512-bf16-dot") or (amx == "1" and name == "avx512-bf16-dot")
    for case, err in res["errs"].items():
        if "bfloat16" in case:
            assert err <= 2e-2, (amx, case, err)


@pytest.mark.parametrize("isa", ORDER)
def test_kernel_unit_tests_per_variant(isa):
    """The torch-free kernel unit tests (GEMM included) under each variant."""
    if isa not in RUNNABLE:
        pytest.skip(f"this CPU runs at most {CAP['best']}; the {isa} variant cannot execute here")
    path = binary("tpu_kernels_tests")
    env = dict(os.environ, TORCH_TPU_CPU_CAPABILITY=isa)
    proc = subprocess.run([path], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]


@pytest.mark.parametrize("value,message", [
    ("sse2", "is not a kernel ISA: use avx2, avx512 or avx512_bf16"),
    ("avx512_bf16", "but this CPU supports at most"),
])
def test_bad_capability_is_a_clear_import_error(value, message):
    if value == "avx512_bf16" and CAP["best"] == "avx512_bf16":
        pytest.skip("this CPU supports avx512_bf16, so asking for it is not an error here")
    proc = run_python("import torch_tpu", TORCH_TPU_CPU_CAPABILITY=value)
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr[-3000:]
    assert "ImportError" in proc.stderr


# EVEX-only register names and mnemonics: zmm registers, mask registers,
# ymm/xmm 16-31, and the AVX-512-only instruction families.
AVX512_INSN = re.compile(r"%zmm|%k[0-7]\b|%[xy]mm(1[6-9]|2[0-9]|3[01])\b|\bvpternlog|\bvpermt2|"
                         r"\bvpermi2|\bvdpbf16|\bvcvtne2ps2bf16|\bvpcompress|\bvpexpand")


def _so_path():
    found = glob.glob(os.path.join(os.path.dirname(torch_tpu.__file__), "_C*.so"))
    assert found, "the built extension is missing"
    return found[0]


def _avx512_functions(*paths):
    """{path: names of its functions that contain an AVX-512 instruction},
    for objects or libraries, from one objdump run."""
    # The listing is ~500 MB for the extension: grep (a DFA, ~100x faster
    # than Python's re over it) keeps only the file and function headers and
    # the lines with an AVX-512 instruction; each of those belongs to the
    # last file and function header before it.
    objdump = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", "-C", *paths],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pattern = r"file format |^[0-9a-f]+ <.*>:$|" + AVX512_INSN.pattern
    grep = subprocess.run(["grep", "-E", pattern], stdin=objdump.stdout, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, LC_ALL="C"))
    objdump.stdout.close()
    assert objdump.wait(timeout=600) == 0, objdump.stderr.read().decode()[-2000:]
    assert grep.returncode in (0, 1), grep.stderr[-2000:]
    found = {p: set() for p in paths}
    path = func = None
    for line in grep.stdout.splitlines():
        header = re.match(r"(\S.*):\s+file format ", line)
        if header:
            path, func = header.group(1), None
            continue
        header = re.match(r"[0-9a-f]+ <(.*)>:$", line)
        if header:
            func = header.group(1)
        elif path is not None and func is not None and AVX512_INSN.search(line):
            found[path].add(func)
    return found


NEEDS_OBJDUMP = pytest.mark.skipif(shutil.which("objdump") is None,
                                   reason="objdump (binutils) is not installed")


@NEEDS_OBJDUMP
def test_baseline_objects_have_no_avx512():
    """The baseline build of every kernel file (and the runtime) uses
    nothing beyond AVX2: a file compiled with the wrong flags shows here."""
    objects = (glob.glob(os.path.join(ROOT, "build", "CMakeFiles", "tpu_kernels_avx2.dir", "**", "*.o"),
                         recursive=True)
               + glob.glob(os.path.join(ROOT, "build", "CMakeFiles", "tpu_runtime.dir", "**", "*.o"),
                           recursive=True))
    assert len(objects) > 50, "build/ has no kernel objects: run python -m codegen"
    bad = {os.path.basename(o): sorted(fns)[:3] for o, fns in _avx512_functions(*objects).items()
           if fns}
    assert not bad, f"AVX-512 code in baseline objects: {bad}"


@NEEDS_OBJDUMP
def test_avx512_only_inside_avx512_variants():
    """In the built extension, every shared (global or weak) function that
    contains an AVX-512 instruction belongs to an avx512 variant (its symbol
    names the ISA), so an AVX2-only CPU never reaches one. This catches an
    inline function whose AVX-512 copy the linker kept instead of the
    baseline one. Local functions (GCC's .isra/.constprop clones of a
    variant's own code) are reachable only from their object file, and the
    baseline objects have none (test above)."""
    so = _so_path()
    proc = subprocess.run(["nm", "-C", "--defined-only", so], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    binding = {}
    for line in proc.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            binding.setdefault(parts[2], parts[1])
    found = _avx512_functions(so)[so]
    assert any("avx512" in f for f in found), "no AVX-512 variant found in the extension"
    offenders = sorted(f for f in found if "avx512" not in f and not binding.get(f, "?").islower())
    assert not offenders, "shared AVX-512 code outside the avx512 variants:\n" + "\n".join(offenders[:40])
