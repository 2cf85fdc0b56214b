"""Every example in docs/ runs, and every public name, setting, command and option is documented.

The code blocks of each page run in order, in one namespace, inside a copy of the bundled
project (contracts/, machines/, evmstate.toml) that is the current folder:

- ```python            executed
- ```pycon             doctest: each >>> line runs and its output must match (... matches anything)
- ```python file=PATH  (also toml, vyper) written to PATH in the project, for later blocks to use
- ```console           each "$ evmstate ..." (or "$ pytest ...") line runs the command; the lines under it must match
                       (... matches anything); "# exit N" at the end of the command checks its exit code
- ```text              shown, not run (terminal captures)
"""

from __future__ import annotations

import contextlib
import doctest
import re
import shlex
import shutil
import tomllib
from dataclasses import fields
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import evmstate
from evmstate import config as config_mod
from evmstate.errors import EvmStateError
from evmstate.strategies import _BOUNDS
from evmstate.engine.events import ExitCode
from evmstate_cli.main import cli

from ..conftest import copy_example, kept_mutant_compiles
from ..forked_pytest import run_pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.M | re.S)
RUN = ("python", "pycon", "console")
KINDS = (*RUN, "text", "toml", "vyper")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def blocks(page: Path) -> list[tuple[str, dict[str, str], str, int]]:
    """(language, options such as file=..., code, line) of each fenced block of a page."""
    text = page.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        info = m.group(1).split()
        language = info[0] if info else ""
        options = dict(part.split("=", 1) for part in info[1:] if "=" in part)
        found.append((language, options, m.group(2), text.count("\n", 0, m.start()) + 1))
    return found


