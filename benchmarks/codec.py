"""Codec figures: the one-word path against eth-abi, alone and inside contract calls.

The codec encodes arguments word by word when every type is a uint, int, address or bool,
and goes through eth-abi otherwise. These figures say what that buys.

Run: python benchmarks/codec.py   (prints one line per figure)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from evmstate import Project
from evmstate.abi import Codec
from evmstate.config import Config

REPO = Path(__file__).resolve().parent.parent
N = 2000


def per_call_us(fn, rounds: int = 7) -> float:
    """Median microseconds per call of fn over rounds of N calls."""
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(N):
            fn()
        times.append((time.perf_counter() - t) / N * 1e6)
    return statistics.median(times)


def with_codec(function, words: bool) -> None:
    """Give a contract function codecs with or without the one-word path."""
    for arity, (entry, sel, codec) in list(function._by_arity.items()):
        function._by_arity[arity] = (entry, sel, Codec.for_entry(codec.label, entry, words=words))


def main() -> int:
    project = Project(Config(root=REPO))
    a = project.accounts
    token = project.Token.deploy("T", "T", 18, 10**30)
    entry = next(e for e in token._artifact.abi if e.get("name") == "transfer")
    fast = Codec.for_entry("Token.transfer", entry, words=True)
    general = Codec.for_entry("Token.transfer", entry, words=False)
    args = (a[1], 10**18)
    out = (1).to_bytes(32, "big")
    for name, codec in (("one-word path", fast), ("eth-abi", general)):
        enc = per_call_us(lambda: codec.encode(args))
        dec = per_call_us(lambda: codec.decode(out))
        print(f"transfer(address,uint256)->bool via {name:13}: encode {enc:6.1f} us, decode {dec:6.1f} us")

    results = {}
    for words in (True, False, True, False):  # alternate, so that drift weighs on both alike
        with_codec(token.transfer, words)
        with_codec(token.balanceOf, words)
        tx = per_call_us(lambda: token.transfer(a[1], 1, {"from": a[0]}), rounds=3)
        view = per_call_us(lambda: token.balanceOf(a[1]), rounds=3)
        results.setdefault(words, []).append((tx, view))
    for words, label in ((True, "one-word path"), (False, "eth-abi")):
        tx = min(r[0] for r in results[words])
        view = min(r[1] for r in results[words])
        print(f"Token.transfer {1e6 / tx:7.0f} calls/s, Token.balanceOf {1e6 / view:7.0f} calls/s via {label}")
    tx_gain = min(r[0] for r in results[False]) / min(r[0] for r in results[True]) - 1
    view_gain = min(r[1] for r in results[False]) / min(r[1] for r in results[True]) - 1
    print(f"one-word path speed-up: transfer {tx_gain:+.1%}, view {view_gain:+.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
