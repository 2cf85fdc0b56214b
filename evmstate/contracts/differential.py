"""A differential run's chains as the project sees them: the lockstep backend built over both builds, the
functions its calls reach, and a divergence written as a reader knows it (each side's outcome decoded)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..errors import ConfigError, UsageError
from ..evm.base import Backend, ExecResult
from ..evm.differential import Codes, DifferentialBackend, Divergence, Options
from ..values import format_value
from .abi import abi_type, decode, entry_of, from_abi_value
from .revert import decode_revert

if TYPE_CHECKING:
    from ..compiler.sources import Build

Project = Any  # contracts.project.Project, which imports this module


def lockstep(project: Project, a: Backend, b: Backend) -> DifferentialBackend:
    """The two chains of project's differential run in lockstep: side A's build on a, side B's on b."""
    if project.config.backend.check:
        raise ConfigError(
            "--backend-check (or [backend] check) and a differential run (--differential, [differential] mode) each "
            "hold two chains in lockstep: run one at a time."
        )
    settings = project.config.differential
    options = Options(
        storage=settings.storage, gas=settings.gas, revert_reasons=settings.revert_reasons, expected=settings.expected
    )
    return DifferentialBackend(a, b, codes(project.build), project.build.sides, options, Describer(project))


def codes(build: "Build") -> Codes:
    """Side A's code -> side B's, for every contract both builds have."""
    other = build.counterpart
    assert other is not None
    return Codes.of(
        [
            (art.bytecode, art.bytecode_runtime, o.bytecode, o.bytecode_runtime)
            for name, art in build.artifacts.items()
            if (o := other.artifacts.get(name)) is not None
        ]
    )


def unmatched(build: "Build") -> dict[str, UsageError]:
    """Side A's contracts that side B does not build (it lacks them, or they do not compile there): each an error for
    whoever asks for it."""
    other = build.counterpart
    assert other is not None
    a, b = build.sides
    found = {}
    for name in build.artifacts:
        if name in other.errors:
            found[name] = UsageError(
                f"contract {name!r} does not compile on side B ({b}) of the differential run, so the two builds "
                f"cannot be compared:\n{other.errors[name]}"
            )
        elif name not in other.artifacts:
            found[name] = UsageError(
                f"side B ({b}) of the differential run has no contract {name!r}, which side A ({a}) has: give both "
                f"sides the same contracts (a file of the same name)."
            )
    return found


def check_layouts(build: "Build", where: str) -> None:
    """[differential] storage compares slots, which means nothing where a contract's storage layout differs between the
    builds: a ConfigError then."""
    other = build.counterpart
    assert other is not None
    for name, art in build.artifacts.items():
        theirs = other.artifacts.get(name)
        if theirs is not None and _storage(art.layout) != _storage(theirs.layout):
            raise ConfigError(
                f"{where}: [differential] storage = true compares the slots both builds write, but {name}'s storage "
                f"layout differs between "
                f"{build.sides[0]} and {build.sides[1]}. Turn storage off for these builds (the calls' results, logs "
                f"and balances are still compared)."
            )


def _storage(layout: Any) -> Any:
    found = layout.get("storage_layout", layout) if isinstance(layout, dict) else layout
    return (
        {k: (v.get("slot"), v.get("type")) if isinstance(v, dict) else v for k, v in found.items()}
        if isinstance(found, dict)
        else found
    )


