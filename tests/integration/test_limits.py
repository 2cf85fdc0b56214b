"""Per-call limits: the gas cap and the CPU-time limit, and the jump hooks behind them, on real vyper + py-evm."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from eth.vm import opcode_values
from hypothesis import given, settings, strategies as st

from evmstate import CallTimeout, Project, UsageError, VirtualMachineError, reverts
from evmstate import config as config_mod
from evmstate.evm.base import CALL_GAS_LIMIT
from evmstate.evm.pyevm import PyEVMBackend
from evmstate.config import ChainConfig, Config, FuzzConfig
from evmstate.reports import failure_text
from evmstate.runner import Overrides, RunOptions, run

from ..cli.helpers import invoke

CHECKS = Path(__file__).parent / "checks"
HUGE = 2**62  # loop iterations: far more than any limit lets run


@pytest.fixture(scope="module")
def checks_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("limits")
    shutil.copytree(CHECKS / "contracts", root / "contracts")
    return root


def load(root: Path, **fuzz) -> Project:
    return Project(Config(root=root, fuzz=FuzzConfig(**fuzz)))


def test_a_runaway_call_times_out_and_leaves_nothing_behind(checks_root, monkeypatch):
    monkeypatch.chdir(checks_root)
    project = load(checks_root, call_timeout=0.2)
    a, backend = project.accounts, project.backend
    c = project.Checks.deploy()
    c.bump()
    before = (a[0].nonce, a[0].balance(), c.count(), len(backend.logs), backend.get_code(c.raw_address))
    with pytest.raises(CallTimeout) as info:
        c.spin(HUGE)
    err = info.value
    assert str(err).startswith(
        f"Checks.spin({HUGE}) did not finish within 0.2 s\n  running contracts/Checks.vy:"
    ), str(err)
    assert "The limit is [fuzz] call_timeout = 0.2 s of CPU time per call (evmstate.toml)." in str(err)
    assert "raise call_timeout, or set it to 0 for no limit" in str(err)
    assert (err.call, err.limit, err.configured) == (f"Checks.spin({HUGE})", 0.2, 0.2)
    assert (a[0].nonce, a[0].balance(), c.count(), len(backend.logs), backend.get_code(c.raw_address)) == before, "not even the nonce is used"
    # a view call that runs away, then the chain still snapshots, reverts and transacts
    with pytest.raises(CallTimeout):
        c.spin_view(HUGE)
    snap = project.chain.snapshot()
    c.bump()
    assert c.count() == 2 and c.spin(10).return_value == 45 and c.spin_view(10) == 45
    project.chain.revert(snap)
    assert c.count() == 1 and a[0].nonce == before[0]


def test_after_a_timeout_calls_get_a_shorter_limit_until_reset(checks_root, monkeypatch):
    monkeypatch.chdir(checks_root)
    project = load(checks_root, call_timeout=0.3)
    c = project.Checks.deploy()
    with pytest.raises(CallTimeout) as first:
        c.spin(HUGE)
    with pytest.raises(CallTimeout) as second:
        c.spin(HUGE)
    assert first.value.limit == 0.3 and second.value.limit < 0.3
    assert "An earlier call ran past [fuzz] call_timeout = 0.3 s (evmstate.toml); since then calls get 10 times" in str(second.value)
    assert c.spin_view(100) == 4950, "calls that finish still finish"
    project.backend.reset_time_limit()
    with pytest.raises(CallTimeout) as third:
        c.spin(HUGE)
    assert third.value.limit == 0.3


def test_a_timeout_is_not_a_revert(checks_root):
    project = load(checks_root, call_timeout=0.1)
    c = project.Checks.deploy()
    with pytest.raises(CallTimeout):
        with reverts():
            c.spin(HUGE)


def test_calls_get_the_eip_7825_gas_cap(checks_root, monkeypatch):
    monkeypatch.chdir(checks_root)
    project = load(checks_root)
    c = project.Checks.deploy()
    sender = project.accounts[0].raw_address
    result = project.backend.transact(sender, c.raw_address, c.bump.encode_input())
    assert result.success and result.gas_limit == CALL_GAS_LIMIT == 2**24 and result.at_gas_cap
    assert project.backend.call_gas_limit == 2**24 < project.backend.gas_limit
    with pytest.raises(UsageError, match=r"gas 16777217 exceeds the per-call gas cap \(\[fuzz\] call_gas_limit in evmstate.toml\), 16777216"):
        c.bump({"gas": 2**24 + 1})
    assert c.bump({"gas": 100_000}).gas_used < 100_000

    capped = load(checks_root, call_gas_limit=300_000, call_timeout=0)
    c = capped.Checks.deploy()
    with pytest.raises(VirtualMachineError) as info:
        c.spin(HUGE)
    assert info.value.gas_used == 300_000
    assert "It used all 300000 gas a call gets: [fuzz] call_gas_limit in evmstate.toml" in str(info.value)
    with pytest.raises(VirtualMachineError) as chosen:
        c.spin(HUGE, {"gas": 100_000})
    assert "call_gas_limit" not in str(chosen.value), "gas the caller chose is not the cap"


def test_a_block_gas_limit_below_the_cap_caps_calls(checks_root):
    project = Project(Config(root=checks_root, chain=ChainConfig(gas_limit=5_000_000)))
    assert project.backend.call_gas_limit == 5_000_000
    with pytest.raises(UsageError, match="exceeds the block gas limit, 5000000"):
        project.Checks.deploy({"gas": 6_000_000})


def test_a_jump_recorder_sees_every_jumpi_and_can_be_removed(checks_root):
    project = load(checks_root)
    c = project.Checks.deploy()
    seen: list = []
    project.backend.set_jump_recorder(lambda address, pc, taken: seen.append((address, pc, taken)))
    c.bump()  # passes every check: no JUMPI is taken
    assert seen and all(address == c.raw_address and not taken for address, _, taken in seen)
    with reverts():
        c.bare(11)  # the failed assert jumps to the shared revert
    assert seen[-1][2] is True and project.artifacts["Checks"].error_map[seen[-1][1]] == "user assert"
    code = project.backend.get_code(c.raw_address)
    assert all(code[pc] == opcode_values.JUMPI for _, pc, _ in seen)
    project.backend.set_jump_recorder(None)
    n = len(seen)
    c.bump()
    assert len(seen) == n


# -- the hooked JUMP and JUMPI against py-evm's own ------------------------------------------

PUSH1, JUMPDEST, STOP, POP, ADD = 0x60, opcode_values.JUMPDEST, 0x00, 0x50, 0x01


def _program(draw_ops: list[tuple[str, int, int]]) -> bytes:
    code = bytearray()
    for op, a, b in draw_ops:
        if op == "jump":
            code += bytes([PUSH1, a, opcode_values.JUMP])
        elif op == "jumpi":
            code += bytes([PUSH1, b, PUSH1, a, opcode_values.JUMPI])
        elif op == "dest":
            code += bytes([JUMPDEST])
        elif op == "push":  # a PUSH whose data may look like a JUMPDEST
            code += bytes([PUSH1, a])
            code += bytes([POP])
        else:
            code += bytes([PUSH1, a, PUSH1, b, ADD, POP])
    return bytes(code + bytes([STOP]))


ops = st.lists(
    st.tuples(st.sampled_from(["jump", "jumpi", "dest", "push", "add"]), st.integers(0, 80), st.integers(0, 2)),
    max_size=25,
)


@pytest.fixture(scope="module")
def two_backends():
    """The same chain twice: one with evmstate's jump hooks, one with py-evm's own JUMP and JUMPI."""
    hooked, plain = PyEVMBackend(accounts=1), PyEVMBackend(accounts=1)
    table = plain._computation_class.opcodes
    base = plain._computation_class.__mro__[1].opcodes
    table[opcode_values.JUMP], table[opcode_values.JUMPI] = base[opcode_values.JUMP], base[opcode_values.JUMPI]
    return hooked, plain


@settings(max_examples=150, deadline=None)
@given(program=ops)
def test_hooked_jumps_behave_as_py_evms_own(two_backends, program):
    code = _program(program)
    outcomes = []
    for backend in two_backends:
        target = b"\x11" * 20
        backend._state.set_code(target, code)
        sender = backend.account_keys[0][1]
        r = backend.call(sender, target, b"", gas=100_000)
        outcomes.append((r.success, r.error, r.gas_used, r.output))
    assert outcomes[0] == outcomes[1]


# -- a runaway call under `evmstate run` ----------------------------------------------------

RUNAWAY = """
class RunawayMachine:
    def __init__(cls, Runaway):
        cls.c = Runaway.deploy()

    def rule_bump(self):
        self.c.bump()

    def rule_drain(self):
        self.c.drain()
