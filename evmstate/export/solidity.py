"""A saved failure of a machine as a Foundry test in Solidity, made from the calls a replay of its program made.

The contracts are deployed from their Vyper sources with forge-std's deployCodeTo, each at the
address it had under evmstate, so that every argument, return value and storage word is the same
word for word; the senders are pranked (vm.prank), the clock and block number set as they were
for each call (vm.warp, vm.roll). What the test asserts depends on the failure:

- a call a rule made reverted: that call is made, and its revert is the test's (forge shows its data);
- anything else (an invariant, an assertion of a rule, a revert the rule expected that did not come):
  a Python check cannot run in Solidity, so the test makes again the calls the failing check made
  (the invariant's views, the last step's calls) and fails when every one of them returns what it
  returned when evmstate saw the failure: the state the check rejected. A fix that changes any of
  those values passes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import __version__
from ..config import Config
from ..compiler.sources import find_sources
from ..errors import ExportError
from ..engine.recorded import program_lines
from ..failures import FailureRecord
from .python import failure_line, machine_record, program_body
from .recording import Recording, Sent, record_program

HELPERS = """
    /// The call from `from` with `value` wei, which `from` pays; returns whether it succeeded and what it returned.
    function _send(address from, address to, uint256 value, bytes memory data)
        internal
        returns (bool ok, bytes memory out)
    {
        vm.deal(address(this), value);
        vm.prank(from);
        (ok, out) = to.call{value: value}(data);
        if (ok && value > 0) vm.deal(from, from.balance - value);
    }

    /// The call as _send makes it; its revert, if it reverts, is the test's, with the same data.
    function _call(address from, address to, uint256 value, bytes memory data) internal {
        (bool ok, bytes memory out) = _send(from, to, value, data);
        if (!ok) {
            assembly {
                revert(add(out, 32), mload(out))
            }
        }
    }

    /// A call that changes nothing (a view), from `from`.
    function _view(address from, address to, bytes memory data) internal returns (bool ok, bytes memory out) {
        vm.prank(from);
        (ok, out) = to.staticcall(data);
    }

    /// Whether a call ended as it did when the failure was seen, and so did every one before it.
    function _same(bool before, bool ok, bytes memory out, bool okThen, bytes memory outThen)
        internal
        pure
        returns (bool)
    {
        return before && ok == okThen && keccak256(out) == keccak256(outThen);
    }
"""


def solidity_name(record: FailureRecord) -> str:
    """The test contract's name: <Machine>_<id>_Test, a Solidity identifier."""
    return re.sub(r"\W+", "_", f"{record.name}_{record.id}_Test")


def _hex(data: bytes) -> str:
    return f'hex"{data.hex()}"'


def _comment(text: str) -> str:
    return " ".join(text.split())


