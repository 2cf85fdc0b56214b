"""Failure records: one versioned JSON file each, written atomically, never pickled."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

from .config import Config, shown
from .errors import FailureRecordError, ResourceError, remedy, why
from .files import write_atomic
from .hooks import ctrl_c_held
from .values import HexBytes

FORMAT = 1


# -- values as data ----------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A reference to a value a rule produced earlier in the program (a bundle entry)."""

    name: str

    def __repr__(self) -> str:
        return self.name


def encode_value(value: Any) -> Any:
    """A JSON-able form of a drawn value: ints, bytes, strings, accounts by index, tuples, lists."""
    from .contracts.accounts import Account, Actor  # here: listing or removing records loads no eth-keys

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Ref):
        return {"ref": value.name}
    if isinstance(value, Actor):
        return {"actor": value.kind}
    if isinstance(value, Account):
        return {"account": value.index}
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, Decimal):
        return {"decimal": str(value)}
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v) for v in value]}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    raw = getattr(value, "raw_address", None)
    if isinstance(raw, bytes):
        return {"address": "0x" + raw.hex()}
    return {"repr": repr(value)}


def decode_value(data: Any, *, accounts: Any, refs: dict[str, Any]) -> Any:
    """The value encode_value() recorded, with accounts and references resolved in this replay."""
    if data is None or isinstance(data, (bool, str, int)):
        return data
    if isinstance(data, list):
        return [decode_value(v, accounts=accounts, refs=refs) for v in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise FailureRecordError(f"cannot read the recorded value {data!r}")
    (kind, body), = data.items()
    if kind == "ref":
        if body not in refs:
            raise FailureRecordError(f"the program refers to {body}, which no earlier step produced in this replay")
        return refs[body]
    if kind == "account":
        if not 0 <= body < len(accounts):
            raise FailureRecordError(f"the program uses accounts[{body}], but the project has {len(accounts)} accounts")
        return accounts[body]
    if kind == "actor":
        actors = getattr(accounts, "actors", {})
        if body not in actors:
            raise FailureRecordError(
                f"the program uses accounts.actors[{body!r}], which this machine does not deploy: add "
                f"{body!r} to its actors (settings = {{\"actors\": [...]}} or [fuzz] actors)"
            )
        return actors[body]
    if kind == "bytes":
        return HexBytes(bytes.fromhex(body))
    if kind == "decimal":
        return Decimal(body)
    if kind == "float":
        return float(body)
    if kind == "tuple":
        return tuple(decode_value(v, accounts=accounts, refs=refs) for v in body)
    if kind == "dict":
        return {
            decode_value(k, accounts=accounts, refs=refs): decode_value(v, accounts=accounts, refs=refs)
            for k, v in body
        }
    if kind == "address":
        from .contracts.address import checksum

        return checksum(bytes.fromhex(body[2:]))
    if kind == "repr":
        raise FailureRecordError(f"the value {body} was recorded only as text and cannot be rebuilt")
    raise FailureRecordError(f"unknown recorded value kind {kind!r}")


# -- records ----------------------------------------------------------------------


@dataclass
class FailureRecord:
    """Everything needed to replay a falsified machine or property test."""

    id: str
    kind: str  # "machine" or "test"; an optimum's record is a machine's, its error {"type": "Optimum", ...}
    path: str
    name: str
    error: dict[str, Any]
    steps: list[dict[str, Any]]
    program: list[str]
    created: float = field(default_factory=time.time)
    versions: dict[str, str] = field(default_factory=dict)
    hashes: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    interrupted: bool = False
    stopped: str | None = None  # what ended shrinking before its end: the program may not be minimal

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "id": self.id,
            "kind": self.kind,
            "path": self.path,
            "name": self.name,
            "created": self.created,
            "versions": self.versions,
            "hashes": self.hashes,
            "settings": self.settings,
            "seed": self.seed,
            "error": self.error,
            "steps": self.steps,
            "program": self.program,
            "interrupted": self.interrupted,
            **({"stopped": self.stopped} if self.stopped else {}),
            # what makes it this failure (FailureIdentity); read back from the rest
            "identity": self.identity.to_dict(),
        }

    @property
    def optimum(self) -> tuple[str, int] | None:
        """(the optimize method, the value its program reaches) of an optimum's record; None for a failure's."""
        name, value = self.error.get("optimize"), self.error.get("value")
        return (str(name), int(value)) if name and isinstance(value, int) else None

    def rank(self) -> tuple[int, int, int]:
        """Which of two records of one identity to keep, the lower: the higher value of an optimum, then the shorter,
        then the one whose numbers (amounts, waits, accounts) add up to less."""
        optimum = self.optimum
        return (-optimum[1] if optimum else 0, len(self.steps), _size(self.steps))

    @property
    def identity(self) -> FailureIdentity:
        """The failure this record holds a program of: one record per identity is kept."""
        return FailureIdentity.of(self.path, self.name, self.kind, self.error, self.steps)

    @classmethod
    def from_dict(cls, data: Any, *, where: str) -> "FailureRecord":
        if not isinstance(data, dict) or "format" not in data:
            raise FailureRecordError(f"{where}: not an evmstate failure record (no format field)")
        if data["format"] != FORMAT:
            raise FailureRecordError(
                f"{where}: record format {data['format']!r} is not the one this evmstate reads ({FORMAT}). "
                "Re-run `evmstate run` to record the failure again."
            )
        try:
            return cls(
                id=data["id"],
                kind=data["kind"],
                path=data["path"],
                name=data["name"],
                error=data["error"],
                steps=data["steps"],
                program=data["program"],
                created=data.get("created", 0.0),
                versions=data.get("versions", {}),
                hashes=data.get("hashes", {}),
                settings=data.get("settings", {}),
                seed=data.get("seed"),
                interrupted=data.get("interrupted", False),
                stopped=data.get("stopped"),
            )
        except (KeyError, TypeError) as e:
            raise FailureRecordError(f"{where}: the record is missing {e}; it cannot be replayed") from None


