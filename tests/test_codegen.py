"""The generator: golden output, determinism, staleness check, and a clear
error (file:line, op, key, fix; never a traceback) for each bad manifest."""

import os
import subprocess
import sys

import pytest

from codegen.emit import glue
from codegen.model import manifest
from codegen.errors import ManifestError

pytestmark = pytest.mark.smoke  # in the fast lane (pyproject.toml)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GOLDEN = os.path.join(HERE, "codegen_golden")


def test_golden_output():
    """Set UPDATE_GOLDEN=1 to rewrite the expected files after a deliberate change."""
    files = glue.render(manifest.load(os.path.join(GOLDEN, "tiny.yaml")))
    for rel, content in files.items():
        expected_path = os.path.join(GOLDEN, "expected", os.path.basename(rel))
        if os.environ.get("UPDATE_GOLDEN") == "1":
            os.makedirs(os.path.dirname(expected_path), exist_ok=True)
            with open(expected_path, "w") as f:
                f.write(content)
        with open(expected_path) as f:
            assert f.read() == content, f"{rel} differs from {expected_path}"


def test_output_is_deterministic_and_written_only_when_changed(tmp_path):
    entries = manifest.load(os.path.join(ROOT, "ops.yaml"))
    files = glue.render(entries)
    assert files == glue.render(list(reversed(entries)))
    assert glue.write(str(tmp_path), files) == sorted(files)
    stamp = {p: os.stat(tmp_path / p).st_mtime_ns for p in files}
    assert glue.write(str(tmp_path), files) == []
    assert {p: os.stat(tmp_path / p).st_mtime_ns for p in files} == stamp
    (tmp_path / glue.GENERATED_DIR / "stale.cpp").write_text("")
    assert glue.write(str(tmp_path), files, check=True) == [os.path.join(glue.GENERATED_DIR, "stale.cpp")]


