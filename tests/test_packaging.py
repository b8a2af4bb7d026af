"""Packaging (setup.py, pyproject.toml, MANIFEST.in): what pip builds and
installs is a working torch_tpu.

- The staging step of every wheel never packs build output from the source
  tree (a developer's torch_tpu/_C*.so, a previous build's leftovers).
- The sdist holds everything the build needs, and no generated code.
- The installed package (README's first command, `pip install ".[test]"`,
  builds a wheel in pip's isolated build environment and installs it into
  this one) runs the quickstart and a smoke run of its parts
  (tests/installed_smoke.py) from outside the source tree; its extension links only against torch's libraries and the
  C/C++ runtime, with no path of the build machine; its metadata pins the
  torch it was built against. A developer's editable install has no wheel to
  check: those tests say so and skip (CI always has the wheel).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from importlib import metadata

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Besides torch's own libraries: the C and C++ runtimes every Linux has.
SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0",
               "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2"}


def run(cmd, cwd, **kw):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


def test_wheel_staging_never_packs_build_output_from_the_source_tree(tmp_path):
    lib = tmp_path / "lib"
    (lib / "torch_tpu").mkdir(parents=True)
    (lib / "torch_tpu" / "left_by_an_old_build.py").write_text("raise ImportError\n")
    planted = os.path.join(ROOT, "torch_tpu", "_C.planted-stale-build.so")
    with open(planted, "w") as f:
        f.write("not an ELF file")
    try:
        run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(tmp_path),
             "build_py", "--build-lib", str(lib)], cwd=ROOT)
    finally:
        os.remove(planted)
    staged = sorted(os.path.relpath(p, lib) for p in glob.glob(str(lib / "**" / "*"), recursive=True)
                    if os.path.isfile(p))
    assert not [p for p in staged if p.endswith(".so") or p.endswith("_build_info.json")], staged
    assert "torch_tpu/left_by_an_old_build.py" not in staged
    for needed in ["_torch_tpu_autoload.py", "torch_tpu/__init__.py", "torch_tpu/_compile/inductor.py",
                   "torch_tpu/tpu/graphs.py", "torch_tpu/program.py", "torch_tpu/distributed/process_group.py"]:
        assert needed in staged, f"{needed} missing from the wheel's staging folder"
    assert not [p for p in staged if p.split("/")[0] in ("tests", "codegen", "csrc", "build")], staged


def test_sdist_holds_what_the_build_needs_and_nothing_generated(tmp_path):
    # --egg-base: the metadata goes to tmp_path, not into the checkout.
    run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(tmp_path),
         "sdist", "--dist-dir", str(tmp_path)], cwd=ROOT)
    (archive,) = glob.glob(str(tmp_path / "*.tar.gz"))
    with tarfile.open(archive) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ["ops.yaml", "CMakeLists.txt", "setup.py", "pyproject.toml", "codegen/cli.py",
                   "csrc/runtime/runtime.h", "csrc/kernels/README.md", "tests/module_xfails.yaml",
                   "torch_tpu/__init__.py", "examples/quickstart.py"]:
        assert needed in names, f"{needed} missing from the sdist"
    leaked = [n for n in names if n.startswith(("csrc/generated/", "tests/generated/", "build/"))
              or n.endswith((".so", ".pyc", "_build_info.json"))]
    assert not leaked, leaked


def installed_distribution():
    """The pip-installed torch_tpu, or a skip naming why there is none."""
    # pip's install has a RECORD; an egg-info a setup.py command left in the
    # checkout (on sys.path as the current directory) has none.
    dists = [d for d in metadata.distributions(name="torch_tpu") if d.read_text("RECORD")]
    if not dists:
        pytest.skip("torch_tpu is not installed by pip here")
    dist = dists[0]
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    if direct.get("dir_info", {}).get("editable"):
        pytest.skip("torch_tpu is an editable install here (a developer's checkout): no wheel to "
                    "check; CI installs one with README's first command")
    return dist


def test_installed_wheel_links_only_against_torch_and_the_c_runtime():
    dist = installed_distribution()
    (module,) = [dist.locate_file(f) for f in dist.files if re.fullmatch(r"torch_tpu/_C.*\.so", str(f))]
    dynamic = run(["readelf", "-d", str(module)], cwd=ROOT)
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic))
    torch_libs = set(os.listdir(os.path.join(os.path.dirname(torch.__file__), "lib")))
    assert needed and needed <= torch_libs | SYSTEM_LIBS, needed - torch_libs - SYSTEM_LIBS
    paths = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library (?:rpath|runpath): \[(.+?)\]", dynamic)
    assert all(p.startswith("$ORIGIN") for entry in paths for p in entry.split(":")), paths


def test_installed_wheel_pins_the_torch_it_was_built_against_and_ships_no_sources():
    dist = installed_distribution()
    built = json.loads(dist.locate_file("torch_tpu/_build_info.json").read_text())
    assert built["torch_version"] == torch.__version__
    # Runtime requirements: those without an `extra == "test"` marker.
    runtime = [r for r in (dist.requires or []) if "extra ==" not in r]
    assert sorted(runtime) == sorted([f"torch=={torch.__version__.split('+')[0]}", "scipy-openblas32>=0.3.28"]), runtime
    tops = {str(f).split("/")[0] for f in dist.files}
    assert tops <= {"torch_tpu", "_torch_tpu_autoload.py", "__pycache__", f"{dist.name}-{dist.version}.dist-info",
                    f"torch_tpu-{dist.version}.dist-info"}, tops


def test_test_extra_keeps_the_cpu_torch_and_a_matching_torchvision():
    # pip install ".[test]" brings transformers and timm, and timm brings
    # torchvision: none of them may replace the torch the extension was
    # built against, and torchvision must be the one that requires it.
    assert torch.__version__.startswith("2.13.0") and torch.version.cuda is None, torch.__version__
    for name in ("transformers", "timm", "torchvision"):
        dist = metadata.distribution(name)
        pins = [r for r in (dist.requires or []) if r.replace(" ", "").startswith("torch") and "extra" not in r]
        for pin in pins:
            spec = pin.replace(" ", "")[len("torch"):].strip("()")
            if spec.startswith("=="):
                assert spec == "==" + torch.__version__.split("+")[0], (name, pin)


def test_installed_wheel_runs_the_quickstart_and_a_smoke_run_outside_the_checkout(tmp_path):
    dist = installed_distribution()
    package = os.path.dirname(str(dist.locate_file("torch_tpu/__init__.py")))
    # -I: no current directory, script directory or PYTHONPATH on sys.path, so
    # only the installed package can be imported.
    where = run([sys.executable, "-I", "-c", "import torch, torch_tpu; print(torch_tpu.__file__)"], cwd=tmp_path)
    assert os.path.dirname(where.strip()) == package and not package.startswith(ROOT), (where, package)
    shutil.copy(os.path.join(ROOT, "examples", "quickstart.py"), tmp_path)
    assert "equal" in run([sys.executable, "-I", "quickstart.py"], cwd=tmp_path)
    # The suite itself runs on the checkout's build; the wheel gets a smoke
    # run of each of its parts (the script says which).
    shutil.copy(os.path.join(ROOT, "tests", "installed_smoke.py"), tmp_path)
    out = run([sys.executable, "-I", "installed_smoke.py"], cwd=tmp_path)
    assert f"torch_tpu from {package}" in out and "installed smoke: 5 checks ok" in out, out[-2000:]


def test_torch_header_snapshot_rewrites_only_the_files_whose_bytes_differ(tmp_path):
    """codegen/emit/torch_headers.py: the extension compiles against a copy of
    torch's headers, so the wheel's build (pip's isolated torch) and the
    developer build (the virtualenv's torch) see the same paths and mtimes,
    and switching between them relinks only."""
    from codegen.emit import torch_headers

    def tree(root, files):
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)

    first, second, build = tmp_path / "env1", tmp_path / "env2", tmp_path / "build"
    tree(first, {"c10/a.h": "a", "c10/b.h": "b", "torch/gone.h": "g"})
    build.mkdir()
    snap = torch_headers.sync(str(first), str(build))
    assert sorted(os.path.relpath(os.path.join(r, n), snap) for r, _, ns in os.walk(snap) for n in ns) == \
        ["c10/a.h", "c10/b.h", "torch/gone.h"]
    old = 1_000_000_000
    for rel in ("c10/a.h", "c10/b.h"):
        os.utime(os.path.join(snap, rel), ns=(old, old))
    # another environment: the same a.h (newer mtime), a changed b.h, no gone.h
    tree(second, {"c10/a.h": "a", "c10/b.h": "b2"})
    assert torch_headers.sync(str(second), str(build)) == snap
    assert os.stat(os.path.join(snap, "c10/a.h")).st_mtime_ns == old
    assert os.stat(os.path.join(snap, "c10/b.h")).st_mtime_ns != old
    with open(os.path.join(snap, "c10/b.h")) as f:
        assert f.read() == "b2"
    assert not os.path.exists(os.path.join(snap, "torch/gone.h"))
