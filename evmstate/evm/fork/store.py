"""The state of a forked chain at its pinned block, read through one cache that both backends share.

Every account (balance, nonce, code), storage slot and the block's header is fetched from the
node once, on first read, and kept in memory and on disk under
`.evmstate/fork/<chain id>/<block>/`: one JSON file per address, written atomically (a
temporary file renamed over it), so workers, Dask shards and later runs read what any of them
fetched. The state of a past block never changes, so two processes writing the same file write
the same values; one that loses a race loses only entries the next miss fetches again.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from ...errors import ForkUnavailable
from . import files
from .files import Account, DamagedFile, write_atomic
from .rpc import Rpc, RpcFailure


@dataclass(frozen=True)
class ForkSpec:
    """A chain forked at a pinned block: the node's URL ("" to run from the cache alone), the block, the chain id, the
    cache folder.
    """

    url: str
    block: int
    chain_id: int
    cache: str  # the folder that holds <chain id>/<block>/
    timeout: float = 20.0  # seconds to wait for each answer

    @property
    def folder(self) -> Path:
        return Path(self.cache) / str(self.chain_id) / str(self.block)


@dataclass(frozen=True)
class Header:
    """The pinned block's fields that calls see."""

    number: int
    timestamp: int
    base_fee: int
    coinbase: bytes
    prevrandao: bytes
    gas_limit: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number, "timestamp": self.timestamp, "base_fee": self.base_fee,
            "coinbase": "0x" + self.coinbase.hex(), "prevrandao": "0x" + self.prevrandao.hex(),
            "gas_limit": self.gas_limit,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Header":
        return cls(
            data["number"], data["timestamp"], data["base_fee"], bytes.fromhex(data["coinbase"][2:]),
            bytes.fromhex(data["prevrandao"][2:]), data["gas_limit"],
        )

    @classmethod
    def load(cls, path: Path) -> "Header | None":
        """The header a cache folder's block.json holds (None: no such file); DamagedFile when the file is not one
        evmstate wrote.
        """
        data = files.loaded(path)
        if data is files.ABSENT:
            return None
        sizes = {"coinbase": 20, "prevrandao": 32}
        if not isinstance(data, dict) or set(data) != {
            "number", "timestamp", "base_fee", "coinbase", "prevrandao", "gas_limit",
        }:
            raise DamagedFile(
                path,
                f"it holds {json.dumps(data)[:80]}, not a block's number, timestamp, base_fee, coinbase, prevrandao "
                "and gas_limit",
            )
        for key, value in data.items():
            ok = (
                isinstance(value, str) and len(value) == 2 + 2 * sizes[key] and files.HEX.match(value)
                if key in sizes
                else type(value) is int and value >= 0
            )
            if not ok:
                raise DamagedFile(
                    path,
                    f"its {key} is {json.dumps(value)[:80]}, not "
                    f"{f'{sizes[key]} hex bytes' if key in sizes else 'a whole number'}",
                )
        return cls.from_dict(data)


