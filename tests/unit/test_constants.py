"""Hypothesis's local constants are the user's, never evmstate's own, however evmstate was installed.

Hypothesis sometimes draws a literal from the source of the local modules loaded; evmstate's
modules are local in this editable install (and would not be in a wheel), so without
evmstate.search.constants the pool below would hold every literal of the library and the CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evmstate.search.constants import is_evmstate_file

# a fresh process: the pool only grows, and this one's holds what earlier tests loaded
POOL = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import importlib
    from evmstate_cli.launch import PRELOAD
    for name in PRELOAD[1:]:  # every module a run loads, the CLI's too (what the fork server preloads, but its tie)
        importlib.import_module(name)
    from evmstate.engine.loader import load_module
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import constants_from_module

    machine = load_module(Path(sys.argv[1]))
    ours = [m for m in list(sys.modules.values()) if m.__name__.startswith(("evmstate.", "evmstate_cli."))]
    pool = providers._get_local_constants()
    print(json.dumps({
        "pool": sorted(map(repr, pool)),
        "machine": sorted(map(repr, constants_from_module(machine))),
        "library": len({c for m in ours for c in constants_from_module(m)}),
        "files": [m.__file__ for m in ours],
    }))
    """
)


@pytest.mark.processes  # a fresh Python process
def test_the_pool_holds_the_machines_constants_and_none_of_evmstates(tmp_path: Path):
    machine = tmp_path / "machines" / "pool.py"
    machine.parent.mkdir()
    machine.write_text("from evmstate import strategy\n\nLIMIT = 7_340_033\namount = strategy('uint256', max_value=LIMIT)\n")
    done = subprocess.run([sys.executable, "-c", POOL, str(machine)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["library"] > 500, "evmstate's own modules hold hundreds of literals"
    assert "7340033" in found["machine"]
    assert found["pool"] == found["machine"]
    assert len(found["files"]) > 50 and all(is_evmstate_file(f) for f in found["files"])


def test_only_evmstates_own_files_are_left_out(tmp_path: Path):
    assert is_evmstate_file(sys.modules["evmstate.search.constants"].__file__)
    assert not is_evmstate_file(str(tmp_path / "machines" / "erc20.py"))
    assert not is_evmstate_file(str(Path(__file__).parents[2] / "machines" / "erc20.py"))  # the bundled project's
