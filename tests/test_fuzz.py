"""Differential fuzzing (tests/fuzz_programs.py) in the suite: every saved
regression program agrees with CPU, and a fixed number of random programs
(4,000, about 15 s on 2 cores) finds no difference. The seeds start at a
fixed one, so CI checks the same programs on every machine (as a pull
request's check should); set TORCH_TPU_FUZZ_SEED (e.g. to today's date) and
TORCH_TPU_FUZZ_PROGRAMS for new programs, as a nightly job would. A failure
prints its seed and saves its shrunk program in tests/fuzz_regressions/."""

import glob
import json
import os

import pytest

import fuzz_programs
from known_failures import xfail as known_failure

PROGRAMS = int(os.environ.get("TORCH_TPU_FUZZ_PROGRAMS", "4000"))


def _regressions():
    for path in sorted(glob.glob(os.path.join(fuzz_programs.REGRESSIONS, "*.json"))):
        with open(path) as f:
            program = json.load(f)
        # A saved known difference names the exception its replay raises
        # ("raises", e.g. AssertionError for values that differ).
        marks = [known_failure(program["xfail"], program.get("raises", ""))] if "xfail" in program else []
        yield pytest.param(program, id=os.path.basename(path)[:-5], marks=marks)


@pytest.mark.parametrize("program", _regressions())
def test_saved_program_agrees_with_cpu(program):
    assert fuzz_programs.run(program, skip_known=False) is None


def test_random_programs_agree_with_cpu():
    seed = int(os.environ.get("TORCH_TPU_FUZZ_SEED", "20261204000"))
    report = fuzz_programs.fuzz(PROGRAMS, seed)
    assert report["programs"] == PROGRAMS
    print(f"fuzz: {report['programs']} programs, {report['steps']} steps {report['outcomes']}, "
          f"seeds {report['seeds']}")
    assert report["outcomes"]["compared"] > report["programs"]  # most programs run several steps
    assert not report["failures"], json.dumps(report["failures"], indent=1)
