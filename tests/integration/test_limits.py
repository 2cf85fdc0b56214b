"""Per-call limits: the gas cap and the CPU-time limit, and the jump hooks behind them, on real vyper + py-evm;
calls py-evm runs out of time for finished on revm (real pyrevm), or reported as a limit of evmstate without it."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest
from eth.vm import opcode_values
from hypothesis import given, settings, strategies as st

from evmstate import CallTimeout, Project, UsageError, VirtualMachineError, reverts
from evmstate import config as config_mod
from evmstate.evm.revm import backend as revm_mod
from evmstate.evm.base import CALL_GAS_LIMIT
from evmstate.evm.factory import finishing
from evmstate.evm.pyevm.backend import PyEVMBackend
from evmstate.config import ChainConfig, Config, FuzzConfig
from evmstate.reports import failure_text
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import BACKENDS, kept_build
from ..cli.helpers import invoke

CHECKS = Path(__file__).parent / "checks"
HUGE = 2**62  # loop iterations: far more than any limit lets run


@pytest.fixture(scope="module")
def checks_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("limits")
    shutil.copytree(CHECKS / "contracts", root / "contracts")
    kept_build(root, "kept-checks", lambda: load(root))
    return root


def load(root: Path, **fuzz) -> Project:
    return Project(Config(root=root, fuzz=FuzzConfig(**fuzz)))


@pytest.fixture()
def no_revm(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyrevm as if it were not installed: nothing finishes what py-evm runs out of time for."""
    monkeypatch.setattr(revm_mod, "pyrevm", None)


# -- without revm: a call past the time limit is a limit of evmstate ------------------------------


def test_a_runaway_call_times_out_and_leaves_nothing_behind(checks_root, monkeypatch, no_revm):
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
    assert (
        "\nThis is a limit of evmstate, not a failure of the contract: on chain the call would finish, or run out of its "
        "16777216 gas ([fuzz] call_gas_limit), and py-evm runs about a million gas a second. revm, which would run it to its end "
        'in well under a second, could not: pyrevm is not installed: pip install "evmstate[revm]"'
    ) in str(err)
    assert "raise call_timeout, or set it to 0 for no limit, or lower call_gas_limit." in str(err)
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


def test_after_a_timeout_calls_get_a_shorter_limit_until_reset(checks_root, monkeypatch, no_revm):
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


def test_a_timeout_is_not_a_revert(checks_root, no_revm):
    project = load(checks_root, call_timeout=0.1)
    c = project.Checks.deploy()
    with pytest.raises(CallTimeout):
        with reverts():
            c.spin(HUGE)


# -- with revm: a call py-evm runs out of time for ends as on chain --------------------------------


def test_a_runaway_call_runs_out_of_gas_as_on_chain(checks_root, monkeypatch):
    monkeypatch.chdir(checks_root)
    project = load(checks_root, call_timeout=0.2)
    a, backend = project.accounts, project.backend
    c = project.Checks.deploy()
    c.bump()
    nonce = a[0].nonce
    with pytest.raises(VirtualMachineError) as info:
        c.spin(HUGE)
    err = info.value
    assert err.gas_used == CALL_GAS_LIMIT and err.reason == "Out of gas"
    # the line is the loop's, where py-evm was when its time ran out
    assert re.match(r"Checks\.spin reverted: 'Out of gas'\n  contracts/Checks\.vy:8[012]: ", str(err)), str(err)
    assert "\nIt used all 16777216 gas a call gets: [fuzz] call_gas_limit in evmstate.toml" in str(err)
    assert str(err).endswith(
        "\nThis call ran past [fuzz] call_timeout on py-evm (now or before): revm ran it to its end, as the chain would, "
        "and the line is where py-evm was running."
    )
    assert (a[0].nonce, c.count()) == (nonce + 1, 1), "a failed transaction: its nonce is used, nothing else is kept"
    with reverts():
        c.spin(HUGE)
    with pytest.raises(VirtualMachineError, match="Out of gas"):
        c.spin_view(HUGE)
    assert c.spin(10).return_value == 45 and c.spin_view(10) == 45, "calls that finish in time run on py-evm as ever"
    # the same call at the same state is remembered, not run again
    finisher = backend.finisher
    runs, recalled = finisher.runs, finisher.recalled
    snap = project.chain.snapshot()
    for _ in range(3):
        with reverts():
            c.spin(HUGE)
        project.chain.revert(snap)
    assert (finisher.runs - runs, finisher.recalled - recalled) == (1, 2)


