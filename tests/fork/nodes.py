"""Nodes for the fork tests: anvil (a real node, installed from npm's @foundry-rs/anvil), a loopback proxy
that counts the requests made to it, and a loopback node that answers from recorded responses
(for timeouts, rate limits, pruned state and a node without old storage)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import vyper

# an anvil binary, or a folder holding node_modules/@foundry-rs/anvil* (.ci/run sets it)
ANVIL_ENV = "EVMSTATE_TEST_ANVIL"


def anvil_in(folder: Path) -> Path | None:
    """The anvil binary npm's @foundry-rs/anvil put under folder (it ships in a platform package), if any."""
    for candidate in sorted(folder.glob("node_modules/@foundry-rs/anvil-*/bin/anvil")):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def install_anvil(folder: Path) -> Path:
    """npm install @foundry-rs/anvil into folder (once: an earlier install is found there)."""
    found = anvil_in(folder)
    if found is not None:
        return found
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--silent", "@foundry-rs/anvil"], check=True, capture_output=True, timeout=300)
    found = anvil_in(folder)
    if found is None:
        raise RuntimeError(f"npm installed @foundry-rs/anvil into {folder}, but no anvil binary is there")
    return found


@functools.lru_cache(maxsize=None)
def creation_code(source: str) -> str:
    """The creation code of a Vyper source, compiled once per test process (every fork test deploys the same contract)."""
    return vyper.compile_code(source, output_formats=["bytecode"])["bytecode"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rpc(url: str, method: str, *params: Any) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer = json.loads(response.read())
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    return answer["result"]


class Anvil:
    """A running anvil node with its unlocked first account: deploy(), send(), mine(), block()."""

    def __init__(self, binary: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([str(binary), "--port", str(self.port), "--silent"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                self.account = rpc(self.url, "eth_accounts")[0]
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("anvil did not start") from None
                time.sleep(0.05)

    def deploy(self, source: str) -> str:
        tx = rpc(self.url, "eth_sendTransaction", {"from": self.account, "data": creation_code(source), "gas": hex(5_000_000)})
        return self.receipt(tx)["contractAddress"]

    def receipt(self, tx: str) -> dict[str, Any]:
        """The transaction's receipt, once anvil has mined it."""
        deadline = time.monotonic() + 30
        while (found := rpc(self.url, "eth_getTransactionReceipt", tx)) is None:
            assert time.monotonic() < deadline, f"anvil did not mine {tx}"
            time.sleep(0.02)
        return found

    def send(self, to: str, data: str) -> None:
        tx = rpc(self.url, "eth_sendTransaction", {"from": self.account, "to": to, "data": data, "gas": hex(500_000)})
        assert self.receipt(tx)["status"] == "0x1"

    def mine(self, blocks: int = 1) -> None:
        rpc(self.url, "anvil_mine", hex(blocks))

    def block(self) -> int:
        return int(rpc(self.url, "eth_blockNumber"), 16)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Loopback:
    """A JSON-RPC server on 127.0.0.1 in a thread: answer(calls) gives the HTTP status and the body for each request."""

    def __init__(self, answer: Callable[[Any], tuple[int, Any]]) -> None:
        self.requests: list[Any] = []
        self.down = False
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                status, answer_body = answer(body)
                data = json.dumps(answer_body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def calls(self) -> list[str]:
        """The method of every call made, batches unrolled."""
        return [c["method"] for body in self.requests for c in (body if isinstance(body, list) else [body])]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def proxy(upstream: str) -> Loopback:
    """A loopback proxy to upstream that counts the requests made through it; with .down set, it answers every request with HTTP 503."""

    def forward(body: Any) -> tuple[int, Any]:
        if server.down:
            return 503, {"error": "upstream connect error"}
        request = urllib.request.Request(upstream, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return 200, json.loads(response.read())

    server = Loopback(forward)
    return server


def which_npm() -> str | None:
    return shutil.which("npm")


# what the recorded node of chain 1 answers for its block
BLOCK = 1000
BLOCK_JSON = {
    "number": hex(BLOCK), "timestamp": hex(1_750_000_000), "baseFeePerGas": hex(7), "miner": "0x" + "ab" * 20,
    "mixHash": "0x" + "cd" * 32, "gasLimit": hex(30_000_000),
}


def recorded(overrides: dict[str, Any] | None = None) -> Callable[[Any], tuple[int, Any]]:
    """A node of chain 1 at block BLOCK, every account empty; overrides: method -> error object (or a function of the call)."""
    normal = {"eth_chainId": "0x1", "eth_getBlockByNumber": BLOCK_JSON, "eth_getBalance": "0x0", "eth_getTransactionCount": "0x0", "eth_getCode": "0x", "eth_getStorageAt": "0x" + "00" * 32}
    overrides = overrides or {}

    def answer(body: Any) -> tuple[int, Any]:
        answers = []
        for call in body if isinstance(body, list) else [body]:
            special = overrides.get(call["method"])
            if callable(special):
                special = special(call)
            if special is None:
                answers.append({"jsonrpc": "2.0", "id": call["id"], "result": normal[call["method"]]})
            else:
                answers.append({"jsonrpc": "2.0", "id": call["id"], "error": special})
        return 200, answers

    return answer
