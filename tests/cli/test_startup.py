"""What an `evmstate` process imports before it does anything: each command imports what it uses.

`evmstate --help`, `--version`, every command's `--help`, a mistyped option, `failures`, `init` and a
missing failure record load none of Hypothesis, vyper, py-evm, pyrevm, eth-abi or eth-utils (about
2 s of CPU together); a run of one machine on py-evm loads neither pyrevm nor py-evm's BLS12-381
precompiles nor what only other commands use. Checked on the modules loaded (sys.modules at exit),
not on a time: benchmarks/startup.py measures the time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ..conftest import copy_example, evmstate_exe

pytestmark = pytest.mark.processes  # each check is a fresh Python process: what it imported is the point

# the heavy dependencies; py_ecc, eth_keys and pydantic come only with them
HEAVY = ("hypothesis", "vyper", "eth", "pyrevm", "eth_abi", "eth_utils", "eth_keys", "py_ecc", "pydantic")
# what a run of one machine on py-evm, with a warm build cache, has no use for
NOT_FOR_A_RUN = (
    "pyrevm",
    "py_ecc.optimized_bls12_381",
    "py_ecc.bls",
    "evmstate.evm.revm",
    "evmstate.mutate",
    "evmstate.export",
    "evmstate.scaffold",
    "evmstate.properties",
    "evmstate.scale",
    "evmstate.compiler.differential",
    "evmstate.engine.replay",
    "evmstate_cli.render_campaign",
    "evmstate_cli.render_mutate",
)


# the console script's entry point (pyproject.toml: evmstate_cli.launch:main) run as `evmstate ARGS`, the modules
# loaded written at exit (the engine captures sys.stderr while a machine runs, so -X importtime would miss some)
ENTRY = textwrap.dedent(
    """
    import atexit, json, sys
    out = sys.argv[1]
    atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
    sys.argv = ["evmstate", *sys.argv[2:]]
    from evmstate_cli.launch import main
    main()
    """
)


def imported(args: list[str], cwd: Path) -> tuple[int, set[str], str]:
    """The exit status of `evmstate ARGS` (the installed command's entry point), every module it loaded, and its stderr."""
    out = cwd / ".modules.json"
    done = subprocess.run([sys.executable, "-c", ENTRY, str(out), *args], cwd=cwd, capture_output=True, text=True)
    return done.returncode, set(json.loads(out.read_text())), done.stderr


def heavy_of(modules: set[str]) -> list[str]:
    return sorted({name.split(".")[0] for name in modules} & set(HEAVY))


def test_evmstate_help_imports_none_of_the_heavy_dependencies(tmp_path: Path):
    done = subprocess.run([evmstate_exe(), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "Usage: evmstate" in done.stdout  # the installed command, as a user runs it
    code, modules, _ = imported(["--help"], tmp_path)
    assert code == 0
    assert "click" in modules and "evmstate_cli.main" in modules  # the check sees what the command imports
    assert heavy_of(modules) == []


# every light command in one process, as the console script runs each (cli/launch.py), the heavy modules that each
# loaded first; sys.modules only grows, so a command that loads one is named whatever ran before it
LIGHT = textwrap.dedent(
    """
    import json, sys
    from evmstate_cli.launch import main
    from evmstate_cli.main import cli

    HEAVY = set(sys.argv[1].split(","))
    commands = [["--help"], ["--version"], ["failures"], ["init", "fresh"], ["run", "--no-such-option"], ["replay", "--last"]]
    commands += [[name, "--help"] for name in sorted(cli.commands)] + [["failures", "rm", "--help"], ["failures", "prune", "--help"]]
    found = []
    for args in commands:
        sys.argv = ["evmstate", *args]
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code
        heavy = sorted({m.split(".")[0] for m in sys.modules} & HEAVY)
        found.append([args, code, heavy])
    sys.stdout = sys.__stdout__
    print("\\n" + json.dumps(found))
    """
)


def test_help_version_failures_init_and_usage_errors_import_none_of_the_heavy_dependencies(tmp_path: Path):
    done = subprocess.run([sys.executable, "-c", LIGHT, ",".join(HEAVY)], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    codes = {" ".join(args): code for args, code, _ in found}
    assert codes["--help"] == codes["--version"] == codes["failures"] == codes["init fresh"] == 0
    assert codes["run --no-such-option"] == codes["replay --last"] == 2  # a usage error; no failure is saved
    assert len(found) >= 15 and all(codes[f"{name} --help"] == 0 for name in ("run", "fuzz", "mutate", "replay", "shrink", "export", "compile"))
    assert (tmp_path / "fresh" / "evmstate.toml").is_file()  # init wrote the project
    loaded = {" ".join(args): heavy for args, _, heavy in found if heavy}
    assert loaded == {}, f"commands that imported heavy dependencies (each named by the first that did): {loaded}"


def test_failures_lists_and_run_of_one_machine_imports_only_what_it_uses(tmp_path: Path):
    project = copy_example(tmp_path / "project")
    code, modules, err = imported(["failures"], project)
    assert code == 0, err
    assert heavy_of(modules) == []
    run = ["run", "machines/erc20.py", "--max-examples", "1", "--steps", "1", "--seed", "0", "--fresh", "-q", "--backend", "pyevm"]
    code, modules, err = imported(run, project)
    assert code == 0, err
    assert {"hypothesis", "eth", "evmstate.evm.pyevm.backend", "evmstate.engine.item"} <= modules  # it ran a machine on py-evm
    assert sorted(m for m in modules if m.startswith(NOT_FOR_A_RUN)) == []


# a pytest process, its modules written at exit as ENTRY writes the command's
PYTEST = textwrap.dedent(
    """
    import atexit, json, sys
    out = sys.argv[1]
    atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
    import pytest
    sys.exit(pytest.main(sys.argv[2:]))
    """
)


def test_pytest_outside_an_evmstate_project_pays_nothing_for_the_plugin(tmp_path: Path):
    # the plugin is registered wherever evmstate is installed (pytest11): in a suite that is no evmstate project it
    # loads no engine and none of the heavy dependencies (Hypothesis's own plugin loads Hypothesis either way)
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    loaded = {}
    for name, extra in (("with", []), ("without", ["-p", "no:evmstate"])):
        out = tmp_path / f"{name}.json"
        done = subprocess.run([sys.executable, "-c", PYTEST, str(out), "-q", "-p", "no:cacheprovider", *extra, "test_plain.py"], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        loaded[name] = set(json.loads(out.read_text()))
    assert "evmstate.pytest_plugin" in loaded["with"] and "evmstate.pytest_plugin" not in loaded["without"]
    assert heavy_of(loaded["with"]) == heavy_of(loaded["without"])
    added = loaded["with"] - loaded["without"]
    assert not {m for m in added if m.startswith(("evmstate.engine.", "evmstate.search.", "evmstate.contracts", "evmstate.evm"))} - {"evmstate.engine.events", "evmstate.search.canaries"}