class _Writer:
    """The test function's body, line by line, keeping the clock and block number the calls ran at."""

    def __init__(self, recording: Recording, sources: dict[str, str], record: FailureRecord, with_vyper: bool) -> None:
        self.recording = recording
        self.sources = sources
        self.record = record
        self.with_vyper = with_vyper
        self.lines: list[str] = []
        self.at = (recording.timestamp, recording.number)

    def say(self, line: str) -> None:
        self.lines.append(f"        {line}")

    def when(self, sent: Sent) -> None:
        timestamp, number = self.at
        if sent.timestamp != timestamp:
            self.say(f"vm.warp({sent.timestamp});")
        if sent.number != number:
            self.say(f"vm.roll({sent.number});")
        self.at = (sent.timestamp, sent.number)

    def start(self) -> None:
        r = self.recording
        self.say(f"vm.chainId({r.chain_id});")
        self.say(f"vm.warp({r.timestamp});")
        self.say(f"vm.roll({r.number});")
        for address, balance in r.balances:
            self.say(f"vm.deal({address}, {balance});")

    def deploy(self, sent: Sent) -> None:
        source = self.sources.get(sent.contract or "")
        if source is None:
            raise ExportError(
                f"failure {self.record.id}: the program deploys {sent.contract}, "
                "which is not a Vyper source of the project's contracts folder "
                "(an actor, a precompiled artifact or an interface): a Foundry test cannot deploy it from source"
            )
        if not sent.ok or sent.to is None:
            raise ExportError(
                f"failure {self.record.id}: the program deploys {sent.contract} and the deployment reverts: "
                "a Foundry test cannot express that"
            )
        self.when(sent)
        self.say(f"// {sent.label} from {sent.sender}")
        if sent.value and not self.with_vyper:
            self.say(f"vm.deal(address(this), {sent.value});")
        self.say(f"vm.setNonce({sent.to}, 1);")
        if self.with_vyper:
            self.say(f'_deployAt(_vyper("{source}"), {_hex(sent.data)}, {sent.value}, {sent.to}, {sent.sender});')
            return
        self.say(f"vm.prank({sent.sender});")
        self.say(f'deployCodeTo("{Path(source).name}", {_hex(sent.data)}, {sent.value}, {sent.to});')

    def chain(self, sent: Sent) -> None:
        function, args = sent.function.removeprefix("chain."), sent.args
        if function in ("sleep", "mine", "warp", "roll"):
            return  # the clock and block number are set before each call from what they were
        self.say(f"// {sent.label}")
        if function == "set_balance":
            self.say(f"vm.deal({args[0]}, {int(args[1])});")
        elif function == "set_storage":
            self.say(f"vm.store({args[0]}, bytes32(uint256({int(args[1])})), bytes32(uint256({int(args[2])})));")
        elif function == "set_code":
            self.say(f"vm.etch({args[0]}, {_hex(getattr(args[1], 'code', b''))});")
        elif function == "deal":
            self.say(f"deal({args[0]}, {args[1]}, {int(args[2])}{', true' if len(args) > 3 and args[3] else ''});")
        else:
            raise ExportError(
                f"failure {self.record.id}: the program calls {sent.label}, which a Foundry test cannot express"
            )

    def call(self, sent: Sent, *, checked: bool) -> None:
        """A call or transaction; checked: it ended as it did when the failure was seen (folded into `same`)."""
        if sent.to is None or sent.sender is None:
            raise ExportError(
                f"failure {self.record.id}: the program makes {sent.label}, whose target or sender is not known"
            )
        if sent.kind == "call" and not checked:
            return  # it changed nothing and is not what the failing check saw
        self.when(sent)
        outcome = (
            "returned " + (_hex(sent.output) if sent.output else "nothing")
            if sent.ok
            else "reverted" + (f" with {_hex(sent.output)}" if sent.output else "")
        )
        self.say(f"// {sent.label} from {sent.sender}: {outcome}")
        if sent.kind == "call":
            self.say(f"(ok, out) = _view({sent.sender}, {sent.to}, {_hex(sent.data)});")
        elif checked:
            self.say(f"(ok, out) = _send({sent.sender}, {sent.to}, {sent.value}, {_hex(sent.data)});")
        elif sent.ok:
            self.say(f"_call({sent.sender}, {sent.to}, {sent.value}, {_hex(sent.data)});")
        else:
            self.say(
                f"_send({sent.sender}, {sent.to}, {sent.value}, {_hex(sent.data)}); "
                "// reverted here too, and the machine went on"
            )
            return
        if checked:
            self.say(f"same = _same(same, ok, out, {str(sent.ok).lower()}, {_hex(sent.output)});")

    def section(self, calls: list[Any], *, failing: bool, reverted: bool) -> None:
        last = len(calls) - 1
        for i, sent in enumerate(calls):
            if sent.kind == "deploy":
                self.deploy(sent)
            elif sent.kind == "chain":
                self.chain(sent)
            elif failing and reverted and i == last:
                self.when(sent)
                self.say(
                    f"// {sent.label} from {sent.sender}: reverted with {_hex(sent.output)} when the failure was seen"
                )
                self.say(f"_call({sent.sender}, {sent.to}, {sent.value}, {_hex(sent.data)});")
            else:
                self.call(sent, checked=failing and not reverted)


