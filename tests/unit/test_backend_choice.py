"""Choosing the backend: [backend] in evmstate.toml, and a clear error when revm is asked for but not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.evm.revm import backend as revm_mod
from evmstate.evm.pyevm.backend import PyEVMBackend
from evmstate.config import BackendConfig, Config
from evmstate.errors import ConfigError, UsageError
from evmstate.evm.factory import make_backend


def load(tmp_path: Path, text: str) -> Config:
    (tmp_path / "evmstate.toml").write_text(text)
    return config_mod.load(tmp_path)


def test_the_backend_is_read_from_evmstate_toml(tmp_path):
    assert load(tmp_path, "").backend == BackendConfig("pyevm", False)
    assert load(tmp_path, '[backend]\nname = "revm"\ncheck = true\n').backend == BackendConfig("revm", True)


def test_an_unknown_backend_is_a_config_error_that_names_the_choices(tmp_path):
    with pytest.raises(ConfigError, match=r"\[backend\] name = 'rvm' is not a backend; use \"pyevm\" \(the default\) or \"revm\". Did you mean 'revm'\?"):
        load(tmp_path, '[backend]\nname = "rvm"\n')
    with pytest.raises(ConfigError, match=r"is not a backend; use \"pyevm\" \(the default\) or \"revm\".$"):
        load(tmp_path, '[backend]\nname = "geth"\n')
    with pytest.raises(ConfigError, match=r"\[backend\] check must be true or false, such as false \(the default\); got str .yes."):
        load(tmp_path, '[backend]\ncheck = "yes"\n')


def test_py_evm_is_the_default(tmp_path):
    assert type(make_backend(Config(root=tmp_path))) is PyEVMBackend


def test_asking_for_revm_without_pyrevm_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(revm_mod, "pyrevm", None)
    for backend in (BackendConfig("revm"), BackendConfig("pyevm", check=True)):
        with pytest.raises(UsageError) as info:
            make_backend(Config(root=tmp_path, backend=backend))
        assert str(info.value) == (
            'the revm backend needs pyrevm, which is not installed: pip install "evmstate[revm]" '
            "(pyrevm has wheels for CPython 3.10 to 3.12); or use the default backend, pyevm"
        )
