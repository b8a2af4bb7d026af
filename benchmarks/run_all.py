"""Runs every benchmark (benchmarks/bench_*.py with a run() returning rows)
and prints the tables (results also in benchmarks/results/).

    python benchmarks/run_all.py [name ...]     # e.g. copy train_gpt
"""

import glob
import importlib
import os
import sys

from common import print_table, save

TITLES = {
    "host_overhead": "Host-side overhead (ratio = tpu / cpu)",
    "copy": "Copy bandwidth (ratio = tpu time / host memcpy time)",
}


def main(names):
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(os.path.basename(p)[len("bench_"):-3] for p in glob.glob(os.path.join(here, "bench_*.py")))
    for name in names or found:
        if name not in found:
            sys.exit(f"no benchmark {name!r}; have: {', '.join(found)}")
        mod = importlib.import_module(f"bench_{name}")
        rows = mod.run()
        print_table(getattr(mod, "TITLE", TITLES.get(name, f"{name} (ratio = tpu / cpu)")), rows)
        save(name, rows)


if __name__ == "__main__":
    main(sys.argv[1:])