def _reverted(recording: Recording, record: FailureRecord) -> bool:
    """Whether the failure is a call of the failing section that reverted (a transaction nothing expected to revert)."""
    call = record.error.get("call_failure")
    calls = [c for c in recording.failing.calls if c.kind != "chain"]
    return (
        isinstance(call, dict)
        and "timeout" not in call
        and bool(calls)
        and calls[-1].kind == "transaction"
        and not calls[-1].ok
    )


def _vyper_helpers(config: Config) -> str:
    """_vyper(path): the deploy code of the Vyper source at path, compiled by the `vyper` on PATH (vm.ffi) with the
    project's settings; _deployAt: a constructor run at a given address, as forge-std's deployCodeTo does."""
    flags = ["-f", "bytecode", "--evm-version", config.compiler.evm_version]
    if config.compiler.optimize:
        flags += ["-O", config.compiler.optimize]
    for folder in config.compiler.search_paths:
        flags += ["-p", folder]
    command = ["vyper", *flags]
    filled = "\n".join(f'        command[{i}] = "{_solidity_string(part)}";' for i, part in enumerate(command))
    return f"""
    /// The deploy code of the Vyper source at path (from the project's root), compiled now by the `vyper` on PATH.
    function _vyper(string memory path) internal returns (bytes memory) {{
        string[] memory command = new string[]({len(command) + 1});
{filled}
        command[{len(command)}] = path;
        return vm.ffi(command);
    }}

    /// The constructor of `code` run with `args` at `where`, from `from` with `value` wei,
    /// as forge-std's deployCodeTo runs it.
    function _deployAt(bytes memory code, bytes memory args, uint256 value, address where, address from) internal {{
        vm.etch(where, abi.encodePacked(code, args));
        vm.deal(address(this), value);
        vm.prank(from);
        (bool ok, bytes memory runtime) = where.call{{value: value}}("");
        require(ok, "the constructor reverted");
        vm.etch(where, runtime);
    }}
"""


def _refuse_actors(recording: Recording, record: FailureRecord) -> None:
    """ExportError when a call of the program is sent by an actor or to one, or a transaction names one (a receiver it
    pays): a Foundry test deploys no actor, so the address would hold no code there, take ether silently and never call
    back. A view that only reads what an actor holds (balanceOf(actor)) reads the same there."""
    for section in recording.sections:
        for sent in section.calls:
            for address, kind in recording.actors.items():
                named = sent.kind in ("transaction", "deploy") and bytes.fromhex(address[2:]) in sent.data
                if address in (sent.sender, sent.to) or named:
                    raise ExportError(
                        f'failure {record.id}: the program goes through the actor accounts.actors["{kind}"] '
                        f"({sent.label}), which a Foundry test does not deploy: there its address would hold no "
                        f"code. Export it with --pytest, which deploys the machine's actors"
                    )


def foundry_test(config: Config, record: FailureRecord, compile_with: str = "forge") -> str:
    """The text of a Foundry test (Solidity) that makes the record's calls and fails while the failure is there.

    compile_with: "forge" (forge-std's deployCodeTo, of the sources forge compiles) or "vyper" (each source compiled
    at test time by the `vyper` on PATH through vm.ffi, with the project's compiler settings).
    """
    if compile_with not in COMPILERS:
        raise ExportError(f"--compile-with {compile_with}: give one of {', '.join(COMPILERS)}")
    machine_record(record, "--foundry")
    body = program_body(record)
    recording = record_program(config, record)
    _refuse_actors(recording, record)
    root = config.root.resolve()
    sources = {p.stem: _shown(p, root) for p in find_sources(config.contracts_dir)}
    reverted = _reverted(recording, record)
    failing = recording.failing
    if not reverted and not any(c.kind in ("call", "transaction") for c in failing.calls):
        where = f"the invariant {failing.label}" if failing.kind == "invariant" else f"the step `{failing.label}`"
        raise ExportError(
            f"failure {record.id}: {where} made no call to a contract when it failed, "
            "so a Foundry test has nothing to check: "
            f"its check is Python alone. Export it with --pytest, which runs the machine's own check"
        )
    with_vyper = compile_with == "vyper"
    writer = _Writer(recording, sources, record, with_vyper)
    writer.start()
    for section in recording.sections:
        is_failing = section is failing
        if not (is_failing or any(c.kind != "call" for c in section.calls)):
            continue  # views alone change nothing
        titles = {"init": section.label, "setup": "setup()", "invariant": f"invariant {section.label}"}
        writer.say(f"// {_comment(titles.get(section.kind, section.label))}")
        writer.section(section.calls, failing=is_failing, reverted=reverted)
    if not reverted:
        what = "the invariant's calls" if failing.kind == "invariant" else "the last step's calls"
        said = _solidity_string(failure_line(record))
        writer.say(f'assertFalse(same, "{said}: {what} returned what they returned when it failed");')
    made = {sources.get(c.contract or "", "") for s in recording.sections for c in s.calls if c.kind == "deploy"}
    deployed = sorted(made - {""})
    declarations = "" if reverted else "        bool same = true;\n        bool ok;\n        bytes memory out;\n"
    helpers = HELPERS + (_vyper_helpers(config) if with_vyper else "")
    test = "\n".join(writer.lines)
    return _head(record, body, deployed, with_vyper) + declarations + test + "\n    }\n" + helpers + "}\n"


