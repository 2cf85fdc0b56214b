"""Codec figures: the direct path against eth-abi, alone and inside contract calls.

The codec encodes arguments and decodes outputs word by word when every type is static (uints, ints,
addresses, bools, bytesN, decimals, fixed arrays and tuples of them: contracts/codec.py), and goes through
eth-abi otherwise. These figures say what that buys.

Run: python benchmarks/codec.py   (prints one line per figure)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from evmstate import Project
from evmstate.contracts.abi import parse_type
from evmstate.contracts.codec import Codec
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
    """Give a contract function codecs with or without the direct path."""
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
    for name, codec in (("direct path", fast), ("eth-abi", general)):
        enc = per_call_us(lambda: codec.encode(args))
        dec = per_call_us(lambda: codec.decode(out))
        print(f"transfer(address,uint256)->bool via {name:13}: encode {enc:6.1f} us, decode {dec:6.1f} us")
    types = [parse_type(t) for t in ("(address,uint256)[2]", "bytes32", "(int8,decimal,bool)")]
    static = (((a[1], 10**18), (a[2], 5)), b"\x11" * 32, (-3, "1.5", True))
    for words, name in ((True, "direct path"), (False, "eth-abi")):
        codec = Codec("f", types, types, words=words)
        data = codec.encode(static)
        enc = per_call_us(lambda: codec.encode(static))
        dec = per_call_us(lambda: codec.decode(data))
        print(f"((address,uint256)[2],bytes32,(int8,decimal,bool)) both ways via {name:13}: encode {enc:6.1f} us, decode {dec:6.1f} us")

    # whole calls: short alternating batches, so that the machine's drift weighs on both alike
    for label, call, fn in (
        ("Token.transfer", lambda: token.transfer(a[1], 1, {"from": a[0]}), token.transfer),
        ("Token.balanceOf", lambda: token.balanceOf(a[1]), token.balanceOf),
    ):
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(40):
            for words in (True, False):
                with_codec(fn, words)
                t = time.perf_counter()
                for _ in range(50):
                    call()
                times[words].append((time.perf_counter() - t) / 50 * 1e6)
        fast_us, general_us = statistics.median(times[True]), statistics.median(times[False])
        ratio = statistics.median(g / f for f, g in zip(times[True], times[False]))
        print(f"{label}: {fast_us:7.0f} us per call via the direct path, {general_us:7.0f} us via eth-abi (median ratio {ratio:.3f})  (load {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