def shown_url(url: str) -> str:
    """A node's URL as messages and failure records show it: without a path or query, which often hold an API key."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    rest = "/…" if parts.path.strip("/") or parts.query else ""
    return f"{parts.scheme}://{host}{port}{rest}"


class ForkSource:
    """The forked chain's state at its block: from memory, else the cache folder, else the node (counted in requests).
    """

    def __init__(self, spec: ForkSpec) -> None:
        self.spec = spec
        self.rpc = Rpc(spec.url, timeout=spec.timeout) if spec.url else None
        self._accounts: dict[bytes, Account] = {}
        self._slots: dict[bytes, dict[int, int]] = {}
        self._read: set[bytes] = set()  # addresses whose file was read
        # file name -> its inode, modification time and size when everything() last read it
        self._stamps: dict[str, tuple[int, int, int]] = {}
        self._header: Header | None = None
        self._lock = threading.RLock()
        self._proxy: subprocess.Popen[str] | None = None
        self._proxy_url = ""
        self._proxy_log: BinaryIO | None = None  # the loopback node's log of what it answered
        self._proxy_log_path = ""

    def proxy_url(self) -> str:
        """The URL of a loopback node, in a process of its own, that answers pyrevm from this fork's cache folder
        (serve.py); started once.
        """
        with self._lock:
            if self._proxy is None:
                spec = self.spec
                fd, log = tempfile.mkstemp(prefix="evmstate-fork-", suffix=".log")
                self._proxy_log = os.fdopen(fd, "rb", buffering=0)
                arg = json.dumps(
                    {
                        "url": spec.url, "shown": shown_url(spec.url), "block": spec.block, "chain_id": spec.chain_id,
                        "folder": str(spec.folder), "timeout": spec.timeout, "log": log,
                    }
                )
                try:
                    self._proxy = subprocess.Popen(
                        [sys.executable, str(Path(__file__).with_name("serve.py")), arg], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True,
                    )
                    port = self._proxy.stdout.readline().strip() if self._proxy.stdout is not None else ""
                finally:
                    try:
                        os.unlink(log)  # open in both processes by now: nothing is left behind
                    except OSError:  # Windows: close() removes it
                        self._proxy_log_path = log
                if not port.isdigit():
                    raise ForkUnavailable(
                        f"the loopback node of the fork cache {spec.folder} did not start (exit code "
                        f"{self._proxy.poll()})"
                    )
                self._proxy_url = f"http://127.0.0.1:{port}"
                atexit.register(self.close)
            return self._proxy_url

    def answered(self, offset: int = 0) -> tuple[int, list[tuple[bytes, int | None]]]:
        """What the loopback node answered revm after offset in its log: the offset now, and each (address, slot or None
        for the account).
        """
        log = self._proxy_log
        if log is None:
            return offset, []
        size = os.fstat(log.fileno()).st_size  # all a call that asked nothing costs
        if size == offset:
            return offset, []
        if hasattr(os, "pread"):  # at its own offset: a helper forked from this process shares the file's
            text = os.pread(log.fileno(), size - offset, offset)
        else:
            with self._lock:
                log.seek(offset)
                text = log.read(size - offset)
        text = text[: text.rfind(b"\n") + 1]  # whole lines only
        keys: list[tuple[bytes, int | None]] = []
        for line in text.decode().splitlines():
            address, _, slot = line.partition(" ")
            keys.append((bytes.fromhex(address[2:]), int(slot) if slot else None))
        return offset + len(text), keys

    def close(self) -> None:
        """Stop the loopback node, if one was started."""
        proxy, self._proxy = self._proxy, None
        log, self._proxy_log = self._proxy_log, None
        if log is not None:
            log.close()
        if proxy is not None and proxy.stdin is not None:
            with contextlib.suppress(OSError):
                proxy.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proxy.wait(timeout=5)
        if self._proxy_log_path:
            with contextlib.suppress(OSError):
                os.unlink(self._proxy_log_path)

    @property
    def requests(self) -> int:
        """HTTP requests made to the node by this process."""
        return self.rpc.requests if self.rpc is not None else 0

    # -- reads ------------------------------------------------------------

    def header(self) -> Header:
        """The pinned block's header: number, time, base fee, coinbase, prevrandao, gas limit."""
        if self._header is None:
            path = self.spec.folder / "block.json"
            self._header = _readable(Header.load, path)
            if self._header is None:
                block = self._fetch([("eth_getBlockByNumber", [hex(self.spec.block), False])], "the block's header")[0]
                if block is None:
                    raise ForkUnavailable(f"the node at {shown_url(self.spec.url)} has no block {self.spec.block}")
                self._header = Header(**block)
                write_atomic(path, json.dumps(self._header.to_dict(), indent=1))
        return self._header

    def account(self, address: bytes) -> Account:
        """(balance, nonce, code) of address at the block."""
        found = self._accounts.get(address)
        if found is None:
            found = self.accounts([address])[address]
        return found

    def storage(self, address: bytes, slot: int) -> int:
        """The value of one storage slot at the block."""
        slots = self._slots.get(address)
        if slots is not None and slot in slots:
            return slots[slot]
        return self.slots([(address, slot)])[(address, slot)]

    def accounts(self, addresses: list[bytes]) -> dict[bytes, Account]:
        """Several accounts at once: those not cached are fetched in one batch."""
        with self._lock:
            for address in addresses:
                self._load(address)
            missing = self._reloaded(
                [a for a in dict.fromkeys(addresses) if a not in self._accounts], lambda a: a not in self._accounts
            )
            if missing:
                block = hex(self.spec.block)
                calls = []
                for address in missing:
                    h = "0x" + address.hex()
                    calls += [
                        ("eth_getBalance", [h, block]), ("eth_getTransactionCount", [h, block]),
                        ("eth_getCode", [h, block]),
                    ]
                results = self._fetch(
                    calls,
                    f"the account 0x{missing[0].hex()}" + (f" and {len(missing) - 1} more" if len(missing) > 1 else ""),
                )
                for i, address in enumerate(missing):
                    balance, nonce, code = results[3 * i : 3 * i + 3]
                    self._accounts[address] = (balance, nonce, code)
                self._save(missing)
            return {a: self._accounts[a] for a in addresses}

    def slots(self, pairs: list[tuple[bytes, int]]) -> dict[tuple[bytes, int], int]:
        """Several storage slots at once: those not cached are fetched in one batch."""
        with self._lock:
            for address, _ in pairs:
                self._load(address)
            missing = self._reloaded(
                list(dict.fromkeys(p for p in pairs if p[1] not in self._slots.get(p[0], {}))),
                lambda p: p[1] not in self._slots.get(p[0], {}),
            )
            if missing:
                block = hex(self.spec.block)
                calls = [("eth_getStorageAt", ["0x" + a.hex(), hex(s), block]) for a, s in missing]
                results = self._fetch(
                    calls,
                    f"storage slot {missing[0][1]} of 0x{missing[0][0].hex()}"
                    + (f" and {len(missing) - 1} more" if len(missing) > 1 else ""),
                )
                for (address, slot), value in zip(missing, results):
                    self._slots.setdefault(address, {})[slot] = value
                self._save([a for a, _ in missing])
            return {p: self._slots[p[0]][p[1]] for p in pairs}

    def everything(self) -> tuple[dict[bytes, Account], dict[bytes, dict[int, int]]]:
        """All the cache holds (memory, and every file of the cache folder; a file changed since it was read is read
        again): accounts, and slots by address. Not to be changed.
        """
        with self._lock:
            with contextlib.suppress(OSError):
                with os.scandir(self.spec.folder) as entries:
                    for entry in entries:
                        name = entry.name
                        if not (name.startswith("0x") and name.endswith(".json") and len(name) == 47):
                            continue
                        try:
                            stat = entry.stat()
                            address = bytes.fromhex(name[2:42])
                        except (OSError, ValueError):  # a file just replaced, or a name not an address's
                            continue
                        stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)  # a file is replaced whole: a new inode
                        if self._stamps.get(name) != stamp:
                            self._stamps[name] = stamp
                            self._read.add(address)
                            self._merge(address, *_readable(files.read, self.spec.folder, address))
            return self._accounts, self._slots

    # -- the node and the cache folder --------------------------------------

    def _fetch(self, calls: list[tuple[str, list[Any]]], what: str) -> list[Any]:
        spec = self.spec
        if self.rpc is None:
            raise ForkUnavailable(
                f"the fork cache {spec.folder} lacks {what} (chain {spec.chain_id}, block {spec.block}) and no node is "
                "given: "
                f"run again with --fork-url URL (a node of chain {spec.chain_id} that serves block {spec.block}), or "
                "[fork] url in evmstate.toml"
            )
        try:
            return self.rpc.fetch(calls)
        except RpcFailure as failure:
            if failure.kind == "invalid":
                raise ForkUnavailable(
                    f"the node at {shown_url(spec.url)} answered wrongly while evmstate fetched {what} at block "
                    f"{spec.block}: {failure}. Use another node (--fork-url)"
                ) from None
            raise ForkUnavailable(
                f"the node at {shown_url(spec.url)} failed while evmstate fetched {what} at block {spec.block}: "
                f"{failure} "
                f"({failure.kind}, after {self.rpc.retries} retries where a retry could help). Run again later, with "
                "another node "
                "(--fork-url), or from a cache that already holds these values"
            ) from None

    def _reloaded(self, missing: list[Any], still: Any) -> list[Any]:
        """Of what memory lacks, what the cache folder lacks too: another process (revm's proxy, a worker) may have
        fetched it since.
        """
        if not missing:
            return missing
        for address in dict.fromkeys(m if isinstance(m, bytes) else m[0] for m in missing):
            self._merge(address, *_readable(files.read, self.spec.folder, address))
        return [m for m in missing if still(m)]

    def _load(self, address: bytes) -> None:
        if address not in self._read:
            self._read.add(address)
            self._merge(address, *_readable(files.read, self.spec.folder, address))

    def _merge(self, address: bytes, account: Account | None, slots: dict[int, int]) -> None:
        if account is not None:
            self._accounts.setdefault(address, account)
        known = self._slots.setdefault(address, {})
        for slot, value in slots.items():
            known.setdefault(slot, value)

    def _save(self, addresses: list[bytes]) -> None:
        for address in dict.fromkeys(addresses):
            _readable(files.write, self.spec.folder, address, self._accounts.get(address), self._slots.get(address, {}))


