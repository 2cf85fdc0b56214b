"""The lists of modules whose code keys a cache resolve, every name of them, and a stale name raises."""

from __future__ import annotations

import pytest

from evmstate.files import code_digest, module_file
from evmstate.mutate import keys
from evmstate.search import corpus


@pytest.mark.parametrize("name", [*corpus.DRAWING, *keys.JUDGING, *keys.mutate_modules()])
def test_every_hashed_module_resolves(name):
    assert module_file(name).suffix == ".py"


def test_a_name_that_no_longer_resolves_raises():
    with pytest.raises(LookupError, match="evmstate.engine.machines is not a module"):
        code_digest(["evmstate.engine.program", "evmstate.engine.machines"])


def test_the_digests_follow_the_code(tmp_path, monkeypatch):
    (tmp_path / "hashed_here.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = code_digest(["hashed_here"])
    (tmp_path / "hashed_here.py").write_text("x = 2\n")
    assert code_digest(["hashed_here"]) != before
    assert code_digest(["hashed_here"], salt="0.1.0") != code_digest(["hashed_here"], salt="0.1.1")
