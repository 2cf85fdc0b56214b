"""JSON-RPC to the node a chain is forked from: batched requests, a timeout on each, retries with
backoff on rate limits and timeouts, and a bound on the requests in flight at once.

Every answer evmstate uses is checked before it is used (fetch(): a hex number, hex bytes, a
block), so a node that answers well-formed JSON-RPC with a wrong result is told as such, naming
the method and what it returned. Every HTTP request is counted (`requests`): the tests and
benchmarks/fork.py check that a run served from the cache makes none.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

# calls per HTTP request: most providers accept batches of 100 or more; 50 stays under every one
BATCH = 50
# what a node says when it no longer holds the state of an old block
PRUNED = (
    "missing trie node", "pruned", "state not available", "state is not available", "historical state",
    "header not found", "unknown block", "required historical",
)
# what a provider says when it limits the rate of requests
LIMITED = ("rate limit", "limit exceeded", "too many requests", "exceeded the", "capacity", "try again")
UNSUPPORTED = ("method not found", "not supported", "does not exist/is not available", "unsupported")


class RpcFailure(Exception):
    """Raised when a request to the node fails for good; kind is "unreachable", "pruned", "unsupported", "limited",
    "timeout", "error", or "invalid" (an answer that is not what the method returns).
    """

    def __init__(self, kind: str, message: str, method: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.method = method


def kind_of(message: str) -> str:
    """What a node's error message means: "pruned", "unsupported", "limited" or "error"."""
    text = message.lower()
    if any(p in text for p in PRUNED):
        return "pruned"
    if any(p in text for p in LIMITED):
        return "limited"
    if any(p in text for p in UNSUPPORTED):
        return "unsupported"
    return "error"


