"""The held band through the engine: the addresses a step draws reach the dictionary when the band is on, and none
are collected when it is off (the default: nothing reads them)."""

from __future__ import annotations

import pytest

from evmstate.engine.example import Example
from evmstate.search.dictionary import Dictionary

from .machine_runs import run_source

SENDS = """
from evmstate import StateMachine, rule, strategy


class Sends(StateMachine):
    settings = {"max_examples": 15, "stateful_step_count": 6}

    def __init__(cls, accounts, Token):
        cls.accounts = accounts
        cls.token = Token.deploy("T", "T", 18, 10**24, {"from": accounts[0]})

    @rule(sender=strategy("address"), amount=strategy("uint256", max_value=10**24))
    def send(self, sender, amount):
        if self.token.balanceOf(self.accounts[0]) >= amount // 3:
            self.token.transfer(sender, amount // 3, {"from": self.accounts[0]})
        if self.token.balanceOf(sender) >= amount:
            self.token.transfer(self.accounts[1], amount, {"from": sender})
"""


def spied(monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:
    """(the holders argument of each step's draw, the holders the dictionary had at each held_between call)."""
    drawn: list = []
    asked: list = []
    draw_arguments, held_between = Example._draw_arguments, Dictionary.held_between

    def draw_spy(self, draw, r, kwargs, raw, holders):
        draw_arguments(self, draw, r, kwargs, raw, holders)
        drawn.append(None if holders is None else list(holders))

    def held_spy(self, lo, hi):
        asked.append(list(self.holders))
        return held_between(self, lo, hi)

    monkeypatch.setattr(Example, "_draw_arguments", draw_spy)
    monkeypatch.setattr(Dictionary, "held_between", held_spy)
    return drawn, asked


def test_with_the_held_band_on_an_integer_drawn_after_an_address_sees_it(tmp_path, monkeypatch):
    monkeypatch.setenv("EVMSTATE_FEEDBACK", "storage,cmplog,held")
    drawn, asked = spied(monkeypatch)
    summary, _ = run_source(tmp_path, SENDS)
    assert summary.exit_code == 0
    assert drawn and all(h is not None and len(h) == 1 for h in drawn), drawn[:5]
    # the amount is drawn after the sender: the band is asked with that sender among the holders
    assert asked and all(len(h) == 1 for h in asked), asked[:5]


def test_with_the_held_band_off_no_address_is_collected_and_the_band_is_never_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("EVMSTATE_FEEDBACK", "storage,cmplog,streaks,closing")  # the defaults but held
    drawn, asked = spied(monkeypatch)
    summary, _ = run_source(tmp_path, SENDS)
    assert summary.exit_code == 0
    assert drawn and all(h is None for h in drawn), drawn[:5]
    assert asked == []
