"""kept_build (tests/conftest.py): a module's own copy of test contracts compiles once for every test process and run."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from evmstate import Project
from evmstate.config import CompilerConfig, Config

from ..conftest import BUILDS, kept_build

SOURCE = "x: public(uint256)\n\n@external\ndef set(v: uint256):\n    self.x = v\n"


def test_a_second_copy_compiles_nothing_and_another_setting_compiles_again(tmp_path: Path) -> None:
    name = f"kept-test-{uuid.uuid4().hex}"
    try:
        roots = []
        for copy in ("first", "second", "other"):
            root = tmp_path / copy
            (root / "contracts").mkdir(parents=True)
            (root / "contracts" / "Kept.vy").write_text(SOURCE)
            roots.append(root)
        first = kept_build(roots[0], name, lambda: Project(Config(root=roots[0])))
        assert first.build.compiled == ["Kept"]
        second = kept_build(roots[1], name, lambda: Project(Config(root=roots[1])))
        assert second.build.compiled == [] and second.build.artifacts["Kept"].bytecode == first.build.artifacts["Kept"].bytecode
        # the settings are part of the key: another optimize setting is compiled, and kept beside the first
        other = kept_build(roots[2], name, lambda: Project(Config(root=roots[2], compiler=CompilerConfig(optimize="codesize"))))
        assert other.build.compiled == ["Kept"]
        assert len(list((BUILDS / name).glob("Kept-*.json"))) == 2
        assert second.Kept.deploy().x() == 0
    finally:
        shutil.rmtree(BUILDS / name, ignore_errors=True)
        (BUILDS / f"{name}.lock").unlink(missing_ok=True)