_NUMBER = re.compile(r"0x[0-9a-fA-F]+|\d+")


def message_shape(message: str) -> str:
    """The message with its numbers and addresses blanked: the same failure with other values has the same shape."""
    return " ".join(_NUMBER.sub("#", message).split())


def location_key(location: str | None) -> str:
    """Where the error was raised, without the line number: file, function and source line."""
    return re.sub(r":\d+ in ", " in ", location or "")


_SOURCE_LINE = re.compile(r"^(?P<file>.+?):\d+: ")


@dataclass(frozen=True)
class FailureIdentity:
    """What makes two failures of one machine or property test the same bug, whatever program reached them.

    The failure store keeps one record per identity (the shortest program found), and a record's
    id is the identity's. kind: "invariant" (an invariant failed, however), "revert" (a call in
    a rule reverted and the rule did not expect it), "rule" (an assertion of a rule, or of a
    property test, failed) or "exception" (anything else the machine or test raised). name: the
    invariant; else the rule of the program's last step; a property test's own name. where: the
    revert's source line when a contract's code failed (contracts/Vault.vy: assert ...), else the
    user's line that raised it (machines/vault.py in invariant_total: assert ...), each as file
    and text without its number, so that an edit above it keeps the identity. error: the error's
    type; detail: what else tells two such errors apart when the place alone cannot (the shape of
    an exception's message, or of a revert reason without a source line).
    """

    path: str
    machine: str
    kind: str
    name: str
    where: str
    error: str
    detail: str = ""

    @classmethod
    def of(
        cls, path: str, machine: str, kind: str, error: dict[str, Any], steps: list[dict[str, Any]]
    ) -> FailureIdentity:
        """The identity of a failure as a record holds it: kind is the record's ("machine" or "test"), error and steps
        as saved."""
        error_type = error.get("type") or ""
        if error.get("optimize"):  # the best value of an optimize method: one record per method
            return cls(path, machine, "optimum", str(error["optimize"]), "", error_type)
        invariant = error.get("invariant")
        call = error.get("call_failure") if isinstance(error.get("call_failure"), dict) else None
        reverted = call is not None and "timeout" not in call
        where, detail = location_key(error.get("location")).strip(), ""
        if call is not None and reverted and call.get("source_line"):
            where = _SOURCE_LINE.sub(lambda m: m.group("file") + ": ", call["source_line"].splitlines()[0])
        elif call is not None and reverted:
            detail = f"{call.get('contract')}.{call.get('function')}: {message_shape(str(call.get('reason')))}"
        if invariant:
            what, name = "invariant", invariant
        else:
            what = "revert" if reverted else "rule" if error_type == "AssertionError" else "exception"
            last = steps[-1].get("rule") if steps and isinstance(steps[-1], dict) else None
            name = machine if kind == "test" or not last else str(last)
        if what == "exception" or not where:
            detail = detail or message_shape(error.get("message") or "")
        return cls(path, machine, what, name, where, error_type, detail)

    @property
    def id(self) -> str:
        """A short id, the same for every failure with this identity."""
        text = "\n".join([self.path, self.machine, self.kind, self.name, self.where, self.error, self.detail])
        return hashlib.sha256(text.encode()).hexdigest()[:10]

    def __str__(self) -> str:
        where = f" at {self.where.splitlines()[0]}" if self.where else ""
        return f"{self.kind} {self.name}{where} ({self.error})"

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "where": self.where, "error": self.error, "detail": self.detail}


