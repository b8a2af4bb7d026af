"""Differential fuzzing (tests/fuzz_programs.py) in the suite: every saved
regression program agrees with CPU, and a time-bounded run of new random
programs finds no difference. The run's seeds change daily (or come from
TORCH_TPU_FUZZ_SEED) and are printed, so any failure reproduces with
`python tests/fuzz_programs.py --seconds 0 --seed N` or from the shrunk
program it saves in tests/fuzz_regressions/."""

import datetime
import glob
import json
import os

import pytest

import fuzz_programs

SECONDS = float(os.environ.get("TORCH_TPU_FUZZ_SECONDS", "20"))


def _regressions():
    for path in sorted(glob.glob(os.path.join(fuzz_programs.REGRESSIONS, "*.json"))):
        with open(path) as f:
            program = json.load(f)
        marks = [pytest.mark.xfail(reason=program["xfail"], strict=True)] if "xfail" in program else []
        yield pytest.param(program, id=os.path.basename(path)[:-5], marks=marks)


@pytest.mark.parametrize("program", _regressions())
def test_saved_program_agrees_with_cpu(program):
    assert fuzz_programs.run(program, skip_known=False) is None


def test_random_programs_agree_with_cpu():
    default = int(datetime.date.today().strftime("%Y%m%d")) * 1000
    seed = int(os.environ.get("TORCH_TPU_FUZZ_SEED", default))
    report = fuzz_programs.fuzz(SECONDS, seed)
    print(f"fuzz: {report['programs']} programs, {report['steps']} steps {report['outcomes']}, "
          f"seeds {report['seeds']}")
    assert report["outcomes"]["compared"] > report["programs"]  # most programs run several steps
    assert not report["failures"], json.dumps(report["failures"], indent=1)
