"""The generator's coverage tools: the composite closure proof
(codegen/proofs/closure.py), the stub check against libtorch_cpu.so
(codegen/proofs/stub_check.py) and the coverage renderer (codegen/report/coverage.py)."""

import os

import pytest

from codegen.proofs import closure

# The P0 ops a composite can rely on, plus a few composites: fill.Scalar and
from codegen.facts import autograd
from codegen.report import coverage, document

# The P0 ops a composite can rely on, plus a few composites: fill.Scalar and
from codegen.model import manifest

# The P0 ops a composite can rely on, plus a few composites: fill.Scalar and
from codegen.proofs import stub_check

# The P0 ops a composite can rely on, plus a few composites: fill.Scalar and
# zeros_like decompose into them (empty_like -> empty_strided, fill_/zero_);
# linear needs matrix products that are not registered; new_zeros gets only
# abs samples, none of which applies to it.
TINY = """
- op: empty.memory_format
  route: direct
  impl: empty_memory_format
- op: empty_strided
  route: direct
  impl: empty_strided
- op: as_strided
  route: direct
  impl: at::native::as_strided_tensorimpl
- op: view
  route: direct
  impl: at::native::view
- op: _copy_from
  route: direct
  impl: copy_from
- op: fill_.Scalar
  route: direct
  impl: fill_scalar_
- op: zero_
  route: direct
  impl: zero_
- op: fill.Scalar
  route: composite
- op: zeros_like
  route: composite
- op: linear
  route: composite
  autocast: lower_precision_fp
- op: new_zeros
  route: composite
  tests: {opinfo: [abs]}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("manifest") / "tiny.yaml"
    path.write_text(TINY)
    return manifest.load(str(path))


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A checkout root whose build/codegen_cache holds the tiny manifest's proofs."""
    return str(tmp_path_factory.mktemp("root"))


@pytest.fixture(scope="module")
def proofs(tiny, root):
    cache = os.path.join(root, "build", "codegen_cache")
    return closure.prove(tiny, cache_dir=cache, in_process=True)


def test_closure_proves_a_covered_composite(proofs):
    for op in ("fill.Scalar", "zeros_like"):
        p = proofs[op]
        assert p.status == closure.STATUS_PROVEN, p
        assert p.samples > 0 and p.failed == 0 and not p.uncovered
    how = dict(proofs["fill.Scalar"].traced)
    assert how["fill_.Scalar"] == "direct"
    assert how["empty_like"].startswith("composite body")   # its body reached empty_strided
    assert how["empty_strided"] == "direct"


def test_closure_rejects_an_uncovered_composite(proofs):
    p = proofs["linear"]
    assert p.status == closure.STATUS_NOT_PROVEN
    assert {"addmm.out", "mm.out"} <= set(p.uncovered)
    assert "uncovered: " in p.summary()
    how = dict(p.traced)
    assert how["t"].startswith("composite body")             # a view: covered by its body
    assert how["addmm.out"].startswith("no tpu kernel")


def test_no_samples_is_not_a_proof(proofs):
    p = proofs["new_zeros"]
    assert p.status == closure.STATUS_NO_SAMPLES and not p.proven
    assert p.summary().startswith("no samples")


def test_closure_problems_name_the_entry_and_the_uncovered_ops(tiny, proofs, root):
    # problems() reads the cache prove() wrote under root: no second trace.
    msgs = closure.problems(tiny, root=root, manifest_path="tiny.yaml")
    assert len(msgs) == 2
    linear, new_zeros = msgs
    assert linear.startswith("tiny.yaml:") and "op 'linear'" in linear
    assert "addmm.out: no tpu kernel (called by addmm)" in linear and "fix: " in linear
    assert "op 'new_zeros'" in new_zeros and "no samples" in new_zeros


def test_closure_cache_is_used(tiny, tmp_path, monkeypatch):
    raw = {"fill.Scalar": {"ops": {"fill_.Scalar": {"parent": "fill.Scalar"}}, "samples": 1,
                           "failed": 0, "errors": [], "opinfos": ["fill"],
                           "dtypes": ["float32"]}}
    calls = []
    monkeypatch.setattr(closure, "_trace_in_process", lambda req: calls.append(req) or raw)
    entries = [e for e in tiny if e.op != "linear" and e.op != "zeros_like"
               and e.op != "new_zeros"]
    first = closure.prove(entries, cache_dir=str(tmp_path), in_process=True)
    second = closure.prove(entries, cache_dir=str(tmp_path), in_process=True)
    assert len(calls) == 1 and first == second and first["fill.Scalar"].proven


