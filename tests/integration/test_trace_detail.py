"""What a trace tells beyond the calls: when a step ran after its wait, which contract emitted each event, and the calls
inside a call that failed (a callback's revert), on py-evm and on revm."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.reports import trace_text
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import BACKENDS

HERE = Path(__file__).resolve().parents[1]

AUCTION = """# pragma version ~=0.4.3
interface Bidder:
    def on_outbid(amount: uint256): nonpayable

best: public(uint256)
leader: public(address)


@external
def bid(amount: uint256):
    assert amount > self.best, "bid too low"
    old: address = self.leader
    self.best = amount
    self.leader = msg.sender
    if old.is_contract:
        # the bidder outbid is told; its refusal does not stop the bid
        told: bool = raw_call(old, abi_encode(amount, method_id=method_id("on_outbid(uint256)")), revert_on_failure=False)
"""

BIDDER = """# pragma version ~=0.4.3
interface Auction:
    def bid(amount: uint256): nonpayable

limit: public(uint256)


@external
def bid(auction: address, amount: uint256):
    extcall Auction(auction).bid(amount)


@external
def on_outbid(amount: uint256):
    assert amount <= self.limit, "outbid past my limit"
"""

# the bidder leads, a day passes and a block is mined, then accounts[1] pays in three tokens and outbids it
MACHINE = """
class OutbidMachine:
    def __init__(cls, accounts, chain, Token, Auction, Bidder):
        cls.accounts, cls.chain = accounts, chain
        cls.tokens = [Token.deploy("A", "A", 18, 1000), Token.deploy("B", "B", 18, 1000), Token.deploy("W", "W", 18, 1000, {"label": "weth"})]
        cls.auction = Auction.deploy()
        cls.bidder = Bidder.deploy()

    def setup(self):
        self.start, self.height = self.chain.time(), self.chain.height

    def rule_bid(self):
        if self.auction.leader() != self.bidder.address and self.auction.best() == 0:
            self.bidder.bid(self.auction, 1)

    def rule_outbid(self):
        if self.auction.leader() == self.bidder.address:
            for token in self.tokens:
                token.transfer(self.accounts[1], 1)
            self.auction.bid(2, {"from": self.accounts[1]})

    def invariant_the_bidder_leads_for_a_day_and_a_block(self):
        if self.chain.time() - self.start >= 86400 and self.chain.height > self.height:
            assert self.auction.leader() != self.accounts[1].address, "outbid after a day"
"""


@pytest.fixture(scope="module")
def outbid_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outbid")
    (root / "contracts").mkdir()
    (root / "machines").mkdir()
    shutil.copy(HERE / "contracts" / "Token.vy", root / "contracts" / "Token.vy")
    (root / "contracts" / "Auction.vy").write_text(AUCTION)
    (root / "contracts" / "Bidder.vy").write_text(BIDDER)
    (root / "machines" / "outbid.py").write_text(MACHINE)
    (root / "evmstate.toml").write_text("[hypothesis]\nmax_examples = 60\n\n[fuzz]\nmax_block_delay = 5\n")
    return root


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_trace_says_when_each_step_ran_who_emitted_and_what_failed_inside(outbid_root: Path, backend: str):
    config = config_mod.load(outbid_root).replace(backend=config_mod.BackendConfig(name=backend))
    summary = run(config, RunOptions((str(outbid_root / "machines" / "outbid.py"),), overrides=Overrides(seed=1)), lambda e: None)
    (result,) = summary.results
    assert result.status == "failed", result
    failure = result.failure
    assert failure.program == ["state = OutbidMachine()", "state.rule_bid()", "chain.sleep(86400)", "chain.mine(1)", "state.rule_outbid()"]
    text = trace_text(failure.trace)
    # the step after the wait: at block 1 + 1, at the first block's time (1700000001) plus a day
    assert "  2. chain.sleep(86400)\n     chain.mine(1)  # now block 2, time 1700086401 (2023-11-15 22:13:21 UTC)\n     state.rule_outbid()\n" in text, text
    emitters = [line.strip()[len("emit ") : line.strip().index(".Transfer(")] for line in text.splitlines() if ".Transfer(" in line]
    # the two deployments named Token each by its address, weth by its label
    assert len(emitters) == 3 and len(set(emitters)) == 3 and emitters[2] == "weth", emitters
    assert all(e.startswith("<Token 0x") for e in emitters[:2])
    assert "         emit weth.Transfer(sender=accounts[0], receiver=accounts[1], value=1)\n" in text, text
    # the callback the auction made, and why it failed, though the bid went on
    assert "       Auction.bid(2) {from: accounts[1]}  gas " in text
    inner = [line.strip() for line in text.splitlines() if "inner call failed" in line]
    assert len(inner) == 1, text
    assert inner[0].startswith("inner call failed: Bidder.on_outbid(2) from <Auction 0x"), inner
    assert inner[0].endswith("Bidder.vy:15: assert amount <= self.limit, \"outbid past my limit\""), inner
    assert ": reverted 'outbid past my limit' at " in inner[0]
    step = failure.trace.to_dict()["steps"][-2]
    assert step["calls"][-1]["inner"] == [inner[0][len("inner call failed: ") :]]