def test_a_call_that_finishes_on_chain_gives_its_true_result(checks_root, monkeypatch):
    """grind() needs about a million gas: past a 0.05 s limit on py-evm it is finished on revm, exactly as py-evm without a limit."""
    monkeypatch.chdir(checks_root)
    receiver = "0x" + "ab" * 20
    outcomes = []
    for timeout in (0.05, 0):
        project = load(checks_root, call_timeout=timeout)
        a, backend = project.accounts, project.backend
        g = project.Grinder.deploy()
        tx = g.grind(10_000, receiver, {"from": a[1], "value": 5})
        events = [(e.name, dict(e)) for e in tx.events]
        outcome = (tx.return_value, tx.gas_used, events, tx.logs, g.sum_to(10_000), g.total(), g.rounds(), g.marker())
        balances = (backend.get_balance(bytes.fromhex("ab" * 20)), a[1].balance(), a[1].nonce, g.balance())
        outcomes.append((outcome, balances, backend.finisher.runs))
    assert outcomes[0][:2] == outcomes[1][:2], "the same return value, gas, events, logs, storage, balances and nonce"
    (returned, gas_used, events, _, viewed, total, rounds, marker), balances, _ = outcomes[0]
    assert (returned, viewed, gas_used > 900_000) == (49_995_000, 49_995_000, True)
    assert events == [("Ground", {"n": 10_000, "total": 49_995_000})]
    assert (total, rounds, marker) == (49_995_000, 1, 0), "storage written, and a slot cleared"
    assert balances[0] == 5, "a new account, paid"
    assert (outcomes[0][2], outcomes[1][2]) == (2, 0), "the transaction and the view call ran on revm; without a limit, on py-evm alone"


def test_a_view_call_finished_on_revm_is_not_kept_by_the_call_cache(checks_root, monkeypatch):
    """The call cache keeps a view call with what it read, and py-evm saw only part of what a finished call read."""
    monkeypatch.chdir(checks_root)
    project = load(checks_root, call_timeout=0.05)
    assert project.backend.call_cache is not None
    g = project.Grinder.deploy()
    finisher = project.backend.finisher
    assert g.sum_to(10_000) == g.sum_to(10_000) == 49_995_000
    assert (finisher.runs, finisher.recalled) == (1, 1), "both from revm (the second remembered), none from the call cache"


LOOP = bytes([opcode_values.JUMPDEST, 0x60, 0x00, opcode_values.JUMP])  # JUMPDEST PUSH1 0 JUMP: forever


@pytest.mark.parametrize("evm_version", ["cancun", "shanghai"])
def test_revm_finishes_what_it_can_run_and_says_why_not_otherwise(evm_version):
    backend = finishing(PyEVMBackend(accounts=1, evm_version=evm_version, call_timeout=0.05))
    sender, target = backend.account_keys[0][1], b"\x11" * 20
    backend.write_state({target: (0, 1, LOOP)}, {})
    result = backend.transact(sender, target, b"")
    assert result.timeout is not None and result.timeout.limit == 0.05
    if evm_version == "cancun":
        assert (result.success, result.out_of_gas, result.gas_used) == (False, True, CALL_GAS_LIMIT)
        assert backend.get_nonce(sender) == 1
    else:
        assert result.error == "timeout" and result.timeout.unfinished == "revm does not run evm_version 'shanghai' (only cancun and prague)"
        assert backend.get_nonce(sender) == 0, "nothing kept"


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
    table, base = plain._opcodes, plain._base_opcodes
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

