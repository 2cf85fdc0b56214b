"""A corpus of broken machine files, loaded as a run loads them (discovery, then each machine's settings):
syntax errors, other encodings, imports that fail, bad strategies, bad settings, wrong signatures,
a broken deployments file.

Each is an error that names the file and the line or the machine's member, with the user's words and
no traceback of evmstate's own: a run shows it and exits 2. None compiles anything; the few that need
contracts (a contract no source defines) run through the command at the end.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest

from evmstate.config import Config, ProjectConfig
from evmstate.engine.discovery import discover
from evmstate.errors import MachineDefinitionError

IMPORT = "from evmstate import Bundle, StateMachine, rule, invariant, strategy\n\n"
RULE = "    def rule_a(self):\n        pass\n"


def machine(body: str, head: str = "") -> str:
    return IMPORT + head + "class M:\n" + body + ("" if "def rule" in body else RULE)


# (id, the file's text or bytes, what the message must hold: its file and line, or the machine's member)
CASES: list[tuple[str, str | bytes, str]] = [
    # syntax
    ("syntax-missing-colon", "class M:\n    def rule_a(self)\n        pass\n", "m.py:2"),
    ("syntax-indent", "class M:\n    def rule_a(self):\n    pass\n", "m.py:3"),
    ("syntax-unclosed-paren", "x = (1,\nclass M:\n" + RULE, "m.py:1"),
    ("syntax-bad-token", "class M:\n    def rule_a(self):\n        return 1 +* 2\n", "m.py:3"),
    ("syntax-tabs-and-spaces", "class M:\n    def rule_a(self):\n\tpass\n        pass\n", "m.py:3"),
    ("syntax-return-outside", "return 5\n", "m.py:1"),
    ("syntax-fstring", 'x = f"{"\n', "m.py:1"),
    ("syntax-unclosed-string", 'x = "abc\n', "m.py:1"),
    ("syntax-duplicate-argument", "class M:\n    def rule_a(self, x, x):\n        pass\n", "m.py:2"),
    # encodings
    ("bytes-latin1-comment", b"# caf\xe9\nclass M:\n    def rule_a(self):\n        pass\n", "m.py:1: cannot import: SyntaxError: cannot read: byte 0xe9 at line 1, column 6"),
    ("bytes-latin1-line-5", b"class M:\n    def rule_a(self):\n        pass\n\n# \xff\n", "m.py:5: cannot import: SyntaxError: cannot read: byte 0xff at line 5, column 3"),
    ("bytes-null", b"class M:\x00\n    def rule_a(self):\n        pass\n", "m.py:1: cannot import: SyntaxError: cannot read: a null byte (\\x00) at line 1, column 9"),
    ("bytes-utf16", codecs.BOM_UTF16_LE + "class M:\n    pass\n".encode("utf-16-le"), "m.py: cannot import: SyntaxError: cannot read: the file is UTF-16 text"),
    ("bytes-unknown-coding", b"# -*- coding: klingon -*-\nclass M:\n    pass\n", "m.py: cannot import: SyntaxError: cannot read: unknown encoding: klingon"),
    # imports that fail, and what runs at import
    ("import-missing-module", "import nothere_xyz\n" + machine(""), "m.py:1: cannot import: ModuleNotFoundError: No module named 'nothere_xyz'"),
    ("import-missing-name", "from evmstate import nothere\n" + machine(""), "m.py:1: cannot import: ImportError"),
    ("import-missing-hypothesis-name", "from hypothesis.strategies import nothere\n", "m.py:1: cannot import: ImportError"),
    ("import-relative-beyond", "from .. import x\n", "m.py:1: cannot import: ImportError"),
    ("import-helper-raises", "import _broken_helper\n", "m.py:1: cannot import: RuntimeError: the helper is broken"),
    ("raise-at-import", "raise RuntimeError('boom')\n", "m.py:1: cannot import: RuntimeError: boom"),
    ("exit-at-import", "import sys\nsys.exit(0)\n", "m.py:2: cannot import: SystemExit: 0"),
    ("exit-3-at-import", "import sys\nsys.exit(3)\n", "m.py:2: cannot import: SystemExit: 3"),
    ("recursion-at-import", "def f():\n    return f()\nf()\n", "m.py:2: cannot import: RecursionError"),
    ("name-error-at-import", "class M:\n    x = undefined_name\n" + RULE, "m.py:2: cannot import: NameError: name 'undefined_name' is not defined"),
    ("assert-at-import", "assert 1 == 2\n", "m.py:1: cannot import: AssertionError: assert 1 == 2"),
    # strategies
    ("strategy-unknown-type", machine("    v = strategy('uint257')\n    def rule_a(self, v):\n        pass\n"), "m.py:4: cannot import: StrategyError: strategy('uint257')"),
    ("strategy-bounds-outside-type", machine("    v = strategy('uint8', max_value=300)\n    def rule_a(self, v):\n        pass\n"), "m.py:4: cannot import: StrategyError"),
    ("strategy-min-above-max", machine("    v = strategy('uint256', min_value=5, max_value=1)\n    def rule_a(self, v):\n        pass\n"), "m.py:4: cannot import: StrategyError"),
    ("strategy-unknown-keyword", machine("    v = strategy('address', max_value=3)\n    def rule_a(self, v):\n        pass\n"), "m.py:4: cannot import: StrategyError"),
    ("strategy-not-a-string", machine("    v = strategy(256)\n    def rule_a(self, v):\n        pass\n"), "m.py:4: cannot import"),
    ("strategy-bad-unit", machine("    v = strategy('uint256', max_value='1 bitcoin')\n    def rule_a(self, v):\n        pass\n"), "m.py:4: cannot import"),
    ("strategy-none-for-parameter", machine("    def rule_a(self, v):\n        pass\n"), "M.rule_a: parameter 'v' has no strategy"),
    ("strategy-named-default-missing", machine("    def rule_a(self, v='st_nope'):\n        pass\n"), "M.rule_a: parameter 'v' asks for strategy 'st_nope'"),
    ("strategy-decorator-not-a-strategy", IMPORT + "class M(StateMachine):\n    @rule(x=5)\n    def a(self, x):\n        pass\n", "M.a: x=5 is neither a strategy nor a Bundle"),
    ("strategy-given-unknown-type", "from hypothesis import given\nfrom evmstate import strategy\n\n@given(x=strategy('uint999'))\ndef test_x(x):\n    pass\n", "m.py:4: cannot import: StrategyError"),
    ("bundle-bad-name", machine("    b = Bundle('not an id')\n"), "m.py:4: cannot import: MachineDefinitionError: Bundle('not an id')"),
    # settings
    ("settings-not-a-dict", machine("    settings = 5\n"), "M.settings must be a dict"),
    ("settings-unknown-key", machine("    settings = {'max_exampels': 3}\n"), "M.settings: unknown key 'max_exampels'. Did you mean 'max_examples'?"),
    ("settings-bad-type", machine("    settings = {'max_examples': 'x'}\n"), "M.settings: "),
    ("settings-steps-zero", machine("    settings = {'stateful_step_count': 0}\n"), "M.settings: stateful_step_count=0 must be at least one"),
    ("settings-steps-huge", machine("    settings = {'stateful_step_count': 100000}\n"), "M.settings: stateful_step_count = 100000 is more than 1000"),
    ("settings-phase-unknown", machine("    settings = {'phases': ['nope']}\n"), "M.settings: phases: 'nope' is not a phase"),
    ("settings-phases-none-run", machine("    settings = {'phases': ['shrink']}\n"), "M.settings: phases = ['shrink'] runs no example"),
    ("settings-phases-not-a-list", machine("    settings = {'phases': 5}\n"), "M.settings: phases: 5 is not a phase"),
    ("settings-deadline-huge", machine("    settings = {'deadline': 10**20}\n"), "M.settings: deadline="),
    ("settings-shrink-time-negative", machine("    settings = {'shrink_time': -1}\n"), "M.settings: shrink_time must be a number of seconds"),
    ("settings-dictionary-weight", machine("    settings = {'dictionary_weight': 5}\n"), "M.settings: dictionary_weight must be a number from 0 to 1"),
    ("settings-health-check-unknown", machine("    settings = {'suppress_health_check': ['too_slow_please']}\n"), "M.settings: suppress_health_check: 'too_slow_please' is not a health check"),
    ("settings-no-examples", machine("    settings = {'max_examples': 0}\n"), "M.settings: max_examples=0"),
    # signatures
    ("signature-invariant-with-arguments", machine("    def invariant_x(self, y):\n        pass\n"), "M.invariant_x: an invariant takes only self"),
    ("signature-varargs", machine("    def rule_a(self, *v):\n        pass\n"), "M.rule_a: *args and **kwargs cannot be drawn"),
    ("signature-kwargs", machine("    def rule_a(self, **v):\n        pass\n"), "M.rule_a: *args and **kwargs cannot be drawn"),
    ("signature-init-not-a-function", machine("    __init__ = 5\n"), "M.__init__ must be a plain method"),
    ("signature-setup-not-a-method", machine("    setup = 5\n"), "M.setup must be a method"),
    ("signature-decorated-invariant-with-arguments", IMPORT + "class M(StateMachine):\n    @rule()\n    def a(self):\n        pass\n    @invariant()\n    def i(self, x):\n        pass\n", "M.i: an invariant takes only self"),
    ("signature-decorator-positional", IMPORT + "class M(StateMachine):\n    @rule(5)\n    def a(self):\n        pass\n", "m.py:4: cannot import: MachineDefinitionError: @rule() takes keyword arguments only"),
    ("signature-only-invariants", IMPORT + "class M:\n    def invariant_x(self):\n        pass\n", "M"),
]
# what a case's traceback must show beyond its message: a recursion as Python shows it, its line three times and a count
TRACEBACKS = {"recursion-at-import": r'(  File "[^"]+/m\.py", line 2, in f\n    return f\(\)\n +\^+\n){3}  \[Previous line repeated \d+ more times\]\nRecursionError: '}
# a module beside the file that it imports, broken in its own way (its name starts with "_": not a machine file)
HELPER = "raise RuntimeError('the helper is broken')\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("machines-project")


def loaded(root: Path, name: str, source: str | bytes) -> list[str]:
    """What a run says of the file, alone in a machines folder of its own: each import or definition error, as "path: message"."""
    folder = root / "machines" / name
    folder.mkdir(parents=True)
    (folder / "_broken_helper.py").write_text(HELPER)
    path = folder / "m.py"
    (path.write_bytes if isinstance(source, bytes) else path.write_text)(source)
    found = discover(Config(root=root, project=ProjectConfig(machines=f"machines/{name}")), (str(path),))
    said = [f"{e.path}: {e.message}" for e in found.errors]
    for item in found.items:
        try:
            item.settings
        except MachineDefinitionError as e:
            said.append(f"{item.path}::{item.name}: {e}")
    return said


@pytest.mark.parametrize("source, expected", [pytest.param(source, expected, id=name) for name, source, expected in CASES])
def test_a_broken_machine_file_is_an_error_naming_the_file_and_where(project: Path, request: pytest.FixtureRequest, source: str | bytes, expected: str) -> None:
    name = re.sub(r"\W", "-", request.node.callspec.id)
    said = loaded(project, name, source)
    assert len(said) == 1, said
    message = said[0]
    assert message.startswith(f"machines/{name}/m.py"), message  # the file
    assert expected in message, message
    assert re.search(TRACEBACKS.get(name, ""), message), message
    # the user's words, not evmstate's insides
    assert not re.search(r'File "[^"]*/evmstate/', message), message


def test_an_error_at_a_line_of_the_machine_file_is_that_line_alone_with_a_close_name(project: Path) -> None:
    # every frame of it is the machine file's (its class body, then the line): the line says where, no traceback
    (message,) = loaded(project, "misspelt", machine("    v = strategy('unit256')\n    def rule_a(self, v):\n        pass\n"))
    assert ("machines/misspelt/m.py:4: cannot import: StrategyError: strategy('unit256'): unknown ABI type 'unit256'. "
            "Did you mean 'uint256'? Allowed: ") in message, message
    assert message.endswith("\n    v = strategy('unit256')") and "Traceback" not in message, message


def test_a_broken_deployments_file_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "machines").mkdir()
    path = tmp_path / "machines" / "m.py"
    path.write_text(machine(""))
    for text, expected in (("def pool(:\n", "deployments.py:1: cannot import: SyntaxError"), (b"# \xff\ndef pool():\n    pass\n", "deployments.py:1: cannot import: SyntaxError: cannot read: byte 0xff")):
        deployments = tmp_path / "deployments.py"
        (deployments.write_bytes if isinstance(text, bytes) else deployments.write_text)(text)
        found = discover(Config(root=tmp_path), (str(path),))
        assert len(found.errors) == 1 and found.errors[0].path.endswith("deployments.py") and expected in found.errors[0].message, found.errors


def test_a_file_that_declares_its_encoding_is_read_in_it(tmp_path: Path) -> None:
    (tmp_path / "machines").mkdir()
    path = tmp_path / "machines" / "m.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nNAME = '\xe9'\nclass M:\n    def rule_a(self):\n        pass\n")
    found = discover(Config(root=tmp_path), (str(path),))
    assert not found.errors and [i.name for i in found.items] == ["M"]
    assert __import__("sys").modules[found.items[0].obj.__module__].NAME == "é"


def test_the_corpus_with_the_settings_corpus_holds_300_cases() -> None:
    from .bad_settings import CASES as SETTINGS, encodings

    assert len(CASES) >= 50 and len(CASES) + len(SETTINGS) + len(encodings()) >= 300


def test_a_machine_asking_for_what_the_project_lacks_is_an_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> None:
    """The cases that need the project compiled (from the bundled one's build cache): a contract or deployment no one defines."""
    from tests.cli.helpers import invoke
    from tests.conftest import copy_example

    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "missing.py").write_text("class Missing:\n    def __init__(cls, accounts, Nope):\n        pass\n\n" + RULE)
    (bad / "lower.py").write_text("class Lower:\n    def __init__(cls, token):\n        pass\n\n" + RULE)
    (bad / "given.py").write_text("from evmstate import given, strategy\n\n@given(x=strategy('uint8'))\ndef test_x(x, Vault):\n    pass\n")
    code, out = invoke("run", "bad", "--max-examples", "2")
    assert code == 2 and "0 passed, 0 failed, 3 errors" in out, out
    for where, said in (("bad/missing.py::Missing", "Missing.__init__: cannot provide parameter 'Nope'. Available: accounts, chain, "), ("bad/lower.py::Lower", "Lower.__init__: cannot provide parameter 'token'"), ("bad/given.py::test_x", "'Vault'")):
        assert where in out and said in out, out
    assert "Traceback" not in out
