"""A corpus of Vyper sources that do not compile, compiled by the real vyper in this process: syntax
errors, imports that resolve nowhere, bad pragmas, other encodings, a folder named like a source.

Each is a CompileError of that source alone (the run shows it and exits 2; the other contracts
compile) that names the file and the line. None pins another vyper release, so none installs one.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest

from evmstate.compiler.sources import compile_project

P = "# pragma version ~=0.4.0\n"
X = "x: public(uint256)\n"  # something to deploy: a source without it is a library module

# (id, source, the line the error names, what it says)
CASES: list[tuple[str, str | bytes, int | None, str]] = [
    ("syntax-unclosed-paren", P + "x: public(uint256\n", 3, "SyntaxException"),
    ("syntax-reserved-word", P + "def: public(uint256)\n", 2, "SyntaxException"),
    ("syntax-tabs", P + X + "@external\ndef f():\n\tpass\n        pass\n", 6, "SyntaxException"),
    ("undeclared-name", P + X + "@external\ndef f() -> uint256:\n    return y\n", 5, "UndeclaredDefinition"),
    ("type-mismatch", P + X + "@external\ndef f() -> uint256:\n    return True\n", 5, "TypeMismatch"),
    ("literal-out-of-bounds", P + "y: constant(uint256) = 2**300\n" + X, 2, "InvalidLiteral"),
    ("name-declared-twice", P + X + X, 3, "NamespaceCollision"),
    ("interface-body", P + "interface I:\n    def f(): nonsense\n" + X, 3, "StructureException"),
    ("import-missing-module", P + "import nothere\n" + X, 2, "ModuleNotFound: nothere"),
    ("import-missing-relative", P + "from . import Nothere\n" + X, 2, "ModuleNotFound: Nothere"),
    ("import-missing-interface", P + "from ethereum.ercs import IERC999\n" + X, 2, "ModuleNotFound: ethereum.ercs.IERC999"),
    ("import-itself", P + "import C\n" + X, 2, "ImportCycle"),
    ("pragma-not-a-specifier", "# pragma version banana\n" + X, 1, "is not a valid PEP440 specifier"),
    ("pragma-empty-range", "# pragma version >=0.4.0 <0.3\n" + X, 1, "is not a valid PEP440 specifier"),
    ("pragma-twice", P + P + X, 2, "pragma version specified twice"),
    ("pragma-unknown", P + "# pragma frobnicate\n" + X, 2, "Unknown pragma"),
    ("pragma-evm-version", P + "# pragma evm-version homer\n" + X, 2, "Invalid evm version"),
    ("pragma-optimize", P + "# pragma optimize fast\n" + X, 2, "Invalid optimization mode"),
    ("bytes-latin1-comment", (P + "# caf\xe9\n" + X).encode("latin-1"), 2, "cannot read: byte 0xe9 at line 2, column 6 is not UTF-8 text; save the file as UTF-8"),
    ("bytes-first-byte", b"\xff" + (P + X).encode(), 1, "cannot read: byte 0xff at line 1, column 1 is not UTF-8 text"),
    ("bytes-null", (P + "x: uint256\x00\n" + X).encode(), 2, "cannot read: a null byte (\\x00) at line 2, column 11; delete it"),
    ("bytes-utf16", codecs.BOM_UTF16_LE + (P + X).encode("utf-16-le"), None, "cannot read: the file is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8"),
]


@pytest.mark.parametrize("source, line, said", [pytest.param(source, line, said, id=name) for name, source, line, said in CASES])
def test_a_source_that_does_not_compile_is_an_error_naming_its_file_and_line(tmp_path: Path, source: str | bytes, line: int | None, said: str) -> None:
    contracts = tmp_path / "contracts"
    contracts.mkdir()
    path = contracts / "C.vy"
    (path.write_bytes if isinstance(source, bytes) else path.write_text)(source)
    (contracts / "Fine.vy").write_text(P + X)
    build = compile_project(contracts, tmp_path / ".evmstate" / "build", root=tmp_path)
    assert list(build.artifacts) == ["Fine"] and list(build.errors) == ["C"]  # the error is that source's alone
    error = build.errors["C"]
    message = str(error)
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: "), message
    assert said in message, message
    assert error.lineno == line or (line is not None and f'C.vy:{line}", line {line}:' in message)
    assert not re.search(r"Traceback|CompilerPanic|internal compiler error", message), message


def test_a_source_a_file_it_imports_is_not_utf8_names_both(tmp_path: Path) -> None:
    contracts = tmp_path / "contracts"
    contracts.mkdir()
    (contracts / "A.vy").write_text(P + "import lib\n" + X + "@external\ndef f() -> uint256:\n    return lib.g()\n")
    (contracts / "lib.vy").write_bytes((P + "# caf\xe9\n@internal\ndef g() -> uint256:\n    return 1\n").encode("latin-1"))
    build = compile_project(contracts, tmp_path / ".evmstate" / "build", root=tmp_path)
    assert str(build.errors["lib"]).startswith(f"{contracts / 'lib.vy'}:2: cannot read: byte 0xe9 at line 2, column 6 is not UTF-8 text")
    importer = str(build.errors["A"])
    assert importer.startswith(f"{contracts / 'A.vy'}: a file this one imports is not UTF-8 text") and "---> 2 import lib" in importer
    assert "internal compiler error" not in importer


def test_a_folder_named_like_a_source_is_a_folder(tmp_path: Path) -> None:
    contracts = tmp_path / "contracts"
    (contracts / "Odd.vy").mkdir(parents=True)
    (contracts / "Odd.vy" / "Inner.vy").write_text(P + X)
    build = compile_project(contracts, tmp_path / ".evmstate" / "build", root=tmp_path)
    assert list(build.artifacts) == ["Inner"] and not build.errors


def test_the_command_exits_2_and_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.cli.helpers import invoke

    (tmp_path / "contracts").mkdir()
    (tmp_path / "evmstate.toml").write_text("")
    (tmp_path / "contracts" / "C.vy").write_bytes((P + "# caf\xe9\n" + X).encode("latin-1"))
    monkeypatch.chdir(tmp_path)
    code, out = invoke("compile")
    assert code == 2 and "C.vy:2: cannot read: byte 0xe9 at line 2, column 6 is not UTF-8 text; save the file as UTF-8" in out, out
