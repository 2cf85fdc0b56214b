"""The linter and the type checker, run as the suite's own tests (as lint-imports is).

ruff: pyflakes' rules, syntax errors and `raise ... from` inside `except` (pyproject.toml's
[tool.ruff]) over the library, the CLI, the tests and the benchmarks. mypy: over the library,
against a baseline of the errors it had when it was first run (mypy-baseline.txt beside this
file). A new error fails; so does a baseline line that no longer occurs, so that the baseline
only shrinks. Lines are keyed without their line numbers, so that moving code keeps them.
ruff also checks the 120-column limit (E501) over the library and the CLI, not over the tests and the
benchmarks (pyproject.toml's per-file-ignores).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASELINE = Path(__file__).with_name("mypy-baseline.txt")
# mypy's cache, kept between runs of the suite on one machine (a cold run takes about 15 s), one per
# checkout: two mypy processes sharing a cache may fail each other
CACHE = Path(tempfile.gettempdir()) / f"evmstate-mypy-cache-{hashlib.sha256(str(REPO).encode()).hexdigest()[:12]}"


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]' installs it")
    return found


def test_ruff_finds_nothing():
    done = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def keyed(output: str) -> Counter[str]:
    """mypy's error lines as "path: message  [code]", without line numbers (notes left out)."""
    found: Counter[str] = Counter()
    for line in output.splitlines():
        m = re.match(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<rest>.*)$", line)
        if m:
            found[f"{m['path']}: {m['rest']}"] += 1
    return found


def test_mypy_finds_no_error_beyond_its_baseline():
    done = subprocess.run(
        [_tool("mypy"), "evmstate", "--cache-dir", str(CACHE), "--no-error-summary", "--hide-error-context", "--no-pretty"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: mypy itself failed
    now = keyed(done.stdout)
    baseline = keyed_baseline()
    new = now - baseline
    gone = baseline - now
    assert not new, "mypy errors not in tests/unit/mypy-baseline.txt (fix them):\n" + "\n".join(sorted(new.elements()))
    assert not gone, "fixed: take these lines out of tests/unit/mypy-baseline.txt:\n" + "\n".join(sorted(gone.elements()))


def keyed_baseline() -> Counter[str]:
    return Counter(line for line in BASELINE.read_text().splitlines() if line and not line.startswith("#"))


def test_every_type_ignore_names_its_code():
    bare = [
        f"{path.relative_to(REPO)}:{n}"
        for folder in ("evmstate", "cli")
        for path in sorted((REPO / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"#\s*type:\s*ignore(?!\[)", line)
    ]
    assert not bare, "a `# type: ignore` without its [code]: " + ", ".join(bare)


def test_the_baseline_key_reads_mypy_lines():
    """keyed() is not vacuous: it reads errors, leaves notes out and drops line and column numbers."""
    out = (
        "evmstate/a.py:3: error: Incompatible types  [assignment]\n"
        "evmstate/a.py:9:5: error: Incompatible types  [assignment]\n"
        "evmstate/a.py:9: note: See https://mypy.rtfd.io\n"
    )
    assert keyed(out) == Counter({"evmstate/a.py: Incompatible types  [assignment]": 2})