def record_id(kind: str, path: str, name: str, error: dict[str, Any], steps: list[dict[str, Any]]) -> str:
    """The id of a failure's record: its identity's, so the same failure found again, by another program too, keeps its
    id."""
    return FailureIdentity.of(path, name, kind, error, steps).id


_ID = re.compile(r"[A-Za-z0-9_.-]+")


def _size(value: Any) -> int:
    """The numbers of a program's steps added up (their arguments, waits and accounts; not the results they returned):
    of two programs of one length, the one a reader checks by hand with less effort. Byte strings and texts count as
    numbers above every shorter one (256 ** length + the value), lists with their length."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return abs(value)
    if isinstance(value, dict):
        if "ref" in value:
            return 0  # a bundle value: its label
        if set(value) == {"bytes"} and isinstance(value["bytes"], str):
            try:
                return _text_size(bytes.fromhex(value["bytes"]))
            except ValueError:
                return 0
        return sum(
            (_arguments_size(v) if k == "arguments" else _size(v))
            for k, v in value.items()
            if k not in ("results", "rule")
        )
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value)
    return 0


def _arguments_size(arguments: Any) -> int:
    """_size() of a step's arguments, where a text is a value and a list's length counts."""
    if isinstance(arguments, str):
        return _text_size(arguments.encode())
    if isinstance(arguments, (list, tuple)):
        return len(arguments) + sum(_arguments_size(v) for v in arguments)
    if isinstance(arguments, dict) and not ("ref" in arguments or set(arguments) == {"bytes"}):
        return sum(_arguments_size(v) for v in arguments.values())
    return _size(arguments)


def _text_size(data: bytes) -> int:
    return 256 ** len(data) + int.from_bytes(data, "big")


def _sources(record: FailureRecord) -> tuple[Any, ...]:
    """The hashes of the sources a record's program ran on, as far as the record tells."""
    hashes = record.hashes or {}
    if "uses" in hashes:
        return (hashes.get("uses"), hashes.get("deployments"), hashes.get("module"))
    return (hashes.get("contracts"), hashes.get("inputs"), hashes.get("module"))