class Describer:
    """The project's names for what a differential backend compares: functions, accounts, values, reverts, events."""

    def __init__(self, project: Project) -> None:
        self.project = project

    def _entry(self, to: bytes | None, data: bytes) -> tuple[str, dict[str, Any] | None] | None:
        project = self.project
        if to is None:
            for art in project.artifacts.values():
                if art.bytecode and data.startswith(art.bytecode):
                    return f"{art.name}.deploy", None
            return None
        art = project.artifact_at(to)
        if art is None:
            return None
        entry = entry_of(art.abi, data)
        if entry is not None:
            return f"{art.name}.{entry['name']}", entry
        return f"{art.name}.<{'fallback' if data else 'receive'}>", None

    def function(self, to: bytes | None, data: bytes) -> str | None:
        found = self._entry(to, data)
        return found[0] if found is not None else None

    def message(self, d: Divergence) -> str:
        a, b = d.labels
        found = self._entry(d.to, d.data)
        entry = found[1] if found is not None else None
        call = describe_call(self.project, d.sender, d.to, d.data, d.value)
        head = (
            f"{call} ({'a ' + d.kind if d.kind != 'read' else 'a read of the chain'}): build B ({b}) diverged from "
            f"build A ({a}) in its {d.difference.aspect}"
        )
        lines = [head]
        if d.a is not None and d.b is not None:
            lines += [f"  A ({a}): {self._outcome(d.a, d.to, entry)}", f"  B ({b}): {self._outcome(d.b, d.to, entry)}"]
        # the logs are in both outcomes above, decoded; a balance or a storage slot is not
        if d.difference.aspect not in ("success", "return data", "revert reason", "logs") or d.a is None:
            lines.append(
                f"  {d.difference.aspect}: {format_value(d.difference.a)} on A, {format_value(d.difference.b)} on B"
            )
        return "\n".join(lines)

    def _outcome(self, result: ExecResult, to: bytes | None, entry: dict[str, Any] | None) -> str:
        project = self.project
        art = project.artifact_at(to) if to is not None else None
        if not result.success:
            if result.error != "revert":
                return f"failed: {result.error}"
            reason = decode_revert(result.output, art.abi if art else (), art.error_signatures if art else ())
            return f"reverted: {reason!r}" if reason is not None else "reverted without a reason"
        if to is None:
            text = f"deployed at 0x{result.contract_address.hex()}" if result.contract_address else "deployed"
        elif entry is not None and entry.get("outputs"):
            types = [abi_type(o) for o in entry["outputs"]]
            try:
                values = [from_abi_value(t, v) for t, v in zip(types, decode(types, result.output))]
                text = "returned " + ", ".join(format_value(v) for v in values)
            except Exception:
                text = f"returned 0x{result.output.hex()}"
        else:
            text = "succeeded" + (f", returning 0x{result.output.hex()}" if result.output else "")
        if result.logs:
            text += "; logs " + ", ".join(self._event(log) for log in result.logs)
        return text

    def _event(self, log: Any) -> str:
        try:
            event = self.project.event_decoder.decode(log)
            shown = namer(self.project)
            return f"{event.name}({', '.join(f'{k}={format_value(v, name=shown)}' for k, v in event.items())})"
        except Exception:
            return f"0x{log.address.hex()} topics={[hex(t) for t in log.topics]} data=0x{log.data.hex()}"


def namer(project: Project) -> Callable[[Any], str | None]:
    """format_value's name= for a call's arguments and an event's fields: accounts[i], accounts.actors["kind"] and
    <Contract 0x...> for the addresses the project knows, as traces show them."""
    known = {a.address.lower(): repr(a) for a in (*project.accounts, *project.accounts.actors.values())}

    def name(value: Any) -> str | None:
        if not isinstance(value, str) or len(value) != 42 or value[:2] != "0x":
            return None
        found = known.get(value.lower())
        if found is not None:
            return found
        try:
            contract = project.name_at(bytes.fromhex(value[2:]))
        except ValueError:  # a string that only looks like an address
            return None
        return f"<{contract} {value}>" if contract is not None else None

    return name


def describe_call(project: Project, sender: bytes, to: bytes | None, data: bytes, value: int) -> str:
    """A raw call as a reader knows it: Token.transfer(accounts[2], 5) from accounts[1]."""
    account = project.accounts.at(sender)
    contract = project.name_at(sender)
    named = account.index >= 0 or account in project.accounts.actors.values()
    who = repr(account) if named else f"<{contract} {account.address}>" if contract else f"0x{sender.hex()}"
    artifact = project.artifact_at(to) if to is not None else None
    what = f"0x{to.hex()}" if to is not None else "a deployment"
    if to is None:
        for art in project.artifacts.values():
            if art.bytecode and data.startswith(art.bytecode):
                what = f"{art.name}.deploy"
    elif artifact is not None:
        name = project.name_at(to)
        what = f"{name} at 0x{to.hex()}"
        entry = entry_of(artifact.abi, data)
        if entry is not None:
            types = [abi_type(p) for p in entry.get("inputs", [])]
            try:
                shown = namer(project)
                values = (from_abi_value(t, v) for t, v in zip(types, decode(types, data[4:])))
                args = ", ".join(format_value(v, name=shown) for v in values)
            except Exception:
                args = f"0x{data[4:].hex()}"
            what = f"{name}.{entry['name']}({args})"
    return f"{what} from {who}" + (f" with value {value}" if value else "")