def test_resolve_rules():
    """Coverage rules on synthetic traces: registered, composite body,
    exemption, another proven composite, cycles, failed bodies and samples."""
    reg = {"a.out": "stub", "b.out": "fallback"}

    def trace(ops, samples=2, failed=0):
        return {"ops": ops, "samples": samples, "failed": failed, "errors": [],
                "opinfos": ["x"], "dtypes": ["float32"]}

    body = {"expanded": "CompositeExplicitAutograd", "body_failed": "", "body_calls": True}
    raw = {
        "p": trace({"a.out": {}, "prim::device": {}, "v": dict(body, body_calls=False)}),
        "q": trace({"b.out": {}}),
        "r": trace({"p": {}}),                      # relies on the proven composite p
        "s": trace({"t": {}}), "t": trace({"s": {}}),   # a cycle: never proven
        "u": trace({"w": dict(body, body_failed="RuntimeError: x")}),
        "f": trace({"a.out": {}}, samples=1, failed=1),
        "n": trace({}, samples=0),
    }
    proofs = closure.resolve(raw, reg)
    assert proofs["p"].proven and dict(proofs["p"].traced)["v"].endswith("no dispatcher calls")
    assert dict(proofs["p"].traced)["prim::device"].startswith("exempt")
    assert proofs["q"].proven and proofs["q"].fallback == ("b.out",)
    assert proofs["r"].proven and dict(proofs["r"].traced)["p"] == "proven composite"
    assert not proofs["s"].proven and not proofs["t"].proven
    assert proofs["u"].uncovered == ("w",)
    assert proofs["f"].status == closure.STATUS_NOT_PROVEN
    assert "trace failed" in proofs["f"].summary()
    assert proofs["n"].status == closure.STATUS_NO_SAMPLES


# --------------------------------------------------------------------------
# Stub check


STUBS = """
- op: add.Tensor
  route: stub
  stub: add_stub
  kernel: add_kernel
- op: sub.Tensor
  route: stub
  stub: sub_stub
  kernel: sub_kernel
"""


@pytest.mark.skipif(stub_check.unavailable_reason() is not None,
                    reason=f"stub check unavailable: {stub_check.unavailable_reason()}")
def test_stub_check_accepts_a_good_claim_and_rejects_a_wrong_stub(tmp_path):
    path = tmp_path / "stubs.yaml"
    path.write_text(STUBS)
    entries = manifest.load(str(path))
    findings = {f.variant: f for f in stub_check.check(entries, cache_dir=str(tmp_path))}
    assert findings["add.out"].status == stub_check.OK
    assert findings["add.Tensor"].status == stub_check.OK
    # sub's structured impl negates alpha and calls add_stub: sub_stub is never reached.
    assert findings["sub.out"].status == stub_check.WRONG_STUB
    assert "add_stub" in findings["sub.out"].message
    msgs = stub_check.problems(entries, cache_dir=str(tmp_path), manifest_path="stubs.yaml")
    assert len(msgs) == 1 and "'sub.Tensor'" in msgs[0]
    assert "fix: name the stub it reaches (add_stub)" in msgs[0]


@pytest.mark.skipif(stub_check.unavailable_reason() is not None,
                    reason=f"stub check unavailable: {stub_check.unavailable_reason()}")
def test_stub_check_follows_a_functional_to_its_out_overload(tmp_path):
    # at::native::mse_loss_backward calls no stub: it allocates and calls
    # mse_loss_backward.grad_input through the dispatcher, which reaches the stub.
    path = tmp_path / "stubs.yaml"
    path.write_text("- op: mse_loss_backward.grad_input\n  route: stub\n"
                    "  stub: mse_backward_stub\n  kernel: mse_backward_kernel\n")
    findings = {f.variant: f for f in stub_check.check(manifest.load(str(path)),
                                                       cache_dir=str(tmp_path))}
    assert findings["mse_loss_backward.grad_input"].status == stub_check.OK
    assert findings["mse_loss_backward"].status == stub_check.OK
    assert "through mse_loss_backward_grad_input" in findings["mse_loss_backward"].message
    # A dispatcher call to anything but a sibling proves nothing.
    entry = manifest.load(str(path))[0]
    functional = next(v for v in entry.variants if v.op == "mse_loss_backward")
    elsewhere = stub_check.Analysis(query="q", symbols=("s",), stubs=(), cpu_const=(),
                                    dispatcher_calls=("zeros_like",))
    assert stub_check._finding(entry, functional, elsewhere).status == stub_check.WRONG_STUB