class FailureStore:
    """The folder of failure records: .evmstate/failures/<id>.json."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of(cls, config: Config) -> FailureStore:
        """The project's store: .evmstate/failures under its state folder."""
        return cls(config.state_dir / "failures")

    def path_of(self, record_id: str) -> Path:
        return self.folder / f"{record_id}.json"

    def save(self, record: FailureRecord) -> Path:
        """Write the record atomically: a reader sees the old file or the new one, never half; Ctrl-C waits until it is
        written.

        A folder that cannot be written (a full or read-only disk) is a ResourceError that names it; nothing is left
        half written.
        """
        target = self.path_of(record.id)
        with ctrl_c_held():
            try:
                write_atomic(target, json.dumps(record.to_dict(), indent=1), durable=True)
            except OSError as exc:
                raise self.unwritable(record.id, exc) from None
        return target

    def unwritable(self, record_id: str, exc: OSError) -> ResourceError:
        """The error of a record that could not be written here: what is lost, and what to do."""
        return ResourceError.unwritable(
            f"the failure record {record_id}",
            shown(self.folder) + "/",
            exc,
            "it is not saved, so `evmstate replay` cannot replay it (the program printed with the failure is all that "
            "is kept of it)",
        )

    def keep(self, record: FailureRecord, *, shrunk: bool = False) -> FailureRecord:
        """Save a failure found, one record per failure (FailureIdentity); return the record saved for it now.

        A record of the same failure saved before stays, and is returned, when its program is
        shorter, or as short with numbers that add up to less (FailureRecord.rank), and was found on
        the same sources; otherwise the new record replaces it. shrunk: the record is `evmstate
        shrink`'s program made from the saved one, which replaces a saved program of its length
        whatever its numbers (the passes move toward Hypothesis's order: an earlier rule, the first
        accounts, not always a smaller sum). Ids do not change: the failure keeps the id it was first
        saved under, the identity's, or one an earlier evmstate gave it (those covered the program,
        so one failure could have several: they merge into the shortest one's).
        """
        identity = record.identity
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with self._locked():
                return self._keep(record, identity, shrunk)
        except OSError as exc:  # a full or read-only disk: save() names it the same way
            raise self.unwritable(record.id, exc) from None

    def _keep(self, record: FailureRecord, identity: FailureIdentity, shrunk: bool = False) -> FailureRecord:
        same = [r for r in self._readable() if r.id == record.id or (r.id != r.identity.id and r.identity == identity)]
        best = min(same, key=lambda r: (r.rank(), -r.created), default=None)
        target = record.id if best is None or any(r.id == record.id for r in same) else best.id
        kept = record
        rank = (lambda r: r.rank()[:2]) if shrunk else FailureRecord.rank
        if best is not None and rank(best) < rank(record) and _sources(best) == _sources(record):
            kept = best
        if kept.id != target:
            kept = dataclasses.replace(kept, id=target)
        if kept is not best:
            self.save(kept)
        for r in same:
            if r.id != target:
                self.path_of(r.id).unlink(missing_ok=True)
        return kept

    def duplicates(self) -> list[tuple[str, FailureRecord]]:
        """Records of a failure that another record holds a shorter program of, each with that record: (its id, the one
        kept).

        Saved by an earlier evmstate, which kept one record per program. The shortest (of equals, the one whose
        numbers add up to less, then the newest) is the one kept.
        """
        groups: dict[FailureIdentity, list[FailureRecord]] = {}
        for record in self._readable():
            groups.setdefault(record.identity, []).append(record)
        found = []
        for same in groups.values():
            best = min(same, key=lambda r: (r.rank(), -r.created))
            found += [(r.id, best) for r in same if r is not best]
        return found

    def _readable(self) -> Iterator[FailureRecord]:
        for rid in self.ids():
            with contextlib.suppress(FailureRecordError):
                yield self.load(rid)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """While inside, no other process keeps a record in this folder (where the platform has flock)."""
        try:
            import fcntl
        except ImportError:  # Windows: records are still written atomically
            yield
            return
        with open(self.folder / ".keep.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def ids(self) -> list[str]:
        """The saved records' ids, oldest first; a record removed meanwhile by another process is left out."""
        if not self.folder.is_dir():
            return []
        found = []
        for p in self.folder.glob("*.json"):
            try:
                found.append((p.stat().st_mtime, p.stem))
            except FileNotFoundError:
                continue
        return [stem for _, stem in sorted(found)]

    def resolve(self, text: str) -> str:
        """The id of the one saved failure whose id is text or starts with it; a clear error otherwise."""
        if not _ID.fullmatch(text or "") or text.strip(".") == "":
            raise FailureRecordError(
                f"{text!r} is not a failure id: ids are letters and digits, as `evmstate failures` lists them"
            )
        known = self.ids()
        if text in known:
            return text
        matches = sorted(k for k in known if k.startswith(text))
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise FailureRecordError(
                f"{text!r} matches {len(matches)} saved failures: {', '.join(matches)}. Give more of the id."
            )
        close = difflib.get_close_matches(text, known, n=3, cutoff=0.6)
        if close:
            hint = f" Closest: {', '.join(close)}."
        elif known:
            hint = f" Saved failures: {', '.join(known[-5:])}{' (newest 5)' if len(known) > 5 else ''}."
        else:
            hint = " No failures are saved."
        raise FailureRecordError(
            f"no saved failure {text!r} in {self.folder}.{hint} List them with `evmstate failures`."
        )

    def load(self, record_id: str) -> FailureRecord:
        """The record with this id, or with the one id that starts with it."""
        record_id = self.resolve(record_id)
        path = self.path_of(record_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            # removed (or replaced by a shorter program) since it was found: another process is at work on the folder
            raise FailureRecordError(
                f"no saved failure {record_id!r} in {self.folder} any more: it was removed while it was read. List "
                "them with `evmstate failures`."
            ) from None
        except (ValueError, UnicodeDecodeError) as e:
            raise FailureRecordError(
                f"{path}: the record is corrupt ({e}); delete it with `evmstate failures rm {record_id}`"
            ) from None
        return FailureRecord.from_dict(data, where=str(path))

    def last(self) -> FailureRecord:
        ids = self.ids()
        if not ids:
            raise FailureRecordError(
                f"no failures are saved in {self.folder}; `evmstate run` saves one when a property fails"
            )
        return self.load(ids[-1])

    def remove(self, record_id: str) -> str:
        """Remove the record with this id (or the one id that starts with it) and return its full id."""
        record_id = self.resolve(record_id)
        self._unlink(record_id)
        return record_id

    def remove_all(self) -> int:
        ids = self.ids()
        for i in ids:
            self._unlink(i)
        return len(ids)

    def _unlink(self, record_id: str) -> None:
        try:
            self.path_of(record_id).unlink(missing_ok=True)
        except OSError as exc:
            where = shown(self.folder) + "/"
            raise ResourceError(
                f"the failure record {record_id} could not be removed from {where} ({why(exc)}). {remedy(exc, where)}",
                where=where,
            ) from None
