"""Errors as a reader sees them: the user's frames, the location, a raw call by its contract and function."""

from __future__ import annotations

import contextlib
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contracts.differential import describe_call  # noqa: F401  (importable from here too)
from ..contracts.revert import failure_details
from ..errors import BuildsDiverged, TransactionReverted
from ..failures import FailureIdentity, message_shape
from .verdicts import LIBRARY_DIRS, Escaped, library_file, message_of, shown_type, why_mistake  # noqa: F401  (LIBRARY_DIRS: importable from here too)


def user_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    frames = traceback.extract_tb(exc.__traceback__)
    return [f for f in frames if not library_file(f.filename)]


def shown_path(filename: str) -> str:
    with contextlib.suppress(ValueError):
        return str(Path(filename).relative_to(Path.cwd()))
    return filename


def describe_error(exc: BaseException) -> tuple[str, str, str | None, str]:
    """(type name, message, user location, trimmed traceback) of a failure."""
    frames = user_frames(exc)
    location = None
    if frames:
        last = frames[-1]
        location = f"{shown_path(last.filename)}:{last.lineno} in {last.name}"
        if last.line:
            location += f"\n    {last.line}"
    message = message_of(exc)
    if not message and isinstance(exc, AssertionError) and frames and frames[-1].line:
        message = frames[-1].line
    error_type = shown_type(exc)
    return error_type, message, location, format_frames(frames) + f"{error_type}: {message}\n"


# the times a line repeated in a row (a recursion) is shown before "[Previous line repeated N more times]", as in
# Python's own tracebacks
_REPEATS_SHOWN = 3


def format_frames(frames: list[traceback.FrameSummary]) -> str:
    """traceback.format_list of the frames, each file shown relative to the current folder.

    A recursion's run of one line is formatted _REPEATS_SHOWN times, then counted, as Python does: a
    machine that recursed until Python's limit (100,000 frames once py-evm is loaded) is reported at
    once, not after seconds of formatting frames that are never shown.
    """
    shown: dict[str, str] = {}
    runs: list[tuple[traceback.FrameSummary, int]] = []
    for f in frames:
        if runs and (runs[-1][0].filename, runs[-1][0].lineno, runs[-1][0].name) == (f.filename, f.lineno, f.name):
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((f, 1))
    text = []
    for f, count in runs:
        if f.filename not in shown:
            shown[f.filename] = shown_path(f.filename)
        f.filename = shown[f.filename]
        text += traceback.format_list([f] * min(count, _REPEATS_SHOWN))
        more = count - _REPEATS_SHOWN
        if more > 0:
            text.append(f"  [Previous line repeated {more} more time{'s' if more > 1 else ''}]\n")
    return "".join(text)


def _raised(where: str, exc: BaseException) -> str:
    """What raised exc, and the user's traceback."""
    error_type, message, _, tb = describe_error(exc)
    frames = tb[: len(tb) - len(f"{error_type}: {message}\n")].rstrip()  # the headline already says it
    head = f"{where} raised {error_type}" + (f": {message}" if message else "")
    return f"{head}\nTraceback (user code):\n{frames}" if frames else head


def user_error(where: str, exc: BaseException) -> str:
    """An error in the user's code outside rules and invariants: what raised it, and the user's traceback."""
    text = _raised(where, exc)
    # SystemExit, a KeyboardInterrupt raised on purpose...: say what to write instead, wherever it was raised
    return f"{text}\n{why_mistake(exc)}" if isinstance(exc, Escaped) and not exc.verdict else text


def machine_error(where: str, exc: BaseException, program: list[str]) -> str:
    """A mistake of the machine met in a run (see verdicts): what raised it, the user's traceback, what to write
    instead, the program that reached it.
    """
    text = _raised(where, exc)
    hint = why_mistake(exc)
    lines = "\n".join(f"  {line}" for line in program)
    return (
        f"{text}\nAn error in the machine, not a failure of the contract: "
        f"nothing is saved.{' ' + hint if hint else ''}\nThe program that reached it:\n{lines}"
    )


