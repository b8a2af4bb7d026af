"""`python -m codegen test`: runs the generated OpInfo tests (tests/generated/)
in a pytest subprocess and writes build/generated_test_results.json with the
outcome of every entry and check, for the coverage table:

    {"exit_code": 0, "seconds": 12.3, "counts": {"passed": 140, ...},
     "entries": {"add.Tensor": {"route": "stub", "line": 120, "untested": "",
                 "checks": {"values": {"outcome": "passed",
                                       "counts": {"passed": 5, ...},
                                       "tests": [{"id": ..., "opinfo": "add",
                                                  "dtype": "float32",
                                                  "outcome": "passed",
                                                  "message": ""}, ...]},
                            "meta": {...},
                            "out": {"outcome": "n/a", "why": "..."}}}}}

A check's outcome is "failed" if any of its tests failed, else "passed" if
any passed, else "xfailed", else "skipped"; "not run" if none of its tests
ran (deselected with -k), "not generated" (why: a gap, see
op_tests.gaps/untested) or "n/a" (why: see op_tests.not_applicable).

This module is also the pytest plugin (-p codegen.testgen.runner) that records
the outcomes in the subprocess; it imports nothing heavy at module level.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Dict, List
from .. import paths

RESULTS_PATH = os.path.join("build", "generated_test_results.json")
_RAW_ENV = "TORCH_TPU_GENERATED_TEST_RAW"
OUTCOMES = ("passed", "failed", "xfailed", "skipped")


def run(root: str, entries, extra: List[str] = (), results: str = "") -> int:
    """Runs pytest on tests/generated/ (extra: more pytest arguments) and writes
    the results JSON. Returns pytest's exit code (0 if nothing is generated)."""
    from . import op_tests  # here, not at the top: pytest loads this module as a plugin

    results = results or os.path.join(root, RESULTS_PATH)
    os.makedirs(os.path.dirname(results), exist_ok=True)
    raw_path = f"{results}.{os.getpid()}.raw"
    tests_dir = os.path.join(root, op_tests.TESTS_DIR)
    start = time.time()
    raw: Dict[str, dict] = {}
    if os.path.isdir(tests_dir) and any(n.endswith(".py") for n in os.listdir(tests_dir)):
        env = dict(os.environ)
        # python -m codegen turns backend autoload off for itself; the tests need it.
        env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
        env[_RAW_ENV] = raw_path
        here = paths.ROOT  # for -p codegen...
        env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in [env.get("PYTHONPATH")] if p])
        cmd = [sys.executable, "-m", "pytest", tests_dir, "-p", "codegen.testgen.runner",
               *extra]
        code = subprocess.call(cmd, cwd=root, env=env)
        try:
            with open(raw_path) as f:
                raw = json.load(f)
            os.remove(raw_path)
        except (OSError, ValueError):
            raw = {}
    else:
        print("[codegen] no generated tests (tests/generated/ is empty)", flush=True)
        code = 0
    seconds = time.time() - start
    report = summarize(entries, raw, op_tests.plans(entries))
    report.update(exit_code=code, seconds=round(seconds, 1))
    with open(results, "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
        f.write("\n")
    counts = ", ".join(f"{n} {k}" for k, n in report["counts"].items() if n)
    print(f"[codegen] generated tests: {counts or 'none ran'} in {seconds:.1f} s -> "
          f"{os.path.relpath(results, root)}", flush=True)
    return code


def _outcome(counts: Dict[str, int]) -> str:
    for outcome in ("failed", "passed", "xfailed", "skipped"):
        if counts.get(outcome):
            return outcome
    return "not run"


def summarize(entries, raw: Dict[str, dict], plans) -> dict:
    """Per entry and check, from the plugin's per-test records (raw) and the
    generator's plans (what was generated, and why not)."""
    by_entry: Dict[str, Dict[str, List[dict]]] = {}
    for rec in raw.values():
        by_entry.setdefault(rec["entry"], {}).setdefault(rec["check"], []).append(rec)
    total = {k: 0 for k in OUTCOMES}
    out: Dict[str, dict] = {}
    for p in plans:
        e = p.entry
        checks = {}
        planned = {c.check for c in p.cases}
        for check in ("values", "meta", "out", "reference", "grad", "errors"):
            if check in p.not_applicable:
                checks[check] = {"outcome": "n/a", "why": p.not_applicable[check]}
                continue
            if check not in planned:
                why = p.untested or p.gaps.get(check, "not generated")
                checks[check] = {"outcome": "not generated", "why": why}
                continue
            tests = sorted(by_entry.get(e.op, {}).get(check, []), key=lambda r: r["id"])
            counts = {k: sum(1 for t in tests if t["outcome"] == k) for k in OUTCOMES}
            for k, n in counts.items():
                total[k] += n
            checks[check] = {"outcome": _outcome(counts), "counts": counts,
                             "tests": [{k: t[k] for k in ("id", "opinfo", "dtype", "outcome",
                                                          "message")} for t in tests]}
        info = {"route": e.route, "line": e.line, "untested": p.untested, "checks": checks}
        if p.gaps.get("dtypes"):
            info["dtypes_not_tested"] = p.gaps["dtypes"]
        out[e.op] = info
    return {"counts": total, "entries": out}


# --- the pytest plugin (runs inside the pytest subprocess) -------------------

_records: Dict[str, dict] = {}


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("case") if callspec else None
        if case is None or not hasattr(case, "entry"):
            continue
        _records[item.nodeid] = {"id": case.id, "entry": case.entry.op, "check": case.check,
                                 "opinfo": case.opinfo_name, "dtype": case.dtype,
                                 "outcome": "not run", "message": ""}


def _message(report) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None:
        return str(crash.message)[:1000]
    return str(getattr(report, "longrepr", "") or "")[:1000]


def pytest_runtest_logreport(report):
    rec = _records.get(report.nodeid)
    if rec is None:
        return
    if report.failed:  # any phase: setup, call, or teardown (e.g. the leak check)
        rec["outcome"], rec["message"] = "failed", _message(report)
    elif rec["outcome"] == "failed":
        return
    elif report.skipped and hasattr(report, "wasxfail"):
        rec["outcome"], rec["message"] = "xfailed", str(report.wasxfail)
    elif report.skipped:
        rec["outcome"] = "skipped"
        longrepr = report.longrepr
        rec["message"] = str(longrepr[2]) if isinstance(longrepr, tuple) else _message(report)
    elif report.when == "call" and report.passed:
        rec["outcome"] = "passed"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get(_RAW_ENV)
    if path:
        with open(path, "w") as f:
            json.dump(_records, f)