def _readable(read: Any, *args: Any) -> Any:
    """read(*args), a damaged cache file raised as ForkUnavailable: the value cannot be had, so the machine stops as an
    error naming the file.

    start.resolve() checks the folder before anything runs; this is for a file damaged since.
    """
    try:
        return read(*args)
    except DamagedFile as e:
        raise ForkUnavailable(str(e)) from None


_SOURCES: dict[ForkSpec, ForkSource] = {}
_SOURCES_LOCK = threading.Lock()


def source_for(spec: ForkSpec) -> ForkSource:
    """The one ForkSource of this process for spec: every backend of a run (revm's py-evm, the reference project) shares
    its cache and counter.
    """
    with _SOURCES_LOCK:
        source = _SOURCES.get(spec)
        if source is None:
            source = _SOURCES[spec] = ForkSource(spec)
        return source


def requests_made() -> int:
    """HTTP requests made to nodes by every fork source of this process."""
    return sum(s.requests for s in _SOURCES.values())


def loopback_answers() -> int:
    """Accounts and slots the loopback nodes of this process's fork sources have answered revm."""
    return sum(len(s.answered()[1]) for s in _SOURCES.values())


def forget_sources() -> None:
    """Drop every ForkSource of this process, as a new process starts: later reads go to the cache folder (and the
    node).
    """
    with _SOURCES_LOCK:
        for source in _SOURCES.values():
            source.close()
        _SOURCES.clear()
