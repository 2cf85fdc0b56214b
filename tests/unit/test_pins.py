"""Version pins read as vyper reads them, and where pinned releases are kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from evmstate.compiler import releases
from evmstate.compiler.releases import pin_of


@pytest.mark.parametrize(
    "line, spec, exact",
    [
        ("# pragma version 0.4.1", "==0.4.1", "0.4.1"),
        ("#pragma version ==0.4.0", "==0.4.0", "0.4.0"),
        ("# pragma version ~=0.4.2", "~=0.4.2", None),
        ("# pragma version ^0.4.1", "~=0.4.1", None),
        ("# pragma version >=0.4.0,<0.4.2", "<0.4.2,>=0.4.0", None),
        ("# @version 0.3.10", "==0.3.10", "0.3.10"),
        ("# @version ^0.3.9", "~=0.3.9", None),
        ("# pragma version 0.4.*", "==0.4.*", None),
    ],
)
def test_a_version_pragma_is_read_as_vyper_reads_it(line: str, spec: str, exact: str | None):
    pin = pin_of(f"{line}\n\nx: public(uint256)\n")
    assert pin is not None
    assert str(pin.spec) == spec and pin.exact == exact
    assert pin.requirement == (f"vyper=={exact}" if exact else f"vyper{spec}")


def test_what_a_pin_admits():
    assert pin_of("# pragma version ~=0.4.2\n").admits("0.4.3")
    assert not pin_of("# pragma version ~=0.4.2\n").admits("0.5.0")
    assert not pin_of("# pragma version 0.4.1\n").admits("0.4.3")
    assert pin_of("# pragma version ^0.4.0\n").admits("0.4.3")
    assert pin_of("# pragma version >=0.4.3\n").admits("0.4.4rc1")  # vyper admits pre-releases


@pytest.mark.parametrize(
    "text",
    [
        "x: public(uint256)\n",  # no pin
        '"""\n# pragma version 0.4.1\n"""\nx: uint256\n',  # in a docstring, not a comment
        "# pragma version 0.4.1\n# @version 0.4.1\n",  # twice: vyper says so itself
        "# pragma version >>0.4\n",  # not a specifier: vyper says so itself
        "# pragma optimize gas\n",
    ],
)
def test_no_pin_is_read_where_vyper_reads_none_or_refuses_it(text: str):
    assert pin_of(text) is None


def test_a_source_python_cannot_tokenize_is_still_read_for_its_pin():
    text = "# pragma version 0.4.1\nx: DynArray[uint256, 3\n"  # an unclosed bracket: vyper says so, as 0.4.1 does
    assert pin_of(text).exact == "0.4.1"
    assert releases.without_version_pragmas(text) == "#" + " " * 21 + "\nx: DynArray[uint256, 3\n"


def test_a_trailing_comment_pins_too():
    assert pin_of("x: uint256  # pragma version 0.4.0\n").exact == "0.4.0"


def test_blanking_the_pins_keeps_every_line_and_column():
    text = "# pragma version 0.4.1\n#pragma optimize gas\nx: uint256  # @version 0.4.1\n"
    blank = releases.without_version_pragmas(text)
    assert blank == "#" + " " * 21 + "\n#pragma optimize gas\nx: uint256  #" + " " * 15 + "\n"
    assert [len(line) for line in blank.splitlines()] == [len(line) for line in text.splitlines()]
    assert pin_of(blank) is None


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.delenv("EVMSTATE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert releases.releases_folder() == tmp_path / "xdg" / "evmstate" / "vyper"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert releases.releases_folder() == tmp_path / "home" / ".cache" / "evmstate" / "vyper"
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(tmp_path / "ci"))
    assert releases.releases_folder() == tmp_path / "ci" / "vyper"


def test_only_complete_installs_are_releases(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """A folder pip is still filling (a dot-name) or one without the package is not taken."""
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(tmp_path))
    done = tmp_path / "vyper" / "0.4.1"
    (done / "vyper-0.4.1.dist-info").mkdir(parents=True)
    (done / "vyper").mkdir()
    (done / "vyper" / "__init__.py").write_text("")
    (tmp_path / "vyper" / ".install-x" / "vyper-0.4.2.dist-info").mkdir(parents=True)
    (tmp_path / "vyper" / "0.4.0" / "vyper-0.4.0.dist-info").mkdir(parents=True)
    assert releases.cached() == {"0.4.1": done}
    assert releases.newest_cached(pin_of("# pragma version ~=0.4.0\n")) == ("0.4.1", done)
    assert releases.newest_cached(pin_of("# pragma version 0.4.2\n")) is None


@pytest.mark.parametrize(
    "written, legacy",
    [
        ("0.3.10", True),
        ("^0.3.7", True),
        (">=0.3.7,<0.4", True),
        ("==0.3.*", True),
        ("<=0.3.10", True),
        ("~=0.2.16", True),
        ("0.4.1", False),
        ("~=0.3", False),
        (">=0.3.7", False),
        ("^0.4.0", False),
    ],
)
def test_a_pin_is_legacy_when_it_admits_only_releases_before_0_4(written: str, legacy: bool):
    pin = pin_of(f"# @version {written}\n")
    assert pin is not None and pin.legacy is legacy
    assert releases.legacy("0.3.10") and releases.legacy("0.2.8") and not releases.legacy("0.4.0") and not releases.legacy("")


def test_what_a_source_of_0_3_imports_is_read_as_that_release_reads_it(tmp_path: Path):
    from evmstate.compiler import legacy_outputs

    text = (
        "# @version 0.3.10\n"
        "from vyper.interfaces import ERC20\n"
        "import interfaces.IStrategy as IStrategy\n"
        "from . import Sibling\n"
        "from .. import Parent\n"
        "from lib.tokens import Meta  # an ABI\n"
        "    import nested as Skipped\n"
    )
    assert legacy_outputs.imports(text) == {"IStrategy": "interfaces/IStrategy", "Sibling": "./Sibling", "Parent": "../Parent", "Meta": "lib/tokens/Meta"}
    (tmp_path / "contracts" / "interfaces").mkdir(parents=True)
    (tmp_path / "lib" / "tokens").mkdir(parents=True)
    source = tmp_path / "contracts" / "Vault.vy"
    source.write_text(text)
    (tmp_path / "contracts" / "interfaces" / "IStrategy.vy").write_text("@external\ndef asset() -> address:\n    pass\n")
    (tmp_path / "contracts" / "Sibling.json").write_text("[]")
    (tmp_path / "lib" / "tokens" / "Meta.json").write_text("[]")
    inputs, found, missing = legacy_outputs.scan(source, [str(tmp_path), str(tmp_path / "contracts")])
    assert found == {
        "IStrategy": (tmp_path / "contracts" / "interfaces" / "IStrategy.vy").resolve(),
        "Sibling": (tmp_path / "contracts" / "Sibling.json").resolve(),
        "Meta": (tmp_path / "lib" / "tokens" / "Meta.json").resolve(),
    }
    assert missing == "../Parent" and len(inputs) == 4 and str(source.resolve()) in inputs