# drain() runs out of gas once count reaches 3, and this machine knows it
EXPECTS_OUT_OF_GAS = """
from evmstate import reverts


class OutOfGasMachine:
    def __init__(cls, Runaway):
        cls.c = Runaway.deploy()

    def rule_bump(self):
        self.c.bump()

    def rule_drain(self):
        if self.c.count() < 3:
            self.c.drain()
            return
        total = self.c.total()
        with reverts():
            self.c.drain()
        assert self.c.total() == total, "an out-of-gas call keeps nothing"
"""


def project_with(checks_root: Path, root: Path, machine: str, toml: str) -> Path:
    load(checks_root)  # compiled once, whichever test of the module runs first here
    shutil.copytree(checks_root / "contracts", root / "contracts")
    shutil.copytree(checks_root / ".evmstate" / "build", root / ".evmstate" / "build")  # compiled already
    (root / "machines").mkdir()
    (root / "machines" / "runaway.py").write_text(textwrap.dedent(machine))
    (root / "evmstate.toml").write_text(toml)
    return root


@pytest.fixture()
def runaway(checks_root: Path, tmp_path: Path, monkeypatch, cli_env: dict[str, str]) -> Path:
    root = project_with(checks_root, tmp_path / "runaway", RUNAWAY, "[fuzz]\ncall_timeout = 0.5\n")
    monkeypatch.chdir(root)
    return root


def run_here(root: Path, max_examples: int = 30):
    return run(config_mod.load(root), RunOptions(overrides=Overrides(seed=0, max_examples=max_examples, stateful_step_count=10)), lambda e: None)


def test_a_machine_expecting_the_out_of_gas_revert_passes_at_default_settings(checks_root, tmp_path, monkeypatch):
    root = project_with(checks_root, tmp_path / "expects", EXPECTS_OUT_OF_GAS, "")
    monkeypatch.chdir(root)
    config = config_mod.load(root)
    assert (config.fuzz.call_timeout, config.fuzz.call_gas_limit) == (1.0, 2**24), "the defaults"
    summary = run_here(root)
    (result,) = summary.results
    assert (result.status, summary.exit_code) == ("passed", 0), result.failure.message if result.failure else result.error
    assert result.rules["rule_drain"].reverts > 0, "the out-of-gas revert was reached and expected"


def test_a_function_that_runs_out_of_gas_is_reported_with_its_shortest_program(runaway):
    summary = run_here(runaway)
    (result,) = summary.results
    assert result.status == "failed" and summary.exit_code == 1
    failure = result.failure
    assert failure.error_type == "VirtualMachineError"
    assert failure.program == ["state = RunawayMachine()", "state.rule_bump()", "state.rule_bump()", "state.rule_bump()", "state.rule_drain()"]
    assert re.match(r"Runaway\.drain reverted: 'Out of gas'\n  contracts/Runaway\.vy:1[89]: ", failure.message), failure.message
    assert "It used all 16777216 gas a call gets" in failure.message and "revm ran it to its end, as the chain would" in failure.message
    assert (failure.call_failure["function"], failure.call_failure["reason"]) == ("drain", "Out of gas")
    assert "state.rule_drain()" in failure_text(failure)


def test_without_revm_a_runaway_call_stops_the_machine_as_a_limit_of_evmstate(runaway, no_revm):
    summary = run_here(runaway)
    (result,) = summary.results
    assert (result.status, result.failure, summary.exit_code) == ("error", None, 2), "not a falsified property"
    assert result.error.startswith(
        "RunawayMachine stopped at a limit of evmstate, not at a failure of the contract:\nRunaway.drain() did not finish within 0.5 s\n"
    ), result.error
    assert "[fuzz] call_timeout = 0.5 s" in result.error and "([fuzz] call_gas_limit)" in result.error
    assert 'pip install "evmstate[revm]"' in result.error
    # as it came, not shrunk: each run of it would cost the time limit again
    program = result.error.split("\nThe program that reached it:\n", 1)[1].splitlines()
    assert program[0] == "  state = RunawayMachine()" and "  state.rule_bump()" in program, result.error
    assert result.error.endswith("\n  state.rule_drain()")