@pytest.mark.skipif(stub_check.unavailable_reason() is not None,
                    reason=f"stub check unavailable: {stub_check.unavailable_reason()}")
def test_stub_check_sees_a_hard_coded_cpu_device(tmp_path):
    a = stub_check.analyse(["at::native::structured_gelu_out_cpu::impl(",
                            "at::native::abs_out(|2"], cache_dir=str(tmp_path))
    assert a["at::native::structured_gelu_out_cpu::impl("].cpu_const == ("GeluKernel",)
    assert a["at::native::abs_out(|2"].stubs == ("abs_stub",)
    assert a["at::native::abs_out(|2"].cpu_const == ()


def test_stub_check_skips_without_binutils(tmp_path, monkeypatch):
    path = tmp_path / "stubs.yaml"
    path.write_text(STUBS)
    entries = manifest.load(str(path))
    monkeypatch.setattr(stub_check, "unavailable_reason", lambda: "'nm' not found")
    findings = stub_check.check(entries, cache_dir=str(tmp_path))
    assert findings and all(f.status == stub_check.SKIPPED for f in findings)
    assert stub_check.problems(entries, cache_dir=str(tmp_path)) == []
    assert "nm" in stub_check.skipped(entries, cache_dir=str(tmp_path))


# --------------------------------------------------------------------------
# Coverage


def test_core_summary_adds_up(tiny, proofs):
    core = coverage.core_overloads()
    assert len(core) > 150 and len(set(core)) == len(core)
    import torch

    if torch.__version__.startswith("2.13"):
        assert len(core) == 193
    rows = coverage.core_rows(tiny, core, proofs)
    counts = coverage.core_counts(rows)
    assert sum(counts.values()) == len(core)
    assert counts[coverage.DIRECT] >= 4        # empty.memory_format, empty_strided, view, ...
    # fill.Scalar is a proven composite entry of the tiny manifest.
    assert counts[coverage.COMPOSITE] == 1
    assert {r.op for r in rows if r.category == coverage.COMPOSITE} == {"fill.Scalar"}


def test_coverage_render_is_deterministic_and_check_stale_works(tiny, proofs, tmp_path):
    kwargs = dict(proofs=proofs, findings=[], analyses={}, tests={})
    text = document.render(tiny, **kwargs)
    assert text == document.render(list(reversed(tiny)), **kwargs)
    assert "| **total** | **" in text and "`linear`" in text and "uncovered: " in text
    path = tmp_path / "coverage.md"
    assert document.check_stale(str(path), tiny, **kwargs)         # missing
    assert document.write(str(path), tiny, **kwargs)
    assert not document.write(str(path), tiny, **kwargs)           # unchanged: not rewritten
    assert not document.check_stale(str(path), tiny, **kwargs)
    path.write_text(text.replace("composite", "kompozit", 1))
    assert document.check_stale(str(path), tiny, **kwargs)


def test_entry_facts():
    assert coverage.meta_kind("linear").startswith("decomposes")
    assert coverage.meta_kind("add.Tensor") == "structured meta"
    assert autograd.autograd_source("add.Tensor") == "formula (derivatives.yaml)"
    assert autograd.autograd_source("add.out").startswith("none (out=")
    assert autograd.autograd_source("linear").startswith("composite")
    assert autograd.autograd_source("empty_strided") == "no tensor inputs"
    assert coverage.upstream_kind("add.Tensor") == "ufunc (via add.out)"
    assert coverage.upstream_kind("mm") == "structured cpu-only (via mm.out)"
    assert coverage.upstream_kind("linear") == "CIA"
    assert coverage.upstream_kind("t") == "CEA"
    assert coverage._dtypes(("float16", "bfloat16", "float32", "float64", "int64")) == \
        "floating, int64"


def test_core_family_member_counts_under_its_entry(tmp_path):
    """abs is CompositeExplicit upstream; a stub entry for abs registers only
    abs.out. With abs's closure proven, abs counts as reached by stub."""
    path = tmp_path / "abs.yaml"
    path.write_text("- op: abs\n  route: stub\n  stub: abs_stub\n  kernel: abs_kernel\n")
    entries = manifest.load(str(path))
    assert [v.op for v in entries[0].variants] == ["abs.out"]
    trace = {"ops": {"abs.out": {}, "empty.memory_format": {}}, "samples": 1, "failed": 0,
             "errors": [], "opinfos": ["abs"], "dtypes": ["float32"]}
    reg = {"abs.out": "stub", "empty.memory_format": "direct"}
    proofs = closure.resolve({"abs": trace}, reg)
    rows = {r.op: r for r in coverage.core_rows(entries, ("abs", "abs_"), proofs)}
    assert rows["abs"].category == coverage.STUB and not rows["abs"].works_without_entry
    assert rows["abs_"].category == coverage.NONE      # not traced: no claim


