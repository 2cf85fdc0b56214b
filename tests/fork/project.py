"""A project whose machines fork a chain that anvil holds: Limits deployed there, its limit raised after the pinned block."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from eth_utils import keccak

from .. import zygote
from ..conftest import evmstate_exe, kept_build, PLAIN
from .nodes import Anvil

LIMITS = """\
# pragma version ~=0.4.0
limit: public(uint256)
total: public(uint256)
owner: public(address)

@deploy
def __init__():
    self.owner = msg.sender

@external
def set_limit(v: uint256):
    assert msg.sender == self.owner, "owner only"
    self.limit = v

@external
def add(v: uint256):
    assert v <= 1000, "too much"
    self.total += v

@external
@view
def safe() -> bool:
    return self.total <= self.limit
"""

# the bug needs the limit of the pinned block (1500): two adds above 750 pass it; later the limit is 10**18
MACHINE = """\
from evmstate import strategy

LIMITS = "{address}"


class LimitsMachine:
    amount = strategy("uint256", max_value=1000)

    def __init__(cls, accounts, Limits):
        cls.limits = Limits.at(LIMITS)
        cls.sender = accounts[0]

    def rule_add(self, amount):
        self.limits.add(amount, {{"from": self.sender}})

    def invariant_safe(self):
        assert self.limits.safe(), "total above the limit"


class LaterMachine(LimitsMachine):
    settings = {{"fork_block": {later}}}
"""


def call_data(signature: str, *args: int) -> str:
    return "0x" + keccak(text=signature)[:4].hex() + "".join(a.to_bytes(32, "big").hex() for a in args)


@dataclass
class Forked:
    root: Path
    address: str
    pinned: int  # the limit is 1500 here
    later: int  # and 10**18 from here on


def make_project(root: Path, node: Anvil) -> Forked:
    """Deploy Limits on the node, set its limit to 1500 (the pinned block), then to 10**18 and mine; write the project."""
    address = node.deploy(LIMITS)
    node.send(address, call_data("set_limit(uint256)", 1500))
    pinned = node.block()
    node.send(address, call_data("set_limit(uint256)", 10**18))
    node.mine(3)
    later = node.block()
    (root / "contracts").mkdir(parents=True)
    (root / "machines").mkdir()
    (root / "contracts" / "Limits.vy").write_text(LIMITS)
    (root / "machines" / "limits.py").write_text(MACHINE.format(address=address, later=later))
    (root / "evmstate.toml").write_text("[hypothesis]\nmax_examples = 30\nseed = 1\nphases = [\"generate\", \"shrink\"]\n\n[fork]\ntimeout = 5\n")
    kept_build(root, "build-fork-limits", lambda: _compile(root))  # every fork test's project builds the same source
    return Forked(root, address, pinned, later)


def _compile(root: Path) -> None:
    from evmstate import config as config_mod
    from evmstate.compiler.sources import compile_project

    (contracts, build), settings = config_mod.load(root).compile_inputs()
    assert not compile_project(contracts, build, **settings).errors


def evmstate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed evmstate command, run in root."""
    exe = evmstate_exe()
    env = {**os.environ, **PLAIN}
    return zygote.run([exe, *args], cwd=root, env=env, timeout=600)