def test_generated_files_are_up_to_date():
    proc = subprocess.run([sys.executable, "-m", "codegen", "check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)  # a hang guard: a cold trace cache under a loaded machine takes minutes
    assert proc.returncode == 0, proc.stdout + proc.stderr


BAD_MANIFESTS = {
    "unknown_key": ("- op: view\n  route: direct\n  imlp: at::native::view\n",
                    3 - 2, "key 'imlp'", "did you mean 'impl'"),
    "misspelled_op": ("- op: veiw\n  route: direct\n  impl: x\n",
                      1, "op 'veiw'", "did you mean 'view'"),
    "bad_route": ("- op: view\n  route: dierct\n  impl: x\n",
                  1, "key 'route'", "did you mean 'direct'"),
    "duplicate": ("- op: view\n  route: direct\n  impl: a\n"
                  "- op: view\n  route: direct\n  impl: b\n",
                  4, "op 'view'", "duplicate entry (first at line 1)"),
    "composite_implicit": ("- op: reshape\n  route: direct\n  impl: x\n",
                           1, "op 'reshape'", "replaces_decomposition"),
    "replaces_not_composite": ("- op: mm\n  route: direct\n  impl: x\n  replaces_decomposition: faster\n",
                               1, "key 'replaces_decomposition'", "remove 'replaces_decomposition'"),
    "replaces_without_reason": ("- op: lstm.input\n  route: direct\n  impl: x\n  replaces_decomposition: ''\n",
                                1, "key 'replaces_decomposition'", "say why"),
    "replaces_on_stub": ("- op: lstm.input\n  route: stub\n  stub: add_stub\n  kernel: k\n"
                         "  replaces_decomposition: faster\n",
                         1, "key 'replaces_decomposition'", "does not apply to route 'stub'"),
    "precheck_not_a_call": ("- op: dot\n  route: direct\n  impl: dot\n  precheck: dot_check\n",
                            1, "key 'precheck'", "e.g. precheck: mm_same_dtype(self, mat2)"),
    "precheck_unknown_argument": ("- op: dot\n  route: direct\n  impl: dot\n  precheck: dot_check(self, tensr)\n",
                                  1, "'tensr' is not an input of dot", "did you mean 'tensor'"),
    "precheck_on_composite": ("- op: repeat\n  route: composite\n  precheck: f(self)\n", 1, "key 'precheck'",
                              "does not apply to route 'composite'"),
    "bad_impl": ("- op: view\n  route: direct\n  impl: 'not a name'\n",
                 1, "key 'impl'", "needs 'impl', a C++ name"),
    "unknown_stub": ("- op: add.Tensor\n  route: stub\n  stub: add_stb\n  kernel: k\n",
                     1, "key 'stub'", "did you mean 'add_stub'"),
    "stub_without_kernel": ("- op: add.Tensor\n  route: stub\n  stub: add_stub\n",
                            1, "key 'kernel'", "route 'stub' needs 'kernel'"),
    "impl_on_stub_route": ("- op: add.Tensor\n  route: stub\n  stub: add_stub\n  kernel: k\n"
                           "  impl: f\n", 1, "key 'impl'", "does not apply to route 'stub'"),
    "unknown_elementwise_op": ("- op: exp\n  route: stub\n  stub: exp_stub\n  kernel: k\n"
                               "  elementwise: Epx\n", 1, "key 'elementwise'",
                               "did you mean 'Exp'"),
    # nan_to_num_stub takes std::optional<double>s: no generated kernel passes those.
    "elementwise_kernel_with_optional": ("- op: nan_to_num\n  route: stub\n  stub: nan_to_num_stub\n"
                                         "  kernel: k\n  elementwise: Exp\n", 1, "key 'elementwise'",
                                         "takes more than the TensorIterator and scalars"),
    "elementwise_on_direct_route": ("- op: view\n  route: direct\n  impl: f\n  elementwise: Exp\n",
                                    1, "key 'elementwise'", "does not apply to route 'direct'"),
    "shared_kernel_disagrees": ("- op: eq.Tensor\n  route: stub\n  stub: eq_stub\n  kernel: k\n"
                                "  elementwise: Eq\n- op: eq.Scalar\n  route: stub\n"
                                "  stub: eq_stub\n  kernel: k\n",
                                6, "key 'elementwise'", "which says elementwise: Eq"),
    "cpu_only_stub_op": ("- op: gelu\n  route: stub\n  stub: GeluKernel\n  kernel: k\n",
                         1, "key 'route'", "is CPU-only"),
    "structured_impl_of_unstructured_op": ("- op: _adaptive_avg_pool2d\n  route: direct\n"
                                           "  structured_impl: f\n",
                                           1, "key 'structured_impl'", "is not structured upstream"),
    "impl_and_structured_impl": ("- op: mm\n  route: direct\n  impl: f\n  structured_impl: g\n",
                                 1, "key 'impl'", "'impl' and 'structured_impl' both given"),
    "device_check_without_reason": ("- op: mm\n  route: direct\n  structured_impl: g\n"
                                    "  device_check: NoCheck\n",
                                    1, "key 'device_check'", "say why the op takes tensors"),
    "composite_without_decomposition": ("- op: mm\n  route: composite\n",
                                        1, "key 'route'", "no composite"),
    "fallback_of_composite": ("- op: linear\n  route: fallback\n",
                              1, "key 'route'", "use 'route: composite'"),
    "unknown_dtype": ("- op: view\n  route: direct\n  impl: f\n  dtypes: [float23]\n",
                      1, "key 'dtypes'", "did you mean 'float32'"),
    "arg_dtypes_unclassified": ("- op: gather\n  route: stub\n  stub: gather_stub\n"
                                "  kernel: k\n  dtypes: {self: [floating]}\n", 1, "key 'dtypes'",
                                "does not classify tensor input(s) index"),
    "arg_dtypes_unknown_argument": ("- op: gather\n  route: stub\n  stub: gather_stub\n"
                                    "  kernel: k\n  dtypes: {self: [floating], indx: all}\n", 1,
                                    "key 'dtypes'", "did you mean 'index'"),
    "arg_dtypes_empty": ("- op: view\n  route: direct\n  impl: f\n  dtypes: {}\n", 1,
                         "key 'dtypes'", "empty mapping"),
    "unknown_test_key": ("- op: view\n  route: direct\n  impl: f\n  tests: {opinfos: [view]}\n",
                         1, "key 'opinfos'", "did you mean 'opinfo'"),
    "xfail_without_reason": ("- op: view\n  route: direct\n  impl: f\n"
                             "  tests: {xfail: [{dtypes: [float32]}]}\n",
                             1, "key 'tests'", "needs a 'reason'"),
    "family_registered_twice": ("- op: add.Tensor\n  route: fallback\n"
                                "- op: add.out\n  route: fallback\n",
                                3, "op 'add.out'", "also registered by 'add.Tensor'"),
    "autocast_missing": ("- op: exp\n  route: stub\n  stub: exp_stub\n  kernel: k\n",
                         1, "key 'autocast'", "CUDA's autocast runs aten::exp under 'fp32'"),
    "autocast_unknown": ("- op: exp\n  route: stub\n  stub: exp_stub\n  kernel: k\n"
                         "  autocast: fp23\n", 1, "key 'autocast'", "did you mean 'fp32'"),
    "autocast_not_cudas": ("- op: exp\n  route: stub\n  stub: exp_stub\n  kernel: k\n"
                           "  autocast: lower_precision_fp\n", 1, "key 'autocast'",
                           "differs from CUDA's"),
    "autocast_reason_not_needed": ("- op: exp\n  route: stub\n  stub: exp_stub\n  kernel: k\n"
                                   "  autocast: {policy: fp32, reason: because}\n", 1,
                                   "key 'autocast'", "only for a policy that differs"),
    "autocast_on_out_op": ("- op: mm.out\n  route: direct\n  impl: f\n  autocast: fp32\n",
                           1, "key 'autocast'", "writes to its arguments"),
    "autocast_opt_dtype_without_dtype": ("- op: view\n  route: direct\n  impl: f\n"
                                         "  autocast: fp32_set_opt_dtype\n", 1,
                                         "key 'autocast'", "needs an optional dtype argument"),
    "custom_namespace": ("- op: mine::f\n  schema: \"(Tensor x) -> Tensor\"\n", 1, "key 'op'",
                         "live in the 'tpu' namespace"),
    "custom_bad_schema": ("- op: tpu::f\n  schema: \"(Tensor x, flaot y) -> Tensor\"\n"
                          "  impl: f\n  meta: f_meta\n", 1, "key 'schema'", "does not parse"),
    "custom_mutates_args": ("- op: tpu::f_\n  schema: \"(Tensor(a!) x) -> Tensor(a!)\"\n"
                            "  impl: f_\n  meta: f__meta\n  tags: [inplace]\n", 1,
                            "key 'mutates_args'", "the schema writes ['x']"),
    "custom_inplace_needs_tag": ("- op: tpu::f_\n  schema: \"(Tensor(a!) x) -> Tensor(a!)\"\n"
                                 "  mutates_args: [x]\n  impl: f_\n  meta: f__meta\n", 1,
                                 "key 'tags'", "needs tags: [inplace]"),
    "custom_unknown_tag": ("- op: tpu::f\n  schema: \"(Tensor x) -> Tensor\"\n  impl: f\n"
                           "  meta: f_meta\n  tags: [pt2_complaint_tag]\n", 1, "key 'tags'",
                           "did you mean 'pt2_compliant_tag'"),
    "custom_needs_derivatives": ("- op: tpu::f\n  schema: \"(Tensor x) -> Tensor\"\n  impl: f\n"
                                 "  meta: f_meta\n", 1, "key 'derivatives'", "needs 'derivatives'"),
    "custom_derivative_of_non_input": ("- op: tpu::f\n  schema: \"(Tensor x, float s) -> Tensor\"\n"
                                       "  impl: f\n  meta: f_meta\n  derivatives: {y: grad}\n", 1,
                                       "key 'derivatives'", "not a tensor input"),
    "custom_out_derivatives": ("- op: tpu::f.out\n  schema: \"(Tensor x, *, Tensor(a!) out) -> "
                               "Tensor(a!)\"\n  mutates_args: [out]\n  impl: f_out\n"
                               "  meta: f_out_meta\n  tags: [out]\n  derivatives: {x: grad}\n", 1,
                               "key 'derivatives'", "out= forms are not differentiable"),
    # Overloads declared without an entry (exclude: / upstream_kernel:).
    "autogen_as_entry": ("- op: _ctc_loss.out\n  route: direct\n  impl: x\n", 1, "key 'op'",
                         "generated by torchgen from the 'autogen:' list of '_ctc_loss'"),
    "exclude_without_reason": ("- exclude: _to_sparse\n", 1, "key 'reason'", "missing or empty"),
    "exclude_misspelled": ("- exclude: _to_sprase\n  reason: r\n", 1, "key 'exclude'",
                           "did you mean '_to_sparse'"),
    "exclude_and_entry": ("- op: view\n  route: direct\n  impl: at::native::view\n"
                          "- exclude: view\n  reason: r\n", 4, "key 'exclude'",
                          "the entry 'view' (line 1) registers it"),
    "upstream_kernel_without_composite": ("- upstream_kernel: _to_sparse\n  reason: r\n"
                                          "  handwritten: tests/test_ctc_loss.py\n", 1,
                                          "key 'upstream_kernel'", "no composite kernel"),
    "upstream_kernel_without_test": ("- upstream_kernel: _ctc_loss.out\n  reason: r\n", 1,
                                     "key 'handwritten'", "needs 'handwritten'"),
    "declared_twice": ("- exclude: _to_sparse\n  reason: r\n- exclude: _to_sparse\n  reason: r\n",
                       3, "op '_to_sparse'", "already declared at line 1"),
    "not_a_list": ("op: view\n", 1, "", "YAML list"),
    "bad_yaml": ("- op: view\n  route: [direct\n", 3, "", "not valid YAML"),
}


@pytest.mark.parametrize("case", sorted(BAD_MANIFESTS))
def test_bad_manifest_errors(tmp_path, case):
    text, line, subject, message = BAD_MANIFESTS[case]
    path = tmp_path / "ops.yaml"
    path.write_text(text)
    with pytest.raises(ManifestError) as info:
        manifest.load(str(path))
    err = str(info.value)
    assert err.startswith(f"{path}:{line}:"), err
    assert subject in err and message in err and "fix:" in err, err


def test_declared_overloads_load_apart_from_entries(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text("- op: view\n  route: direct\n  impl: at::native::view\n"
                    "- exclude: _to_sparse\n  reason: sparse\n"
                    "- upstream_kernel: _ctc_loss.out\n  reason: autogen\n"
                    "  handwritten: tests/test_ctc_loss.py\n")
    assert [e.op for e in manifest.load(str(path))] == ["view"]
    declared = manifest.load_declared(str(path))
    assert [(d.op, d.kind, d.line, d.reason) for d in declared] == [
        ("_ctc_loss.out", "upstream_kernel", 6, "autogen"), ("_to_sparse", "exclude", 4, "sparse")]
    assert declared[0].handwritten == "tests/test_ctc_loss.py"


def test_cli_reports_errors_without_traceback(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text("- op: veiw\n  route: direct\n  impl: x\n")
    proc = subprocess.run([sys.executable, "-m", "codegen", "generate", "--manifest", str(path),
                           "--root", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{path}:1: op 'veiw' key 'op'" in proc.stderr and "fix:" in proc.stderr


def test_new_op_scaffolding_suggests_route_stub_and_signature():
    from codegen.emit import scaffold

    text = scaffold.new_entry("mul.Tensor", None, None, [])
    assert "route: stub" in text and "stub: mul_stub" in text
    assert "elementwise: Mul" in text   # the kernel takes only the iterator: generated
    text = scaffold.new_entry("softplus", None, None, [])  # takes beta and threshold: passed on
    assert "elementwise: Softplus" in text
    assert "passing its scalars (const c10::Scalar&, const c10::Scalar&) in order" in text
    text = scaffold.new_entry("nan_to_num", None, None, [])  # optional<double>s: handwritten
    assert "elementwise" not in text.split("\n\n")[0]
    assert "std::optional<double>" in text
    text = scaffold.new_entry("mm", None, None, [])  # structured upstream: its family around meta()
    assert "route: direct" in text and "structured_impl: mm_out" in text
    assert "void mm_out(const at::Tensor & self, const at::Tensor & mat2, const at::Tensor & out);" in text
    text = scaffold.new_entry("_adaptive_avg_pool2d", "direct", None, [])  # not structured
    assert "impl: _adaptive_avg_pool2d" in text
    assert "at::Tensor _adaptive_avg_pool2d(const at::Tensor & self, at::IntArrayRef output_size);" in text
    assert "route: composite" in scaffold.new_entry("linear", None, None, [])
    entries = manifest.load(os.path.join(ROOT, "ops.yaml"))
    assert "already covered" in scaffold.new_entry("view", None, None, entries)
    with pytest.raises(ManifestError, match="did you mean 'view'"):
        scaffold.new_entry("veiw", None, None, [])


def test_formula_lines_point_at_the_manifest():
    """A C++ error in a derivatives formula is reported at its ops.yaml line:
    the generated code pastes each formula under #line <its line> "ops.yaml"."""
    import re

    path = os.path.join(ROOT, "csrc", "generated", "register_custom_ops.cpp")
    with open(path) as f:
        generated = f.read().splitlines()
    with open(os.path.join(ROOT, "ops.yaml")) as f:
        manifest_lines = f.read().splitlines()
    found = 0
    for i, line in enumerate(generated):
        m = re.match(r'#line (\d+) "ops.yaml"$', line)
        if not m:
            continue
        formula = re.match(r"\s*auto r = \((.*)\);$", generated[i + 1]).group(1)
        assert formula in manifest_lines[int(m.group(1)) - 1], (formula, m.group(1))
        assert generated[i + 2].startswith("#line ") and "register_custom_ops.cpp" in generated[i + 2]
        # (#line N names the line after the directive: 1-based i + 4)
        assert generated[i + 2] == f'#line {i + 4} "csrc/generated/register_custom_ops.cpp"'
        found += 1
    assert found >= 3
