"""A loopback JSON-RPC node that answers from the fork cache: what pyrevm's fork mode asks, through the cache folder.

Run as a script of its own (python serve.py SPEC), standard library only, beside files.py and
rpc.py: pyrevm holds the GIL while it waits for an answer, so the server cannot be a thread of
the process that runs revm. It prints its port, then answers eth_getBalance,
eth_getTransactionCount, eth_getCode and eth_getStorageAt at the pinned block from memory, else the
cache folder, else the node (its misses fetched in one batch, written to the folder); anything
else goes to the node. Each account and slot it answers is appended to a log file its parent
reads (the backend seeds its mirror from it; see revm.py). It exits when its parent closes its stdin.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

if __package__:  # imported as evmstate.evm.fork.serve (the layer checks)
    from . import files
    from .rpc import Rpc, RpcFailure
else:  # run as a script, beside them
    import files  # type: ignore[no-redef]
    from rpc import Rpc, RpcFailure  # type: ignore[no-redef]

ACCOUNT_METHODS = ("eth_getBalance", "eth_getTransactionCount", "eth_getCode")
# what pyrevm's error text carries, for the backend to raise as ForkUnavailable
MARK = "evmstate-fork: "


class Cache:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.url = spec["url"]
        self.shown = spec["shown"]
        self.block = spec["block"]
        self.chain_id = spec["chain_id"]
        self.folder = Path(spec["folder"])
        self.rpc = Rpc(self.url, timeout=spec["timeout"]) if self.url else None
        self.accounts: dict[bytes, files.Account] = {}
        self.slots: dict[bytes, dict[int, int]] = {}
        self.lock = threading.Lock()
        # what was answered, one line each ("0x<address>" or "0x<address> <slot>"), written before the answer is sent
        self.log = os.open(spec["log"], os.O_WRONLY | os.O_APPEND) if spec.get("log") else None

    def _logged(self, line: str) -> None:
        if self.log is not None:
            os.write(self.log, line.encode() + b"\n")  # one write of a short line: appended whole

    def _fetch(self, calls: list[tuple[str, list[Any]]], what: str, raw: bool = False) -> list[Any]:
        """The node's answers, checked and decoded (rpc.DECODERS); as they came when raw (passed on to revm as they
        are).
        """
        if self.rpc is None:
            raise LookupError(
                f"{MARK}the fork cache {self.folder} lacks {what} (chain {self.chain_id}, block {self.block}) and no "
                "node is given: run again with "
                f"--fork-url URL (a node of chain {self.chain_id} that serves block {self.block}), or [fork] url in "
                "evmstate.toml"
            )
        try:
            return self.rpc.batch(calls) if raw else self.rpc.fetch(calls)
        except RpcFailure as failure:
            if failure.kind == "invalid":
                raise LookupError(
                    f"{MARK}the node at {self.shown} answered wrongly while evmstate fetched {what} at block "
                    f"{self.block}: {failure}. Use another node (--fork-url)"
                ) from None
            raise LookupError(
                f"{MARK}the node at {self.shown} failed while evmstate fetched {what} at block {self.block}: {failure} "
                f"({failure.kind}, after "
                f"{self.rpc.retries} retries where a retry could help). Run again later, with another node "
                "(--fork-url), or from a cache that already holds these values"
            ) from None

    def _known(self, address: bytes) -> None:
        if address not in self.slots:
            account, slots = files.read(self.folder, address)
            if account is not None:
                self.accounts[address] = account
            self.slots[address] = slots

    def account(self, address: bytes) -> files.Account:
        with self.lock:
            self._known(address)
            if address not in self.accounts:
                h, block = "0x" + address.hex(), hex(self.block)
                balance, nonce, code = self._fetch([(m, [h, block]) for m in ACCOUNT_METHODS], f"the account {h}")
                self.accounts[address] = (balance, nonce, code)
                files.write(self.folder, address, self.accounts[address], self.slots[address])
            self._logged("0x" + address.hex())
            return self.accounts[address]

    def storage(self, address: bytes, slot: int) -> int:
        with self.lock:
            self._known(address)
            slots = self.slots[address]
            # an empty account has no storage: a contract created there asks the node nothing
            if self.accounts.get(address) == (0, 0, b""):
                self._logged(f"0x{address.hex()} {slot}")
                return 0
            if slot not in slots:
                h = "0x" + address.hex()
                (value,) = self._fetch(
                    [("eth_getStorageAt", [h, hex(slot), hex(self.block)])], f"storage slot {slot} of {h}"
                )
                slots[slot] = value
                files.write(self.folder, address, self.accounts.get(address), slots)
            self._logged(f"0x{address.hex()} {slot}")
            return slots[slot]

    def answer(self, method: str, params: list[Any]) -> Any:
        if method == "eth_chainId":
            return hex(self.chain_id)
        if method == "eth_blockNumber":
            return hex(self.block)
        if method in ACCOUNT_METHODS:
            balance, nonce, code = self.account(bytes.fromhex(params[0][2:]))
            return {
                "eth_getBalance": hex(balance), "eth_getTransactionCount": hex(nonce), "eth_getCode": "0x" + code.hex(),
            }[method]
        if method == "eth_getStorageAt":
            return "0x" + self.storage(bytes.fromhex(params[0][2:]), int(params[1], 16)).to_bytes(32, "big").hex()
        return self._fetch([(method, params)], f"{method} {params}", raw=True)[0]


def handler(cache: Cache) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            answers = [self.one(call) for call in (body if isinstance(body, list) else [body])]
            data = json.dumps(answers if isinstance(body, list) else answers[0]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def one(self, call: dict[str, Any]) -> dict[str, Any]:
            try:
                return {
                    "jsonrpc": "2.0", "id": call.get("id"),
                    "result": cache.answer(call["method"], call.get("params", [])),
                }
            except (LookupError, RpcFailure, files.DamagedFile) as e:
                text = str(e) if str(e).startswith(MARK) else f"{MARK}{e}"
                return {"jsonrpc": "2.0", "id": call.get("id"), "error": {"code": -32000, "message": text}}

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def main() -> None:
    cache = Cache(json.loads(sys.argv[1]))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(cache))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the parent closes it, or exits
    os._exit(0)


if __name__ == "__main__":
    main()
