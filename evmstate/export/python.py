"""A saved failure of a machine as a standalone pytest test: its program, run through the pytest plugin's fixtures."""

from __future__ import annotations

import re

from .. import __version__
from ..errors import ExportError
from ..engine.recorded import instance_line
from ..failures import FailureRecord


def failure_line(record: FailureRecord) -> str:
    """What the record's failure said, in one line: the error's type and the first line of its message."""
    error = record.error
    message = str(error.get("message") or "").splitlines()
    text = f"{error.get('type') or 'error'}: {message[0] if message else ''}".rstrip(": ")
    invariant = error.get("invariant")
    return f"invariant {record.name}.{invariant} failed: {text}" if invariant else text


def machine_record(record: FailureRecord, what: str) -> None:
    """Raise ExportError unless the record is a failure of a state machine, with a program to run."""
    if record.kind == "test":
        raise ExportError(
            f"failure {record.id} is of the property test {record.name} ({record.path}), not of a state machine: "
            f"{what} exports machines' programs; `evmstate replay {record.id}` replays the test's example"
        )
    if record.kind != "machine" or not isinstance(record.error, dict) or not record.error.get("type"):
        raise ExportError(
            f"record {record.id} is not a failure of a state machine (its kind is {record.kind!r}): "
            f"{what} exports failures only"
        )


def test_name(record: FailureRecord) -> str:
    """test_<machine>_<id>, as a Python identifier."""
    return "test_" + re.sub(r"\W+", "_", f"{record.name}_{record.id}".lower()).strip("_")


def program_body(record: FailureRecord) -> list[str]:
    """The record's program without its first line (state = Machine()), as the failure printed it."""
    program = list(record.program)
    if not program or program[0] != instance_line(record.name):
        raise ExportError(
            f"failure {record.id}: its program does not start with `{instance_line(record.name)}`; "
            "it cannot be exported as it stands"
        )
    return program[1:]


def pytest_test(record: FailureRecord) -> str:
    """The text of a pytest module that runs the record's program and fails while the failure is there."""
    machine_record(record, "--pytest")
    body = program_body(record)
    said = failure_line(record)
    imports = []
    text = "\n".join(body)
    if "HexBytes(" in text:
        imports.append("from evmstate import HexBytes")
    if "Decimal(" in text:
        imports.append("from decimal import Decimal")
    found = record.versions.get("evmstate")
    found_with = f", found with evmstate {found}" if found and found != __version__ else ""
    doc = [
        f'"""Failure {record.id} of {record.name} ({record.path}) as a pytest test.',
        "",
        f"Exported by evmstate {__version__} from failure record {record.id}{found_with}: "
        f"`evmstate export {record.id} --pytest`.",
        "Each state.<rule>(...) line runs the rule on the project's contracts, then every invariant of the",
        "machine, as a step of `evmstate run` does. While the bug is there the last step fails with:",
        f"    {said}",
        "Once it is fixed the test passes.",
        '"""',
    ]
    lines = [*doc, ""]
    if imports:
        lines += [*imports, ""]
    lines += [
        "",
        f"def {test_name(record)}(evmstate_machine, accounts, chain):",
        f"    state = evmstate_machine({record.path!r}, {record.name!r})"
        + ("" if body else f"  # failed here: {_comment(said)}"),
    ]
    for i, line in enumerate(body):
        last = i == len(body) - 1
        lines.append(f"    {line}" + (f"  # failed here: {_comment(said)}" if last else ""))
    return "\n".join(lines) + "\n"


def _comment(text: str) -> str:
    return " ".join(text.split())