class Rpc:
    """A JSON-RPC client of one node: call() and batch(), counted in requests."""

    def __init__(
        self, url: str, *, timeout: float = 20.0, retries: int = 5, backoff: float = 0.5, concurrency: int = 4
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.requests = 0
        self._lock = threading.Lock()
        self._gate = threading.Semaphore(concurrency)
        self._ids = 0

    def call(self, method: str, params: list[Any]) -> Any:
        """One call's result; RpcFailure when the node refuses it or cannot be reached."""
        return self.batch([(method, params)])[0]

    def fetch(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        """The results of these calls, each checked and decoded as its method returns it (see DECODERS); RpcFailure
        "invalid" for one that is not.
        """
        return [decoded(method, result) for (method, _), result in zip(calls, self.batch(calls))]

    def batch(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        """The results of these calls in order, sent in batches of BATCH, at most `concurrency` at once."""
        chunks = [calls[i : i + BATCH] for i in range(0, len(calls), BATCH)]
        if len(chunks) <= 1:
            return self._send(chunks[0]) if chunks else []
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return [r for part in pool.map(self._send, chunks) for r in part]

    def _send(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        """One batch, retried with growing pauses while the node limits the rate or times out."""
        with self._lock:
            first = self._ids
            self._ids += len(calls)
        body = [{"jsonrpc": "2.0", "id": first + i, "method": m, "params": p} for i, (m, p) in enumerate(calls)]
        pause = self.backoff
        for attempt in range(self.retries + 1):
            try:
                answers = self._post(body)
                return self._results(answers, calls, first)
            except RpcFailure as failure:
                if failure.kind not in ("limited", "timeout") or attempt == self.retries:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 8.0)
        raise AssertionError("unreachable")  # pragma: no cover

    def _post(self, body: list[dict[str, Any]]) -> Any:
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            self.url, data=data, headers={"Content-Type": "application/json", "User-Agent": "evmstate"}
        )
        with self._gate:
            with self._lock:
                self.requests += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors="replace")[:300]
                if e.code == 429 or kind_of(text) == "limited":
                    raise RpcFailure("limited", f"HTTP {e.code} (rate limited): {text}") from None
                raise RpcFailure("error", f"HTTP {e.code}: {text or e.reason}") from None
            except TimeoutError:
                raise RpcFailure("timeout", f"no answer within {self.timeout:g} s") from None
            except urllib.error.URLError as e:
                if isinstance(e.reason, TimeoutError):
                    raise RpcFailure("timeout", f"no answer within {self.timeout:g} s") from None
                raise RpcFailure("unreachable", f"cannot connect ({e.reason})") from None
            except (ConnectionError, OSError) as e:
                raise RpcFailure("unreachable", f"cannot connect ({e})") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise RpcFailure("error", f"the answer is not JSON: {raw[:120]!r}") from None

    @staticmethod
    def _results(answers: Any, calls: list[tuple[str, list[Any]]], first: int) -> list[Any]:
        if isinstance(answers, dict):  # a node that refuses the whole batch answers with one error
            answers = [answers]
        if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
            method = calls[0][0] if calls else None
            raise RpcFailure(
                "invalid",
                f"the answer to {method} is not JSON-RPC (a list of objects with an id and a result): "
                f"{shown_value(answers)}",
                method,
            )
        by_id = {a.get("id"): a for a in answers if isinstance(a.get("id"), (int, str))}
        results = []
        for i, (method, _) in enumerate(calls):
            answer = by_id.get(first + i) or (answers[0] if len(answers) == 1 and len(calls) == 1 else None)
            if answer is None:
                raise RpcFailure("error", "the node's answer left out a call of the batch", method)
            error = answer.get("error")
            if error is not None:
                message = str(error.get("message", error)) if isinstance(error, dict) else str(error)
                code = error.get("code") if isinstance(error, dict) else None
                kind = "unsupported" if code == -32601 else "limited" if code in (-32005, 429) else kind_of(message)
                raise RpcFailure(kind, f"{method}: {message}", method)
            results.append(answer.get("result"))
        return results


# -- what each method evmstate uses returns ----------------------------------

HEX = re.compile(r"0[xX][0-9a-fA-F]*\Z")


def shown_value(value: Any) -> str:
    """An answer as a message shows it: its JSON, cut to 80 characters."""
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _invalid(method: str, value: Any, wanted: str, field: str | None = None) -> RpcFailure:
    said = f"a block whose {field} is" if field else ""
    return RpcFailure(
        "invalid", f"{method} returned {said}{' ' if said else ''}{shown_value(value)}, not {wanted}", method
    )


def quantity(method: str, value: Any, field: str | None = None) -> int:
    """A hex number ("0x1a"; "0x" is 0) of at most 256 bits."""
    if isinstance(value, str) and HEX.match(value) and len(value) <= 66:
        return int(value[2:] or "0", 16)
    raise _invalid(method, value, 'a hex number such as "0x1a"', field)


def hex_bytes(method: str, value: Any, size: int | None = None, field: str | None = None) -> bytes:
    """Hex bytes ("0x6080..."), of size bytes when size is given."""
    if (
        isinstance(value, str)
        and HEX.match(value)
        and len(value) % 2 == 0
        and (size is None or len(value) == 2 + 2 * size)
    ):
        return bytes.fromhex(value[2:])
    raise _invalid(method, value, f"{size} hex bytes" if size else 'hex bytes such as "0x6080"', field)


def block(method: str, value: Any) -> dict[str, Any] | None:
    """A block object's fields evmstate uses (a Header's), or None for a block the node does not have."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _invalid(method, value, "a block object (or null)")
    for name in ("number", "timestamp", "gasLimit", "miner"):
        if name not in value:
            raise RpcFailure("invalid", f"{method} returned a block without {name!r}: {shown_value(value)}", method)
    found: dict[str, Any] = {
        ours: quantity(method, value[theirs], theirs)
        for ours, theirs in (("number", "number"), ("timestamp", "timestamp"), ("gas_limit", "gasLimit"))
    }
    found["base_fee"] = quantity(method, value.get("baseFeePerGas") or "0x0", "baseFeePerGas")  # none before London
    found["coinbase"] = hex_bytes(method, value["miner"], 20, "miner")
    found["prevrandao"] = hex_bytes(method, value.get("mixHash") or "0x" + "00" * 32, 32, "mixHash")
    return found


# the methods whose answers evmstate uses, and how each is read; anything else is passed on as it came
DECODERS: dict[str, Callable[[str, Any], Any]] = {
    "eth_chainId": quantity,
    "eth_getBalance": quantity,
    "eth_getTransactionCount": quantity,
    "eth_getStorageAt": quantity,
    "eth_getCode": hex_bytes,
    "eth_getBlockByNumber": block,
}


def decoded(method: str, value: Any) -> Any:
    """value as method returns it (DECODERS); RpcFailure "invalid" when it is not."""
    decoder = DECODERS.get(method)
    return value if decoder is None else decoder(method, value)