@pytest.fixture(scope="session")
def docs_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundled project, compiled once per worker; each page starts from it as it was."""
    root = copy_example(tmp_path_factory.mktemp("docs-project"))
    evmstate.Project.load(root)
    return root


def _matches(expected: str, got: str) -> bool:
    return doctest.OutputChecker().check_output(expected, got, FLAGS)


# the plain progress line `evmstate mutate` prints every 30 s where its output is not a terminal
PROGRESS = re.compile(r"^… \d+/\d+ mutants judged\n", re.M)


def _console(code: str, where: str) -> None:
    runner = CliRunner()
    commands: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    assert commands, f"{where}: a console block without a command"
    for command, expected in commands:
        exit_code = 0
        m = re.search(r"\s+# exit (\d+)$", command)
        if m:
            exit_code, command = int(m.group(1)), command[: m.start()]
        argv = shlex.split(command)
        assert argv[0] in ("evmstate", "pytest"), f"{where}: only evmstate and pytest commands run here, not {argv[0]!r}"
        if argv[0] == "pytest":
            code, output, _ = run_pytest(["-p", "no:xdist", *argv[1:]])
        else:
            result = runner.invoke(cli, argv[1:], standalone_mode=False)
            code, output = result.exit_code, result.output
        if argv[0] == "evmstate" and result.exception is not None and not isinstance(result.exception, SystemExit):
            # as main() does: evmstate's errors are printed and exit 2
            assert isinstance(result.exception, EvmStateError), f"{where}: `{command}` raised {result.exception!r}"
            code, output = 2, output + f"error: {result.exception}\n"
        assert code == exit_code, f"{where}: `{command}` exited {code}, not {exit_code}:\n{output}"
        want = "\n".join(expected).strip() + "\n"
        if not PROGRESS.search(want):
            # a progress line shows only when a command runs past 30 s (a busy machine): not part of what a page shows
            output = PROGRESS.sub("", output)
        if want.strip():
            assert _matches(want, output), f"{where}: `{command}` printed\n{output}\nexpected\n{want}"


# pages whose examples compile with vyper releases installed from the package index
NETWORK_PAGES = {"vyper-0.3.md"}
# pages whose examples fork the chain of a node: an anvil started for them, its URL put for this one
NODE_PAGES = {"fork.md"}
NODE_URL = "http://127.0.0.1:8545"


def _starts_processes(page: Path) -> bool:
    """Whether a page runs pytest, or evmstate with worker processes (-n, fuzz)."""
    return page.name in NODE_PAGES or re.search(r"^\$ (pytest|evmstate fuzz|evmstate .* -n \d)", page.read_text(encoding="utf-8"), re.M) is not None


@pytest.mark.parametrize("page", [pytest.param(p, id=p.name, marks=[pytest.mark.processes] * _starts_processes(p) + [pytest.mark.network] * (p.name in NETWORK_PAGES)) for p in PAGES])
def test_every_example_of_the_page_runs(page: Path, docs_project: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    if page.name in NETWORK_PAGES:
        monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(request.getfixturevalue("legacy_cache")))
    url = NODE_URL
    if page.name in NODE_PAGES:
        from tests.fork.nodes import Anvil

        node = Anvil(request.getfixturevalue("anvil_binary"))
        request.addfinalizer(node.stop)
        url = node.url
    # the worker's copy, made as new again but for the build cache (keyed on paths, so not copied)
    root = docs_project
    for entry in root.iterdir():
        if entry.name not in ("contracts", ".evmstate"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    for entry in (root / ".evmstate").iterdir():
        if entry.name != "build":
            shutil.rmtree(entry)
    shutil.rmtree(root / "contracts")
    shutil.copytree(REPO / "contracts", root / "contracts")
    shutil.copytree(REPO / "machines", root / "machines")
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=FLAGS)
    # the mutants a page compiles (`evmstate mutate`) kept for the next run, as tests/quality/test_mutate.py keeps its own:
    # each judged again, not compiled again
    mutates = re.search(r"^\$ evmstate mutate", page.read_text(encoding="utf-8"), re.M) is not None
    with kept_mutant_compiles(root, f"kept-mutants-docs-{page.stem}") if mutates else contextlib.nullcontext():
        for language, options, code, line in blocks(page):
            code = code.replace(NODE_URL, url)
            where = f"{page.relative_to(REPO)}:{line}"
            assert language in KINDS, f"{where}: unknown block kind {language!r}; use one of {', '.join(KINDS)}"
            if "file" in options:
                target = root / options["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(code, encoding="utf-8")
            elif language == "python":
                exec(compile(code, where, "exec"), namespace)
            elif language == "pycon":
                test = parser.get_doctest(code, namespace, where, str(page), line)
                report: list[str] = []
                result = runner.run(test, out=report.append, clear_globs=False)
                namespace.update(test.globs)  # DocTest works on a copy
                assert result.failed == 0, f"{where}: a doctest failed:\n" + "".join(report)
            elif language == "console":
                _console(code, where)
            else:
                assert language == "text", f"{where}: a {language} block must say which file it is (```{language} file=PATH)"
    assert not (root / ".hypothesis").exists()


def _run_code() -> str:
    """The code of every block that runs (or is written to a file that runs)."""
    return "\n".join(code for page in PAGES for language, options, code, _ in blocks(page) if language in RUN or "file" in options)


def test_every_public_name_is_documented_with_an_example() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    code = _run_code()
    for name in evmstate.__all__:
        assert re.search(rf"^#+ .*`{name}", text, re.M), f"docs/: no heading documents {name}"
        assert re.search(rf"\b{name}\b", code), f"docs/: no example uses {name}"


def test_every_setting_is_documented_in_a_loaded_evmstate_toml() -> None:
    documented: dict[str, set[str]] = {}
    for page in PAGES:
        for language, options, code, _ in blocks(page):
            if language == "toml" and options.get("file", "").endswith("evmstate.toml"):
                for section, values in tomllib.loads(code).items():
                    documented.setdefault(section, set()).update(values)
    for section, cls in config_mod.SECTIONS.items():
        missing = {f.name for f in fields(cls) if not f.metadata.get("internal")} - documented.get(section, set())
        assert not missing, f"docs/: [{section}] {', '.join(sorted(missing))} appear in no evmstate.toml example"


def test_every_strategy_keyword_is_used_in_an_example() -> None:
    code = _run_code()
    for keyword in sorted(set().union(*_BOUNDS.values())):
        assert re.search(rf"\b{keyword}=", code), f"docs/: no strategy() example uses {keyword}="


def _commands(group: click.Group, prefix: str = "evmstate") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in group.commands.items():
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found += _commands(command, f"{prefix} {name}")
    return found


def test_every_command_option_and_exit_code_is_documented() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    code = _run_code()
    for path, command in _commands(cli):
        assert re.search(rf"^#+ `{path}", text, re.M), f"docs/cli.md: no heading for `{path}`"
        assert path in code, f"docs/: no example runs `{path}`"
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in param.opts:
                    assert opt in text, f"docs/cli.md: `{path}` option {opt} is not documented"
    for code_ in ExitCode:
        assert re.search(rf"^\| {int(code_)} \|", text, re.M), f"docs/cli.md: exit code {int(code_)} ({code_.name}) is not in the table"


def test_the_pytest_plugin_is_documented() -> None:
    text = (DOCS / "pytest.md").read_text(encoding="utf-8")
    for name in ("accounts", "chain", "state_machine", "evmstate_machine", "evmstate_project", "--only-stateful", "--no-stateful", "-p no:evmstate"):
        assert name in text, f"docs/pytest.md: {name} is not documented"


def test_the_terminal_capture_shows_n_of_n_while_searching_and_while_shrinking() -> None:
    capture = (DOCS / "terminal.md").read_text(encoding="utf-8")
    assert re.search(r"searching, examples \d+/\d+", capture)
    assert re.search(r"shrinking, examples \d+/\d+, best \d+ steps?, \d+ runs tried", capture)
    assert "Ctrl-C keeps the shortest failing program found so far" in capture