# a source that hands a module another module it `uses:` (`initializes: erc20[ownable := ownable]`): forge's own Vyper
# build compiles each imported module on its own, which fails for a module that uses another
HANDS_A_MODULE = re.compile(r"^\s*initializes\s*:\s*[\w.]+\s*\[", re.M)


def forge_note(config: Config) -> str:
    """What to say of a Foundry export whose sources forge compiles itself (--compile-with forge): where a source of the
    project initializes a module that uses another, forge cannot build it, and --compile-with vyper can; else ""."""
    handing = [p for p in find_sources(config.contracts_dir) if HANDS_A_MODULE.search(p.read_text(errors="replace"))]
    if not handing:
        return ""
    names = ", ".join(_shown(p, config.root.resolve()) for p in handing[:3])
    return (
        f"note: {names} initialize{'s' if len(handing) == 1 else ''} a module that uses another (snekmate's erc20 uses "
        "ownable), which forge's own Vyper build cannot compile: export with --compile-with vyper to compile the "
        "sources with vyper when the test runs (docs/export.md)"
    )


def _head(record: FailureRecord, body: list[str], deployed: list[str], with_vyper: bool) -> str:
    """The test's file up to its test function's body: the comment that names the record and evmstate's version."""
    names = ", ".join(deployed)
    if with_vyper:
        how = (
            f"The Vyper sources it deploys ({names}) are compiled when it runs, by the `vyper` on PATH "
            "through vm.ffi:\n/// run forge from the evmstate project's root with ffi = true. "
            "Each is deployed at the address it had under evmstate."
        )
    else:
        how = (
            f"The Vyper sources it deploys ({names}) must be among the files forge compiles "
            "(with the `vyper` on PATH);\n/// each is deployed at the address it had under evmstate."
        )
    command = f"`evmstate export {record.id} --foundry{' --compile-with vyper' if with_vyper else ''}`"
    found = record.versions.get("evmstate")
    found_with = f", found with evmstate {found}" if found and found != __version__ else ""
    program = "\n".join(f"///     {line}" for line in program_lines(record.name, body))
    return f"""// SPDX-License-Identifier: UNLICENSED
pragma solidity >=0.8.13;

import {{Test}} from "forge-std/Test.sol";

/// Failure {record.id} of {record.name} ({record.path}) as a Foundry test.
/// Exported by evmstate {__version__} from failure record {record.id}{found_with}: {command}.
/// The program evmstate found:
{program}
/// It failed with: {_comment(failure_line(record))}
/// {how}
contract {solidity_name(record)} is Test {{
    function test_{re.sub(r"[^0-9A-Za-z_]", "_", record.id)}() public {{
"""


COMPILERS = ("forge", "vyper")


def _shown(path: Path, root: Path) -> str:
    """A source's path from the project's root (as vm.ffi runs vyper there), else as it is."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _solidity_string(text: str) -> str:
    """text inside a Solidity string literal: one line, quotes and backslashes escaped, ASCII."""
    text = _comment(text).replace("\\", "\\\\").replace('"', '\\"')
    return text.encode("ascii", "replace").decode()
