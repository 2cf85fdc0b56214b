"""The reported line of a failed check is the check's own line, whatever follows it and however the source is optimized.

One contract per optimize setting holds a function for every kind of check (checked add, sub,
mul, division, modulo, array bounds, assert with and without a reason, a failed raw_call), each
followed by nothing, by a log, by assignments or by a call. The line expected is the one that
carries the function's `# dev:` marker, found in the source text, not in evmstate's output.
"""

from __future__ import annotations

import re

import pytest

from evmstate import Project, TransactionReverted
from evmstate.config import CompilerConfig, Config, ProjectConfig

from ..conftest import BACKENDS, kept_build
from .proxied_vault import PROXY, VAULT, blames_the_def_line_of_deposit

# (name, argument that fails the check, the checked statement)
CHECKS = [
    ("add", 1, "self.x = self.big + a"),
    ("sub", 11, "self.x -= a"),
    ("mul", 2, "self.x = self.big * a"),
    ("div", 0, "self.x = 100 // a"),
    ("mod", 0, "self.x = 100 % a"),
    ("bounds", 7, "self.x = self.arr[a]"),
    ("assert", 1, "assert a > 10"),
    ("reason", 1, 'assert a > 10, "too small"'),
    ("rawcall", 1, "raw_call(self, method_id(\"fail()\"), revert_on_failure=True)"),
]
FOLLOWS = {
    "none": [],
    "log": ["log E(v=a)"],
    "assign": ["self.y += 1", "self.z = a"],
    "call": ["self._bump(a)"],
}


def _source() -> tuple[str, dict[str, int]]:
    lines = [
        "event E:",
        "    v: uint256",
        "",
        "x: public(uint256)",
        "y: public(uint256)",
        "z: public(uint256)",
        "big: public(uint256)",
        "arr: public(uint256[3])",
        "",
        "@deploy",
        "def __init__():",
        "    self.big = max_value(uint256)",
        "",
        "@internal",
        "def _bump(a: uint256):",
        "    self.y += a",
        "",
        "@external",
        "def fail():",
        '    raise "failed on purpose"',
        "",
    ]
    expected = {"fail": len(lines) - 1}
    for name, _, statement in CHECKS:
        for follow, after in FOLLOWS.items():
            fn = f"{name}_{follow}"
            lines += ["@external", f"def {fn}(a: uint256):", f"    {statement}  # dev: {fn}"]
            expected[fn] = len(lines)
            lines += [f"    {s}" for s in after] + [""]
    return "\n".join(lines) + "\n", expected


@pytest.fixture(scope="module", params=["gas", "codesize", "none"])
def checks(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"checks-{request.param}")
    (root / "contracts").mkdir()
    source, expected = _source()
    (root / "contracts" / "Checks.vy").write_text(source)
    config = Config(root=root, project=ProjectConfig(contracts="contracts"), compiler=CompilerConfig(optimize=request.param))
    project = kept_build(root, "kept-revert-lines", lambda: Project(config))
    assert not project.build.errors, project.build.errors
    return project, project.Checks.deploy(), expected


@pytest.mark.parametrize("name, argument", [(name, arg) for name, arg, _ in CHECKS])
@pytest.mark.parametrize("follow", list(FOLLOWS))
def test_the_reported_line_is_the_checks_own(checks, name, argument, follow):
    project, contract, expected = checks
    fn = f"{name}_{follow}"
    with pytest.raises(TransactionReverted) as caught:
        getattr(contract, fn)(argument)
    err = caught.value
    assert err.source_line is not None, f"{fn}: no source line"
    line = int(re.search(r"Checks\.vy:(\d+):", err.source_line).group(1))
    if name == "rawcall":
        # the revert comes from the called function's raise, passed up through the raw_call
        assert line == expected["fail"], f"{fn}: reported {err.source_line}"
        assert any(re.search(rf"Checks\.vy:{expected[fn]}:", v) for v in err.via), f"{fn}: via {err.via}"
        return
    assert line == expected[fn], f"{fn}: reported {err.source_line}"
    assert err.dev_revert_msg == f"dev: {fn}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_sent_to_a_function_that_is_not_payable_is_blamed_on_its_def_line(tmp_path, backend):
    # vyper maps no line to the check at a function's entry: the line is the function's def, through a proxy too
    from evmstate.config import BackendConfig

    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Proxy.vy").write_text(PROXY)
    (tmp_path / "contracts" / "Vault.vy").write_text(VAULT)
    blames_the_def_line_of_deposit(Project(Config(root=tmp_path, project=ProjectConfig(contracts="contracts"), backend=BackendConfig(name=backend))), 7)