def harness_limit(name: str, exc: BaseException, program: list[str]) -> str:
    """A call evmstate could not run to its end (CallTimeout), which stops a machine or test: an error, with the program
    that reached it.
    """
    lines = "\n".join(f"  {line}" for line in program)
    return (
        f"{name} stopped at a limit of evmstate, not at a failure of the contract:\n{exc}\nThe program "
        f"that reached it:\n{lines}"
    )


# the attribute an exception raised by an invariant carries: the invariant's name
_FAILED_INVARIANT = "_evmstate_failed_invariant"


def mark_invariant(exc: BaseException, name: str) -> None:
    """Say that exc was raised by the invariant name."""
    setattr(exc, _FAILED_INVARIANT, name)


def failed_invariant(exc: BaseException) -> str | None:
    """The invariant that raised exc, None when a rule or anything else did."""
    return getattr(exc, _FAILED_INVARIANT, None)


@dataclass(frozen=True)
class ErrorInfo:
    """A failure's error as reports and records show it, built once from the exception."""

    type: str
    message: str
    invariant: str | None = None
    revert_reason: str | None = None
    location: str | None = None  # the user's line that raised it: file:line in function, then the line
    traceback: str = ""  # the user's frames
    call_failure: dict[str, Any] | None = None  # the failing call's revert or timeout explained, if any

    @classmethod
    def of(cls, exc: BaseException) -> ErrorInfo:
        error_type, message, location, tb = describe_error(exc)
        reason = exc.reason if isinstance(exc, (TransactionReverted, BuildsDiverged)) else None
        return cls(error_type, message, failed_invariant(exc), reason, location, tb, failure_details(exc))

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ErrorInfo:
        """A failure record's error."""
        return cls(
            data.get("type") or "", data.get("message") or "", data.get("invariant"), data.get("revert_reason"),
            data.get("location"), "", data.get("call_failure"),
        )

    def to_data(self) -> dict[str, Any]:
        """The error as a failure record stores it (no traceback)."""
        return {
            "type": self.type, "message": self.message, "revert_reason": self.revert_reason,
            "call_failure": self.call_failure, "invariant": self.invariant, "location": self.location,
        }


def identity_of(path: str, machine: str, exc: BaseException, rules: list[str]) -> FailureIdentity:
    """The identity (FailureIdentity) of a machine's failure as a run raised it, before shrinking: rules are the
    program's steps' rules, of which the identity reads the last."""
    last = [{"rule": rules[-1]}] if rules else []
    return FailureIdentity.of(path, machine, "machine", ErrorInfo.of(exc).to_data(), last)


@dataclass(frozen=True)
class FailureSignature:
    """What makes two failures the same: error type, invariant, revert reason and the user's line that raised it.

    Step deletion keeps a shorter program only when it fails with the same signature; a failure
    found on revm is explained by py-evm only when py-evm fails the same way; a replayed record
    still fails when the signatures match, the line aside (the machine's source may have moved).
    """

    error_type: str | None
    invariant: str | None
    revert_reason: str | None
    where: str | None  # the first line of the location: file:line in function

    @classmethod
    def of_error(cls, error: ErrorInfo) -> FailureSignature:
        """The signature of an error as a failure or a record shows it."""
        return cls(error.type or None, error.invariant, _shape(error.revert_reason), _first_line(error.location))

    @classmethod
    def of(cls, exc: BaseException) -> FailureSignature:
        """The signature of an exception raised by a run."""
        return cls.of_error(ErrorInfo.of(exc))

    def same(self, other: FailureSignature, *, where: bool = True) -> bool:
        """Whether the two are the same failure; where=False leaves the line out."""
        if where:
            return self == other
        return (self.error_type, self.invariant, self.revert_reason) == (
            other.error_type, other.invariant, other.revert_reason,
        )


def _shape(reason: Any) -> str | None:
    """A revert reason with the numbers, ids and addresses it carries blanked: AlreadyScheduled(0x46a4...) is one
    failure whatever salt made the id (a custom error's arguments follow the program's values)."""
    return message_shape(reason) if isinstance(reason, str) else reason


def _first_line(location: str | None) -> str | None:
    return location.splitlines()[0] if location else None