def test_the_command_reports_the_runaway_call_and_the_setting(runaway):
    code, out = invoke("run", "--seed", "0", "--max-examples", "30", "--steps", "10")
    assert code == 1
    assert "VirtualMachineError: Runaway.drain reverted: 'Out of gas'" in out
    assert "[fuzz] call_gas_limit" in out and "[fuzz] call_timeout on py-evm" in out
    assert "Falsifying example (4 steps):" in out


def test_without_revm_the_command_reports_a_limit_of_evmstate_and_exits_2(runaway, no_revm):
    code, out = invoke("run", "--seed", "0", "--max-examples", "30", "--steps", "10")
    assert code == 2, out
    assert "ERROR machines/runaway.py::RunawayMachine" in out and "Falsifying" not in out
    assert "not at a failure of the contract" in out and "[fuzz] call_timeout = 0.5 s" in out
    assert 'pip install "evmstate[revm]"' in out


SPIN_TEST = """
from evmstate import given, strategy


@given(n=strategy("uint256", min_value=2**40, max_value=2**41))
def test_spin(Checks, n):
    Checks.deploy().spin(n)
"""


def test_without_revm_a_runaway_call_stops_a_property_test_as_a_limit_of_evmstate(checks_root, tmp_path, monkeypatch, no_revm):
    root = project_with(checks_root, tmp_path / "spin", SPIN_TEST, "[fuzz]\ncall_timeout = 0.2\n")
    (root / "machines" / "runaway.py").rename(root / "machines" / "test_spin.py")
    monkeypatch.chdir(root)
    summary = run_here(root)
    (result,) = summary.results
    assert (result.status, result.failure, summary.exit_code) == ("error", None, 2)
    assert result.error.startswith("test_spin stopped at a limit of evmstate, not at a failure of the contract:\nChecks.spin("), result.error
    assert re.search(r"\nThe program that reached it:\n  test_spin\(n=\d+\)$", result.error), result.error


MEMORY = """# pragma version ~=0.4.3
@external
def blow(i: uint256) -> uint256:
    # a local of 600,000 words: zeroing it expands memory to 19.2 MB in one step, some 705 million gas
    words: uint256[600000] = empty(uint256[600000])
    return words[i % 600000]


@external
def spin(n: uint256) -> uint256:
    total: uint256 = 0
    for i: uint256 in range(n, bound=2**62):
        total += i
    return total
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_running_out_of_gas_in_one_costly_step_says_what_it_needed_against_the_block(tmp_path: Path, backend: str):
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Memory.vy").write_text(MEMORY)
    project = Project(Config(root=tmp_path, backend=config_mod.BackendConfig(name=backend)))
    memory = project.Memory.deploy()
    with pytest.raises(VirtualMachineError) as info:
        memory.blow(1)
    text = str(info.value)
    assert "A loop that never ends?" not in text, text
    if backend == "pyevm":
        needed = re.search(r"\nIt needed ([\d,]+) gas for one step \(expanding memory from [\d,]+ to ([\d,]+) bytes\) with [\d,]+ left of the call's 16,777,216; that is more than the block's gas limit \(\[chain\] gas_limit\), 30,000,000: no gas limit lets it run\. Memory that large comes from a value out of range used as an offset or a length", text)
        assert needed, text
        assert int(needed.group(1).replace(",", "")) > 30_000_000 and int(needed.group(2).replace(",", "")) >= 600_000 * 32
    else:  # revm does not tell the cost
        assert info.value.reason == "Out of gas: memory expansion"
        assert "\nIt ran out of gas in one step, expanding memory past what the call's 16,777,216 gas pays for; the block's gas limit ([chain] gas_limit) is 30,000,000." in text, text
    # a loop that uses the gas up step by step keeps its own hint (a cap of a million gas: about a second on py-evm)
    capped = Project(Config(root=tmp_path, backend=config_mod.BackendConfig(name=backend), fuzz=FuzzConfig(call_timeout=0, call_gas_limit=1_000_000)))
    with pytest.raises(VirtualMachineError) as loop:
        capped.Memory.deploy().spin(2**40)
    assert "A loop that never ends?" in str(loop.value) and "for one step" not in str(loop.value)
