"""python -m codegen [command]

  (none)     generate, then build incrementally: the usual loop after editing ops.yaml
  generate   write csrc/generated/ (C++) and tests/generated/ (tests) from ops.yaml
  build      same as no command
  test       run the generated tests; results in build/generated_test_results.json
  coverage   write docs/coverage.md (routes, dtypes, tests, Core ATen IR summary)
  check      validate ops.yaml and the claims it makes against the installed torch;
             fail if anything generated (or docs/coverage.md) is stale
  new OP     print a manifest entry and kernel skeleton for a new operator
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# The generator imports torch to find its headers; it must not autoload the
# torch_tpu backend it is about to (re)build. Set before anything imports torch.
os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"

from .emit import build as build_mod  # noqa: E402
from .proofs import closure  # noqa: E402
from .testgen import contracts, custom_op_tests  # noqa: E402
from .report import coverage, document  # noqa: E402
from .emit import glue, scaffold  # noqa: E402
from .model import manifest  # noqa: E402
from .proofs import stub_check  # noqa: E402
from .testgen import module_tests, runner, op_tests  # noqa: E402
from .errors import BuildError, ManifestError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = ("generate", "build", "test", "coverage", "check", "new")


def log(message: str) -> None:
    print(f"[codegen] {message}", flush=True)


def write_generated(args, entries, check: bool = False) -> list:
    """C++ into csrc/generated/, tests into tests/generated/; returns what
    changed (or, with check, what is stale)."""
    customs = manifest.load_custom(args.manifest)
    tests = op_tests.render(entries, manifest_path=os.path.relpath(args.manifest))
    tests.update(contracts.render(entries))
    tests.update(custom_op_tests.render(customs))
    tests.update(module_tests.render(args.root))
    excluded = [d.op for d in manifest.load_declared(args.manifest) if d.kind == "exclude"]
    return glue.write(args.root, glue.render(entries, customs, excluded), check=check) + op_tests.write(
        args.root, tests, check=check)


def cmd_generate(args, entries) -> int:
    start = time.time()
    changed = write_generated(args, entries)
    log(f"{len(entries)} ops -> csrc/generated, tests/generated: {len(changed)} file(s) "
        f"changed ({time.time() - start:.2f} s)")
    return 0


def cmd_build(args, entries) -> int:
    cmd_generate(args, entries)
    seconds = build_mod.build(args.root, args.jobs, build_dir=args.build_dir,
                              output_dir=args.output_dir)
    log(f"build done in {seconds:.1f} s")
    return 0


def cmd_test(args, entries) -> int:
    cmd_generate(args, entries)
    return runner.run(args.root, entries, extra=args.rest)


def cache_dir(args) -> str:
    return os.path.join(args.root, "build", "codegen_cache")


def cmd_coverage(args, entries) -> int:
    start = time.time()
    path = os.path.join(args.root, coverage.COVERAGE_PATH)
    changed = document.write(path, entries, cache_dir=cache_dir(args),
                             customs=manifest.load_custom(args.manifest),
                             declared=manifest.load_declared(args.manifest))
    log(f"{coverage.COVERAGE_PATH} {'written' if changed else 'up to date'} "
        f"({time.time() - start:.1f} s)")
    return 0


def cmd_check(args, entries) -> int:
    problems = []
    stale = write_generated(args, entries, check=True)
    if stale:
        problems.append("generated files are stale: " + ", ".join(stale) +
                        "\n  fix: run python -m codegen")
    manifest_path = os.path.relpath(args.manifest)
    problems += stub_check.problems(entries, cache_dir=cache_dir(args), manifest_path=manifest_path)
    skipped = stub_check.skipped(entries, cache_dir=cache_dir(args))
    problems += closure.problems(entries, root=args.root, manifest_path=manifest_path)
    if document.check_stale(os.path.join(args.root, coverage.COVERAGE_PATH), entries,
                            cache_dir=cache_dir(args),
                            customs=manifest.load_custom(args.manifest),
                            declared=manifest.load_declared(args.manifest)):
        problems.append(f"{coverage.COVERAGE_PATH} is stale\n  fix: run python -m codegen coverage")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 1
    log(f"{len(entries)} entries in {manifest_path}: manifest valid, stub claims "
        f"{'not checked (' + skipped + ')' if skipped else 'confirmed in libtorch_cpu.so'}, "
        "composite closures proven, generated files and coverage up to date")
    return 0


def cmd_new(args, entries) -> int:
    if not args.rest:
        print("usage: python -m codegen new OP [--route ROUTE] [--stub STUB]", file=sys.stderr)
        return 2
    print(scaffold.new_entry(args.rest[0], args.route, args.stub, entries))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="build", choices=COMMANDS)
    parser.add_argument("rest", nargs="*", help="new: the op; test: extra pytest arguments")
    parser.add_argument("--manifest", default=os.path.join(ROOT, "ops.yaml"))
    parser.add_argument("--root", default=ROOT, help="the checkout to generate into")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="parallel compile jobs")
    parser.add_argument("--build-dir", default=None,
                        help="build: CMake's build directory (default: build/)")
    parser.add_argument("--output-dir", default=None,
                        help="build: where the extension goes (default: torch_tpu/)")
    parser.add_argument("--route", default=None, help="new: route of the new entry")
    parser.add_argument("--stub", default=None, help="new: DispatchStub of a stub entry")
    args, unknown = parser.parse_known_args(argv)
    args.rest = list(args.rest) + unknown
    try:
        entries = manifest.load(args.manifest)
        return globals()[f"cmd_{args.command}"](args, entries)
    except ManifestError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
