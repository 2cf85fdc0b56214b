"""vyper's warnings (a deprecation, a deprecated builtin) as evmstate shows them: once per source file and
warning, with the file relative to the project root and the line of the code, from the build cache too,
and never as a Python warning."""

from __future__ import annotations

import warnings
from pathlib import Path

from evmstate.compiler.sources import compile_project

# vyper 0.4.3 deprecates positional event arguments (vyper/semantics/types/user.py) and `_abi_encode`
# (vyper/builtins/functions.py)
EVENTS = """event Noted:
    x: uint256


@internal
def _note(x: uint256):
    log Noted(x)
"""
USER = """import events


@external
def {name}():
    events._note({value})
"""
OLD = """event Moved:
    who: indexed(address)
    amount: uint256


@external
def move(amount: uint256):
    log Moved(msg.sender, amount)


@external
def again(amount: uint256) -> Bytes[64]:
    log Moved(msg.sender, amount + 1)
    return _abi_encode(amount)
"""
CLEAN = """@external
def f() -> uint256:
    return 1
"""


def project(root: Path) -> Path:
    files = {"events.vy": EVENTS, "A.vy": USER.format(name="a", value=1), "B.vy": USER.format(name="b", value=2), "Old.vy": OLD, "Clean.vy": CLEAN}
    for name, text in files.items():
        (root / "contracts" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "contracts" / name).write_text(text)
    return root


def test_each_warning_once_per_file_from_a_cold_and_a_warm_build(tmp_path: Path):
    root = project(tmp_path)
    for expect_cached in (False, True):
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            build = compile_project(root / "contracts", root / ".evmstate" / "build", root=root)
        assert not raised, [str(w.message) for w in raised]  # never a Python warning
        assert sorted(build.cached) == (["A", "B", "Clean", "Old"] if expect_cached else [])
        assert [str(w) for w in build.warnings] == [
            # two uses of one warning in a file: one line, naming the other use
            "contracts/Old.vy:8: Deprecation: Instantiating events with positional arguments is deprecated as of v0.4.1"
            " and will be disallowed in a future release. Use kwargs instead e.g.: log Moved(who=msg.sender, amount=amount) (also line 13)",
            "contracts/Old.vy:14: VyperWarning: `_abi_encode()` is deprecated! Please use `abi_encode()` instead.",
            # the module's warning once, though A and B both compile it
            "contracts/events.vy:7: Deprecation: Instantiating events with positional arguments is deprecated as of v0.4.1"
            " and will be disallowed in a future release. Use kwargs instead e.g.: log Noted(x=x)",
        ]
    first = build.warnings[-1]
    assert first.to_dict() == {"path": "contracts/events.vy", "line": 7, "kind": "Deprecation", "message": first.message, "also": []}
