"""The house's shape: layers that import one way, no circles, modules and functions a reader can hold.

`lint-imports` checks the contracts in pyproject.toml (layers from the top, no import circles at any
package level, counting imports inside functions and under TYPE_CHECKING; the library never
imports the CLI). The rest is checked here with the standard library's ast.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "evmstate"
MODULES = sorted(LIBRARY.rglob("*.py"))
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 100


def _shown(path: Path) -> str:
    return path.relative_to(LIBRARY).as_posix()


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[test]' installs import-linter")
    done = subprocess.run([lint, "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Contracts: 3 kept, 0 broken", done.stdout), done.stdout


def test_no_module_is_too_long():
    long = {_shown(p): n for p in MODULES if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_too_long():
    long = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                lines = node.end_lineno - first + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{_shown(path)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "functions over 100 lines:\n" + "\n".join(long)


def test_no_private_name_is_imported_from_another_module():
    found = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("evmstate")):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{_shown(path)}:{node.lineno} imports {alias.name} from {'.' * node.level}{node.module or ''}")
    assert not found, "\n".join(found)


def test_the_checks_above_see_what_they_look_for(tmp_path):
    """The private-import and length checks find a planted case (they are not vacuous)."""
    planted = ast.parse("from .abi import _signature\n" + "def f():\n" + "    x = 1\n" * 120)
    imports = [a.name for n in ast.walk(planted) if isinstance(n, ast.ImportFrom) for a in n.names]
    assert imports == ["_signature"]
    func = next(n for n in ast.walk(planted) if isinstance(n, ast.FunctionDef))
    assert func.end_lineno - func.lineno + 1 > MAX_FUNCTION_LINES