"""


@pytest.fixture()
def runaway(checks_root: Path, tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "runaway"
    load(checks_root)  # compiled once, whichever test of the module runs first here
    shutil.copytree(checks_root / "contracts", root / "contracts")
    shutil.copytree(checks_root / ".evmstate" / "build", root / ".evmstate" / "build")  # compiled already
    (root / "machines").mkdir()
    (root / "machines" / "runaway.py").write_text(textwrap.dedent(RUNAWAY))
    (root / "evmstate.toml").write_text("[fuzz]\ncall_timeout = 0.5\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return root


def test_a_function_that_never_returns_is_reported_with_its_shortest_program(runaway):
    summary = run(config_mod.load(runaway), RunOptions(overrides=Overrides(seed=0, max_examples=30, stateful_step_count=10)), lambda e: None)
    (result,) = summary.results
    assert result.status == "failed" and summary.exit_code == 1
    failure = result.failure
    assert failure.error_type == "CallTimeout"
    assert failure.program == ["state = RunawayMachine()", "state.rule_bump()", "state.rule_bump()", "state.rule_bump()", "state.rule_drain()"]
    assert failure.message.startswith("Runaway.drain() did not finish within ")
    assert "\n  running contracts/Runaway.vy:19: self.total += i\n" in failure.message
    assert failure.call_failure["call"] == "Runaway.drain()" and failure.call_failure["call_timeout"] == 0.5
    assert "state.rule_drain()" in failure_text(failure)


def test_the_command_reports_the_runaway_call_and_the_setting(runaway):
    code, out = invoke("run", "--seed", "0", "--max-examples", "30", "--steps", "10")
    assert code == 1
    assert "CallTimeout: Runaway.drain() did not finish within" in out
    assert "[fuzz] call_timeout = 0.5 s" in out
    assert "Falsifying example (4 steps):" in out
