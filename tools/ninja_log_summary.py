"""Summarise a clean build from its .ninja_log: wall time, summed compile
time and the slowest objects.

    python tools/ninja_log_summary.py [build/.ninja_log] [--top N]

Reads the log's first ninja run (a clean build's; later runs, such as the
tests building tpu_kernels_tests, append runs of their own). Per-object
times rank the objects the same way on a loaded or a quiet machine, where
the wall-clock time does not; their sum is the CPU time the build needs.
The budget (docs/install.md, "Building"): a clean `python -m codegen` in
at most 300 s on a quiet 2-core machine.
"""
from __future__ import annotations

import argparse
import pathlib


def first_run(path: pathlib.Path) -> list[tuple[int, int, str]]:
    """(start ms, end ms, output) of the log's first ninja run.

    Ninja appends a line when a command ends, with times since its own start,
    so end times only grow within a run and fall back at the next one.
    """
    entries: list[tuple[int, int, str]] = []
    last_end = -1
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if line.startswith("#") or len(parts) < 4:
            continue
        start, end = int(parts[0]), int(parts[1])
        if end < last_end:
            break
        last_end = end
        entries.append((start, end, parts[3]))
    return entries


def last_runs(path: pathlib.Path) -> list[tuple[int, int, str]]:
    """Every output's last run (a log ninja has recompacted has no run order)."""
    last: dict[str, tuple[int, int, str]] = {}
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if not line.startswith("#") and len(parts) >= 4:
            last[parts[3]] = (int(parts[0]), int(parts[1]), parts[3])
    return list(last.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", nargs="?", default="build/.ninja_log")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--all", action="store_true",
                        help="every output's last run instead of the first ninja run (no wall time)")
    args = parser.parse_args()
    entries = (last_runs if args.all else first_run)(pathlib.Path(args.log))
    objects = {out: (end - start) / 1000.0 for start, end, out in entries if out.endswith((".o", ".gch"))}
    wall = max((end for _, end, _ in entries), default=0) / 1000.0
    print(("" if args.all else f"clean build: {wall:.0f} s wall (ninja), ") + f"{len(objects)} objects, "
          f"{sum(objects.values()):.0f} s summed compile time")
    print(f"slowest {args.top}:")
    for out, secs in sorted(objects.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{secs:8.1f} s  {out}")


if __name__ == "__main__":
    main()
