"""The house's shape: layers that import one way, no circles, modules and functions a reader can hold.

`lint-imports` checks the contracts in pyproject.toml (layers from the top, no import circles at any
package level, counting imports inside functions and under TYPE_CHECKING; the library never
imports the CLI). The rest is checked here with the standard library's ast.
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "evmstate"
CLI = REPO / "cli"
MODULES = sorted(LIBRARY.rglob("*.py"))
CLI_MODULES = sorted(CLI.rglob("*.py"))
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
# hot paths, kept whole on purpose: an opcode's handler and the state class it runs in (a call
# per instruction, where splitting would add calls); nothing else may go over
LONG_HOT_PATHS = frozenset({"evm/pyevm/opcodes.py:jumpi", "evm/pyevm/state.py:state_class"})
# the library modules the CLI may import: the facade, the events of each command, errors, config
MAX_CLI_IMPORTS = 6
# flat modules a folder may hold (its __init__ aside): past this, a concern gets a room (a package) of its own
MAX_FLAT_MODULES = {"": 14, "engine": 24, "evm": 6}


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[test]' installs import-linter")
    done = subprocess.run([lint, "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Contracts: 5 kept, 0 broken", done.stdout), done.stdout


def test_no_folder_holds_too_many_flat_modules():
    crowded = {}
    for folder, cap in MAX_FLAT_MODULES.items():
        flat = sorted(p.name for p in (LIBRARY / folder).glob("*.py") if p.name != "__init__.py")
        if len(flat) > cap:
            crowded[folder or "evmstate/"] = f"{len(flat)} modules (at most {cap}): {flat}"
    assert not crowded, crowded


def test_no_module_is_too_long():
    long = {_shown(p): n for p in MODULES if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once per test process: the checks below walk every module of the library."""
    return ast.parse(path.read_text())


def long_functions(paths: list[Path], limit: int = MAX_FUNCTION_LINES, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Functions (with their decorators) over limit lines, as "path:line name (n lines)"; allowed names "path:name" that may be."""
    long = []
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                lines = node.end_lineno - first + 1
                if lines > limit and f"{_shown(path)}:{node.name}" not in allowed:
                    long.append(f"{_shown(path)}:{node.lineno} {node.name} ({lines} lines)")
    return long


def library_imports(paths: list[Path]) -> list[str]:
    """The evmstate modules the files import, at any depth (in functions and under TYPE_CHECKING too): `from evmstate import config` is evmstate.config."""
    found = set()
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.split(".")[0] == "evmstate"}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "evmstate":
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    folder = LIBRARY.joinpath(*sub.split(".")[1:])
                    found.add(sub if folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file() else node.module)
    return sorted(found)


def private_imports(paths: list[Path]) -> list[str]:
    """Names starting with one underscore imported from another module of the package."""
    found = []
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("evmstate")):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{_shown(path)}:{node.lineno} imports {alias.name} from {'.' * node.level}{node.module or ''}")
    return found


def _shown(path: Path) -> str:
    return path.relative_to(LIBRARY).as_posix() if path.is_relative_to(LIBRARY) else path.name


def test_no_function_is_too_long():
    long = long_functions(MODULES + CLI_MODULES, allowed=LONG_HOT_PATHS)
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long)
    # the allowlist names only what is still long: a hot path shortened leaves it
    still = {f"{p}:{n}" for p, n in (entry.split(":") for entry in LONG_HOT_PATHS) if long_functions([LIBRARY / p])}
    assert still == LONG_HOT_PATHS, f"no longer over {MAX_FUNCTION_LINES} lines, take them out of LONG_HOT_PATHS: {sorted(LONG_HOT_PATHS - still)}"


def test_the_cli_enters_the_library_through_few_modules():
    """The CLI imports the facade (runner), the events of the commands, errors and config: not the engine's parts."""
    found = library_imports(CLI_MODULES)
    assert len(found) <= MAX_CLI_IMPORTS, f"cli/ imports {len(found)} evmstate modules (at most {MAX_CLI_IMPORTS}): {found}"
    assert "evmstate.runner" in found


def test_no_private_name_is_imported_from_another_module():
    found = private_imports(MODULES)
    assert not found, "\n".join(found)


def test_the_checks_above_see_what_they_look_for(tmp_path):
    """The private-import, length and CLI-import checks find a planted case (they are not vacuous)."""
    planted = tmp_path / "planted.py"
    body = "    x = 1\n" * (MAX_FUNCTION_LINES - 2)
    planted.write_text(
        "from .abi import _signature, __version__\n"
        "from evmstate.compiler.sources import _plan\n"
        "from os import _exit\n"
        f"@decorated\ndef long():\n{body}    return x\n"  # the decorator's line counts: one line over
        f"def short():\n{body}    return x\n"  # exactly at the limit
        f"def hot():\n{body}    x += 1\n    return x\n"  # one over, and allowed
        "def imports():\n"
        "    import evmstate.engine.item, hypothesis\n"
        "    from evmstate import config as c, __version__, engine\n"
        "    from evmstate.engine import events\n"
        "    from evmstate.runner import run\n"
        "    from . import render\n"
    )
    assert private_imports([planted]) == ["planted.py:1 imports _signature from .abi", "planted.py:2 imports _plan from evmstate.compiler.sources"]
    assert long_functions([planted], allowed=frozenset({"planted.py:hot"})) == [f"planted.py:5 long ({MAX_FUNCTION_LINES + 1} lines)"]
    assert long_functions([planted]) == [f"planted.py:5 long ({MAX_FUNCTION_LINES + 1} lines)", f"planted.py:{2 * MAX_FUNCTION_LINES + 5} hot ({MAX_FUNCTION_LINES + 1} lines)"]
    # `from evmstate import __version__` is the package itself; `engine` a subpackage
    assert library_imports([planted]) == ["evmstate", "evmstate.compiler.sources", "evmstate.config", "evmstate.engine", "evmstate.engine.events", "evmstate.engine.item", "evmstate.runner"]
