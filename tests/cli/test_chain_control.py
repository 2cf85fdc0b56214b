"""A machine that writes to the chain: its writes show in the trace of the reported program and in its replay, on both backends."""

from __future__ import annotations

import pytest

from ..conftest import BACKENDS
from .helpers import invoke

DEALT = '''
from evmstate import deal, strategy

TOTAL_SUPPLY = 5  # Token.vy's storage slot of totalSupply


class Dealt:
    amount = strategy("uint256", max_value=1000)

    def __init__(cls, accounts, chain, Token):
        cls.accounts, cls.chain = accounts, chain
        cls.token = Token.deploy("T", "T", 18, 1000)

    def rule_deal(self, amount):
        deal(self.token, self.accounts[1], amount)

    def rule_shrink_supply(self, amount):
        self.chain.set_storage(self.token, TOTAL_SUPPLY, amount)

    def invariant_supply_covers_a_balance(self):
        assert self.token.balanceOf(self.accounts[1]) <= self.token.totalSupply(), "a balance above the supply"
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_to_the_chain_show_in_the_trace_and_the_replay(example, backend):
    (example / "machines" / "dealt.py").write_text(DEALT)
    code, out = invoke("run", "machines/dealt.py", "--seed", "1", "--backend", backend)
    assert code == 1, out
    assert "Falsifying example (2 steps):\nstate = Dealt()\nstate.rule_deal(amount=1)\nstate.rule_shrink_supply(amount=0)\n" in out, out
    token = next(line for line in out.splitlines() if "chain.deal(" in line).split("chain.deal(")[1].split(">")[0] + ">"
    assert token.startswith("<Token 0x"), out
    assert f"  1. state.rule_deal(amount=1)\n       chain.deal({token}, accounts[1], 1)\n" in out, out
    assert f"  2. state.rule_shrink_supply(amount=0)\n       chain.set_storage({token}, 5, 0)\n" in out, out

    code, replayed = invoke("replay", "--last")
    assert code == 1, replayed
    assert f"  1. state.rule_deal(amount=1)\n     chain.deal({token}, accounts[1], 1)\n" in replayed, replayed
    assert f"  2. state.rule_shrink_supply(amount=0)\n     chain.set_storage({token}, 5, 0)\n" in replayed, replayed
    assert "still fails: AssertionError: a balance above the supply" in replayed, replayed