def test_coverage_layout(tiny):
    """Summary first, then contents; every link points at a heading; no long
    line. (No closure proofs: the layout does not need the built extension.)"""
    import re

    from codegen.report import sections as cs

    text = document.render(tiny, proofs={}, findings=[], analyses={},
                           tests=document.test_plans(tiny))
    order = [text.index(h) for h in ("# Operator coverage", "## Summary", "## Contents",
                                     "## Manifest entries", "## Core ATen IR", "## Reason codes")]
    assert order == sorted(order)
    assert re.search(r"^\| ModuleInfo tests \| \d+ of \d+ modules \|", text, re.M)
    anchors = {cs.anchor(line.lstrip("#").strip()) for line in text.splitlines()
               if line.startswith("#")}
    assert set(re.findall(r"\]\(#([^)]+)\)", text)) <= anchors
    assert max(len(line) for line in text.splitlines()) <= 400
    assert "\x00" not in text


def test_reason_codes_are_numbered_by_first_appearance():
    from codegen.report import sections as cs

    r = cs.Reasons()
    rare, common, other = r.ref("rare | reason"), r.ref("common"), r.ref("other")
    doc = " ".join([other, common, rare, other, common, other, common, rare])
    out, codes = r.finish(doc)
    assert codes == [("R1", "other"), ("R2", "common")]
    assert out == "R1 R2 rare \\| reason R1 R2 R1 R2 rare \\| reason"


def test_families():
    from codegen.report import sections as cs

    expect = {"abs": "Elementwise unary", "add.Tensor": "Elementwise binary and ternary",
              "clamp": "Elementwise binary and ternary", "sum.dim_IntList": "Reductions and scans",
              "cumsum": "Reductions and scans", "view": "Shape and views",
              "select.int": "Shape and views", "select_scatter": "Indexing and sorting",
              "_index_put_impl_": "Indexing and sorting", "max_pool2d_with_indices": "nn: layers",
              "_log_softmax": "nn: activations and softmax", "nll_loss": "nn: losses",
              "normal_": "Random", "randn": "Random", "mm": "Matrix products and attention",
              "_foreach_add.List": "Foreach (optimizers)", "empty_strided":
              "Creation, storage and copies", "_fft_c2c": "Other"}
    assert {op: cs.family(op) for op in expect} == expect
    assert set(expect.values()) <= set(cs.FAMILIES)


def test_wrap_keeps_lines_short_and_starts_no_block():
    from codegen.report import sections as cs

    text = "word " * 60 + "- 12. # tail"
    lines = cs.wrap(text, indent="  ", first="- ").splitlines()
    assert lines[0].startswith("- word") and all(line.startswith("  ") for line in lines[1:])
    assert all(len(line) <= cs.WIDTH for line in lines[:-1])
    assert not any(line.strip().startswith(("- ", "12.", "#")) for line in lines[1:])


def test_dtype_gaps_list_declared_dtypes_cpu_has_beyond():
    """The "Dtypes CPU has and tpu rejects" section: an entry declaring
    fewer dtypes than its OpInfos' CPU dtypes is listed with the missing
    ones and the entry's notes; an entry declaring none (any dtype) or all
    of CPU's is not."""
    from types import SimpleNamespace

    from codegen.report import sections

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    entries = [e for e in manifest.load(os.path.join(root, "ops.yaml"))
               if e.op in ("convolution", "norm.out", "abs", "logaddexp")]
    plans = document.test_plans(entries)
    gaps = {op: missing for op, _, missing in sections.dtype_gaps(SimpleNamespace(plans=plans))}
    assert gaps["convolution"] == ["complex64", "complex128"]
    assert "abs" not in gaps and "logaddexp" not in gaps  # any dtype; all of CPU's
    text = sections.dtype_gap_section(SimpleNamespace(plans=plans))
    assert ("| `convolution` | uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64 | "
            "complex64, complex128 | ") in text
    norm = next(line for line in text.splitlines() if line.startswith("| `norm.out` |"))
    assert norm.endswith(f"| {plans['norm.out'].entry.notes} |")
