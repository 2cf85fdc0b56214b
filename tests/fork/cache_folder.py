"""A fork cache written by hand, as a replay without the network reads it: chain 1 at block 1000, one contract at ADDRESS."""

from __future__ import annotations

import json
from pathlib import Path

CHAIN, BLOCK = 1, 1000
ADDRESS = "0x" + "11" * 20
# the system contracts a Prague block calls before its transactions (EIP-4788, EIP-2935): empty at this block
SYSTEM = ("0x000f3df6d732807ef1319fb7b8bb8522d0beac02", "0x0000f90827f1c53a10cb7a02335b175320002935")
HEADER = {"number": BLOCK, "timestamp": 1_750_000_000, "base_fee": 7, "coinbase": "0x" + "ab" * 20, "prevrandao": "0x" + "cd" * 32, "gas_limit": 30_000_000}
SOURCE = "# pragma version ~=0.4.0\nx: public(uint256)\n\n@external\ndef set(v: uint256):\n    self.x = v\n"
MACHINE = f"""
class M:
    def __init__(cls, C):
        cls.c = C.at("{ADDRESS}")

    def rule_a(self):
        pass

    def invariant_x(self):
        assert self.c.x() == 1, "x is not 1"
"""


def cache_folder(root: Path) -> Path:
    return root / ".evmstate" / "fork" / str(CHAIN) / str(BLOCK)


def write_cache(root: Path, code: str) -> None:
    folder = cache_folder(root)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "block.json").write_text(json.dumps(HEADER))
    for address in SYSTEM:
        (folder / f"{address}.json").write_text(json.dumps({"account": ["0x0", 0, "0x"], "storage": {}}))
    (folder / f"{ADDRESS}.json").write_text(json.dumps({"account": ["0x0", 1, code], "storage": {"0": "0x0"}}))
