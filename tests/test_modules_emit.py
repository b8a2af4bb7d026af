"""The generator of the ModuleInfo tests (codegen/testgen/module_tests.py) and the
xfail matching of their harness (tests/module_harness.py): one case per
module, dtype and mode; known failures become strict xfails; a stale or
malformed tests/module_xfails.yaml is refused with file:line."""

import os

import pytest

from codegen.testgen import module_tests
from codegen.errors import ManifestError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FACTS = (
    module_tests.ModuleFacts("nn.Linear", ("float32", "float64"), False,
                             (("float32/train", 3), ("float64/train", 3))),
    module_tests.ModuleFacts("nn.BatchNorm1d", ("float32", "float64"), True,
                             (("float32/train", 8), ("float32/eval", 8), ("float64/train", 8),
                              ("float64/eval", 8))),
    module_tests.ModuleFacts("nn.HalfOnly", ("float16",), False, ()),
)


def plan(tmp_path, xfails: str):
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / module_tests.XFAILS_PATH).write_text(xfails)
    return {p.facts.name: p for p in module_tests.plans(FACTS, root=str(tmp_path))}


def test_cases_per_dtype_and_mode(tmp_path):
    plans = plan(tmp_path, "")
    assert [(c.dtype, c.mode, c.inputs) for c in plans["nn.Linear"].cases] == [
        ("float32", "", 3), ("float64", "", 3)]
    assert [(c.dtype, c.mode) for c in plans["nn.BatchNorm1d"].cases] == [
        ("float32", "train"), ("float32", "eval"), ("float64", "train"), ("float64", "eval")]
    assert all(c.inputs == module_tests.MAX_INPUTS for c in plans["nn.BatchNorm1d"].cases)
    assert not plans["nn.HalfOnly"].cases and "float16" in plans["nn.HalfOnly"].untested
    counts = module_tests.counts(list(plans.values()))
    assert (counts["tested"], counts["unreached"], counts["cases"], counts["xfail"]) == (2, 1, 6, 0)


def test_xfails_become_strict_and_narrow(tmp_path):
    plans = plan(tmp_path, 'nn.Linear: {reason: "aten::addmm has no tpu kernel", '
                           "raises: NotImplementedError}\n"
                           "nn.BatchNorm1d:\n  reason: wrong running_var\n  raises: AssertionError\n"
                           "  dtypes: [float64]\n  modes: [eval]\n")
    assert {(c.xfail, c.raises) for c in plans["nn.Linear"].cases} == {
        ("aten::addmm has no tpu kernel", "NotImplementedError")}
    assert [(c.dtype, c.mode) for c in plans["nn.BatchNorm1d"].cases if c.xfail] == [
        ("float64", "eval")]
    files = module_tests.render(str(tmp_path), FACTS)
    text = files[module_tests.PATH]
    compile(text, module_tests.PATH, "exec")
    assert ("case('nn.BatchNorm1d', 'float64', mode='eval', inputs=3, xfail='wrong running_var', "
            "raises='AssertionError')") in text
    assert "#   nn.HalfOnly: no float32 or float64" in text
    assert files == module_tests.render(str(tmp_path), FACTS)


X = "{reason: x, raises: AssertionError}"


@pytest.mark.parametrize("text, line, message", [
    (f"nn.Linear: {X}\nnn.Linaer: {X}\n", 2, "'nn.Linaer' names no ModuleInfo"),
    (f"nn.HalfOnly: {X}\n", 1, "has no generated test"),
    ("nn.Linear:\n  reason: x\n  raises: RuntimeError\n  dtypes: [float16]\n", 1, "no float16 case"),
    ("nn.Linear:\n  reason: x\n  raises: RuntimeError\n  modes: [eval]\n", 1,
     "train and eval do not differ"),
    ("nn.BatchNorm1d:\n  reason: x\n  raises: RuntimeError\n  modes: [test]\n", 1,
     "unknown mode 'test'"),
    ("nn.Linear:\n  reson: x\n", 1, "unknown key 'reson'"),
    ("nn.Linear: {reason: '', raises: RuntimeError}\n", 1, "the reason is missing"),
    ("nn.Linear: x\n", 1, "expected a mapping with reason, raises"),
    ("nn.Linear: {reason: x}\n", 1, "does not name the exception it expects"),
    ("nn.Linear: {reason: x, raises: RuntimeErorr}\n", 1, "did you mean 'RuntimeError'"),
    (f"nn.Linear: {X}\nnn.Linear: {X}\n", 2, "duplicate entry (first at line 1)"),
])
def test_bad_or_stale_xfails_are_refused(tmp_path, text, line, message):
    with pytest.raises(ManifestError) as info:
        plan(tmp_path, text)
    assert info.value.line == line and message in str(info.value), str(info.value)
    assert "module_xfails.yaml" in str(info.value)


def test_every_module_db_entry_is_planned():
    """The repository's plan covers the whole module_db, and every xfail is live."""
    facts = module_tests.load()
    plans = module_tests.plans(facts, root=ROOT)
    assert sorted(p.facts.name for p in plans) == sorted(m.name for m in facts)
    assert all(p.cases or p.untested for p in plans)


def test_xfail_is_satisfied_only_by_the_failure_it_names():
    from module_harness import matches

    e = NotImplementedError("The operator 'aten::mse_loss.out' has no tpu kernel. To add one")
    assert matches("aten::mse_loss.out has no tpu kernel", "NotImplementedError", e)
    assert matches("aten::mse_loss.out has no tpu kernel", "Exception", e)  # a base class
    assert not matches("aten::huber_loss has no tpu kernel", "NotImplementedError", e)
    assert not matches("aten::mse_loss has no tpu kernel", "NotImplementedError", e)
    assert not matches("aten::mse_loss.out_ has no tpu kernel", "NotImplementedError", e)
    assert not matches("output differs", "AssertionError", e)
    assert matches("values differ in the last ModuleInput", "AssertionError", AssertionError("x"))
