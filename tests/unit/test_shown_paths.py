"""Where a source line is shown from: a project's sources relative to the current folder, evmstate's own from the
package, wherever it is installed (a failure's identity and report then read the same on every machine)."""

from __future__ import annotations

from pathlib import Path

from evmstate.compiler.artifacts import _shown_path
from evmstate.contracts import actors


def test_evmstates_own_sources_are_named_from_the_package_from_any_folder(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _shown_path(str(actors.SOURCE)) == "evmstate/contracts/builtin/EvmstateActor.vy"
    (tmp_path / "contracts").mkdir()
    own = tmp_path / "contracts" / "Bank.vy"
    assert _shown_path(str(own)) == "contracts/Bank.vy"  # a project's, from where the user runs
    assert _shown_path("/elsewhere/Bank.vy") == "/elsewhere/Bank.vy" and _shown_path("contracts/Bank.vy") == "contracts/Bank.vy"
