"""A build for another torch fails early with one clear message."""

import json

import pytest

import torch_tpu
from torch_tpu import _extension


def test_matching_build_loads():
    _extension._check_build_info()  # the build under test matches the running torch


def test_mismatched_torch_version_is_reported(tmp_path, monkeypatch):
    info = json.loads(open(f"{_extension._HERE}/_build_info.json").read())
    info["torch_version"] = "2.99.0"
    (tmp_path / "_build_info.json").write_text(json.dumps(info))
    (tmp_path / "_C.cpython-311-x86_64-linux-gnu.so").write_text("")
    monkeypatch.setattr(_extension, "_HERE", str(tmp_path))
    with pytest.raises(ImportError, match=r"built against a different torch.*2\.99\.0.*python -m codegen"):
        _extension._check_build_info()


def test_unbuilt_extension_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(_extension, "_HERE", str(tmp_path))
    with pytest.raises(_extension.ExtensionNotBuilt, match="python -m codegen"):
        _extension._check_build_info()


def test_autoload_shim_warns_instead_of_breaking_import_torch(monkeypatch):
    import _torch_tpu_autoload

    def not_built(*a, **k):
        raise _extension.ExtensionNotBuilt("not built")

    import builtins
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "torch_tpu":
            not_built()
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.warns(RuntimeWarning, match="not usable"):
        _torch_tpu_autoload.load()
    assert torch_tpu is not None
