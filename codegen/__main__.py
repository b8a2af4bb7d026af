"""python -m codegen [generate|build|check]

  (no command)  generate from ops.yaml, then build incrementally (the usual loop)
  generate      write csrc/generated/ from ops.yaml
  build         same as no command
  check         validate ops.yaml and fail if csrc/generated/ is stale
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# The generator imports torch to find its headers; it must not autoload the
# torch_tpu backend it is about to (re)build. Set before anything imports torch.
os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"

from . import build as build_mod
from . import emit, manifest
from .errors import BuildError, ManifestError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="build",
                        choices=["generate", "build", "check"])
    parser.add_argument("--manifest", default=os.path.join(ROOT, "ops.yaml"))
    parser.add_argument("--root", default=ROOT, help="where csrc/generated/ lives")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="parallel compile jobs")
    args = parser.parse_args(argv)

    try:
        start = time.time()
        entries = manifest.load(args.manifest)
        files = emit.render(entries)
        if args.command == "check":
            stale = emit.write(args.root, files, check=True)
            if stale:
                print("[codegen] generated files are stale: " + ", ".join(stale) +
                      "\n  fix: run python -m codegen", file=sys.stderr)
                return 1
            print(f"[codegen] {len(entries)} ops in {os.path.relpath(args.manifest)}: "
                  "manifest valid, generated files up to date")
            return 0
        changed = emit.write(args.root, files)
        print(f"[codegen] {len(entries)} ops -> {emit.GENERATED_DIR}: "
              f"{len(changed)} file(s) changed ({time.time() - start:.2f} s)", flush=True)
        if args.command == "build":
            seconds = build_mod.build(args.root, args.jobs)
            print(f"[codegen] build done in {seconds:.1f} s")
        return 0
    except ManifestError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
