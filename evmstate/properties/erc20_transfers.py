"""The ground ERC20Properties stands on: the adapter (the token, the actors, how to give an actor tokens), one
transfer sent and the state read around it (Move), and the transfer properties.

ERC20Transfers is the part of the pack that transfer() exercises; erc20.py adds transferFrom and the allowances, the
supply, and the invariants, in that order, the order the pack's rules have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..errors import UsageError
from ..spec.markers import rule
from .base import (
    ACTOR,
    AMOUNT,
    MAX_UINT,
    ZERO_ADDRESS,
    Adapter,
    Pack,
    Sent,
    adapter_of,
    clamp,
    events,
    exercised,
    expect,
    expect_refused,
    revert_expected,
    send,
    shown,
)

TRANSFER = 'EIP-20, transfer: "Transfers _value amount of tokens to address _to, and MUST fire the Transfer event."'
TRANSFER_EVENT = 'EIP-20, Transfer: "MUST trigger when tokens are transferred, including zero value transfers."'
BALANCE = (
    "EIP-20, transfer: \"The function SHOULD throw if the message caller's account balance does not "
    'have enough tokens to spend."'
)
ZERO_VALUE = (
    'EIP-20, transfer: "Transfers of 0 values MUST be treated as normal transfers and fire the Transfer event."'
)
SUPPLY = 'EIP-20, totalSupply: "Returns the total token supply."'


class ERC20Adapter(Adapter):
    """The token under test, the actors, and how to give an actor tokens.

    fund(actor, amount) gives actor amount more tokens (default: forge's deal on the balance's
    slot, the supply adjusted); holders are addresses besides the actors and the zero address that
    may hold tokens (a fee recipient, a contract of the machine's); minter is the account that may
    call mint(address,uint256), which switches the mint properties on.
    """

    kind = "ERC-20 token"

    def __init__(
        self, token: Any, actors: Iterable[Any] | None = None, *, fund: Callable[[Any, int], Any] | None = None,
        holders: Iterable[Any] = (), minter: Any = None,
    ) -> None:
        super().__init__(token, actors)
        self.require(
            "ERC20Properties",
            ("transfer", ["address", "uint256"]),
            ("transferFrom", ["address", "address", "uint256"]),
            ("approve", ["address", "uint256"]),
            ("balanceOf", ["address"]),
            ("allowance", ["address", "address"]),
            ("totalSupply", []),
        )
        self.token = token
        self.holders = list(dict.fromkeys([*self.actors, *holders, ZERO_ADDRESS]))
        self.minter = minter
        self.funder = fund
        self.mintable = self.has("mint", ["address", "uint256"])
        self.burnable = self.has("burn", ["uint256"])
        self.pausable = self.has("paused", [])
        self.fundable = fund is not None or self._dealable()

    def _dealable(self) -> bool:
        """Whether deal finds the slot of a balance (a rebasing token's balances have none)."""
        try:
            self.chain.deal(self.token, self.actors[0], self.token.balanceOf(self.actors[0]), adjust_total_supply=True)
        except UsageError:
            return False
        return True

    def fund(self, actor: Any, amount: int) -> None:
        if self.funder is not None:
            self.funder(actor, amount)
        else:
            self.chain.deal(self.token, actor, self.token.balanceOf(actor) + amount, adjust_total_supply=True)

    def paused(self) -> bool:
        return self.pausable and bool(self.token.paused())


@dataclass
class Move:
    """One transfer (or transferFrom) sent by a rule, and the state read around it."""

    sender: Any  # the account that sent the transaction
    owner: Any  # whose tokens moved
    receiver: Any
    amount: int
    sent: Sent
    before: dict[Any, int] = field(default_factory=dict)
    after: dict[Any, int] = field(default_factory=dict)
    supply: tuple[int, int] = (0, 0)
    allowance: tuple[int, int] = (0, 0)

    @property
    def call(self) -> str:
        if self.sender == self.owner:
            return f"transfer({shown(self.receiver)}, {self.amount}) from {shown(self.sender)}"
        return f"transferFrom({shown(self.owner)}, {shown(self.receiver)}, {self.amount}) from {shown(self.sender)}"

    @property
    def moving(self) -> bool:
        """A transfer of a non-zero amount between two accounts: what a transfer property exists to check."""
        return self.amount > 0 and self.owner != self.receiver


class ERC20Transfers(Pack):
    """The transfer properties of ERC20Properties (erc20.py), and what every property of the pack uses."""

    def _erc20(self) -> ERC20Adapter:
        return adapter_of(self, "erc20", ERC20Adapter, "ERC20Properties", "ERC20Adapter(token, accounts)")

    def _erc20_move(self, sender: Any, owner: Any, receiver: Any, amount: int) -> Move:
        """Send transfer (sender is owner) or transferFrom, reading balances, supply and allowance around it."""
        a = self._erc20()
        token = a.token
        watched = list(dict.fromkeys([owner, receiver, sender, *a.actors]))
        move = Move(sender, owner, receiver, amount, Sent())
        move.before = {x: token.balanceOf(x) for x in watched}
        allowance = token.allowance(owner, sender)
        supply = token.totalSupply()
        if sender == owner:
            move.sent = send(token.transfer, receiver, amount, sender=sender)
        else:
            move.sent = send(token.transferFrom, owner, receiver, amount, sender=sender)
        move.after = {x: token.balanceOf(x) for x in watched}
        move.supply = (supply, token.totalSupply())
        move.allowance = (allowance, token.allowance(owner, sender))
        return move

    def _erc20_transfer(self, sender: Any, receiver: Any, amount: int) -> Move | None:
        """A transfer of at most the sender's balance; None while the token is paused (nothing is owed then)."""
        a = self._erc20()
        if a.paused():
            return None
        sender, receiver = a.actor(sender), a.actor(receiver)
        return self._erc20_move(sender, sender, receiver, clamp(amount, a.token.balanceOf(sender)))

    def _erc20_moved_exactly(self, move: Move, clause: str) -> None:
        for account, before in move.before.items():
            change = (move.amount if account == move.receiver else 0) - (move.amount if account == move.owner else 0)
            expect(
                move.after[account] == before + change,
                lambda: (
                    f"{move.call}: the balance of {shown(account)} went from {before} to "
                    f"{move.after[account]}, not {before + change}"
                ),
                clause,
            )
    # -- transfer -------------------------------------------------------------------

    @rule(sender=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_succeeds_within_balance(
        self, sender="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transfer of at most the sender's balance neither reverts nor returns false (unless the token is paused).

        EIP-20, transfer: "Transfers _value amount of tokens to address _to, and MUST fire the Transfer event."
        """
        move = self._erc20_transfer(sender, receiver, amount)
        if move is None:
            return exercised("rule_erc20_transfer_succeeds_within_balance", False, "a transfer of a non-zero amount")
        expect(
            not move.sent.refused,
            lambda: (
                f"{move.call} {'reverted' if move.sent.reverted else 'returned false'} though the sender holds "
                f"{move.before[move.owner]}: {move.sent.error or ''}"
            ),
            TRANSFER,
        )
        if self._erc20().returns("transfer"):
            expect(
                move.sent.value is True, lambda: f"{move.call} returned {shown(move.sent.value)}, not True", TRANSFER
            )
        exercised("rule_erc20_transfer_succeeds_within_balance", move.amount > 0, "a transfer of a non-zero amount")

    @rule(sender=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_moves_exact_amount(
        self, sender="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transfer takes exactly the amount from the sender and gives it to the receiver, and no other actor's
        balance changes.

        EIP-20, transfer: "Transfers _value amount of tokens to address _to, and MUST fire the Transfer event."
        """
        move = self._erc20_transfer(sender, receiver, amount)
        if move is None or move.sent.refused:
            return exercised(
                "rule_erc20_transfer_moves_exact_amount", False, "a transfer of a non-zero amount between two accounts"
            )
        self._erc20_moved_exactly(move, TRANSFER)
        exercised(
            "rule_erc20_transfer_moves_exact_amount", move.moving,
            "a transfer of a non-zero amount between two accounts",
        )

    @rule(sender=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_emits_transfer_event(
        self, sender="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transfer emits Transfer(sender, receiver, amount) from the token.

        EIP-20, Transfer: "MUST trigger when tokens are transferred, including zero value transfers."
        """
        move = self._erc20_transfer(sender, receiver, amount)
        if move is None or move.sent.refused:
            return exercised(
                "rule_erc20_transfer_emits_transfer_event", False,
                "a transfer of a non-zero amount between two accounts",
            )
        token = self._erc20().token
        found = events(move.sent.receipt, token, "Transfer")
        expect(
            (move.owner, move.receiver, move.amount) in found,
            lambda: (
                f"{move.call} emitted Transfer events {shown(found)}, none of them ({shown(move.owner)}, "
                f"{shown(move.receiver)}, {move.amount})"
            ),
            TRANSFER_EVENT,
        )
        exercised(
            "rule_erc20_transfer_emits_transfer_event", move.moving,
            "a transfer of a non-zero amount between two accounts",
        )

    @rule(sender=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_keeps_total_supply(
        self, sender="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transfer neither creates nor destroys tokens: the total supply stays as it was.

        EIP-20, totalSupply: "Returns the total token supply."
        """
        move = self._erc20_transfer(sender, receiver, amount)
        if move is None or move.sent.refused:
            return exercised(
                "rule_erc20_transfer_keeps_total_supply", False, "a transfer of a non-zero amount between two accounts"
            )
        expect(
            move.supply[0] == move.supply[1],
            lambda: f"{move.call}: the total supply went from {move.supply[0]} to {move.supply[1]}", SUPPLY,
        )
        exercised(
            "rule_erc20_transfer_keeps_total_supply", move.moving,
            "a transfer of a non-zero amount between two accounts",
        )

    @rule(sender=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_beyond_balance_fails(
        self, sender="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transfer of more than the sender's balance reverts or returns false, and moves nothing.

        EIP-20, transfer: "The function SHOULD throw if the message caller's account balance does not have enough tokens
        to spend."
        """
        a = self._erc20()
        sender, receiver = a.actor(sender), a.actor(receiver)
        balance = a.token.balanceOf(sender)
        if balance == MAX_UINT:
            return
        move = self._erc20_move(sender, sender, receiver, balance + 1 + clamp(amount, MAX_UINT - balance - 1))
        expect_refused(move.sent, lambda: f"{move.call} succeeded though the sender holds only {balance}", BALANCE)
        expect(
            move.after == move.before,
            lambda: f"{move.call} returned false but balances changed: {shown(move.before)} -> {shown(move.after)}",
            BALANCE,
        )
        exercised("rule_erc20_transfer_beyond_balance_fails", balance > 0, "a sender holding tokens", reverting=True)

    @rule(sender=ACTOR, amount=AMOUNT)
    def rule_erc20_self_transfer_keeps_balance(self, sender="erc20_actor", amount="erc20_amount"):
        """A transfer to oneself of at most one's balance leaves every balance as it was.

        EIP-20, transfer: "Transfers _value amount of tokens to address _to, and MUST fire the Transfer event."
        """
        move = self._erc20_transfer(sender, sender, amount)
        if move is None or move.sent.refused:
            return exercised(
                "rule_erc20_self_transfer_keeps_balance", False, "a transfer of a non-zero amount to oneself"
            )
        expect(
            move.after == move.before,
            lambda: f"{move.call}: balances went from {shown(move.before)} to {shown(move.after)}", TRANSFER,
        )
        exercised(
            "rule_erc20_self_transfer_keeps_balance", move.amount > 0, "a transfer of a non-zero amount to oneself"
        )

    @rule(sender=ACTOR, receiver=ACTOR)
    def rule_erc20_zero_transfer_is_normal(self, sender="erc20_actor", receiver="erc20_actor"):
        """A transfer of 0 succeeds, changes no balance and emits Transfer(sender, receiver, 0).

        EIP-20, transfer: "Transfers of 0 values MUST be treated as normal transfers and fire the Transfer event."
        """
        a = self._erc20()
        if a.paused():
            return
        sender, receiver = a.actor(sender), a.actor(receiver)
        move = self._erc20_move(sender, sender, receiver, 0)
        expect(
            not move.sent.refused,
            lambda: f"{move.call} {'reverted' if move.sent.reverted else 'returned false'}: {move.sent.error or ''}",
            ZERO_VALUE,
        )
        expect(
            move.after == move.before,
            lambda: f"{move.call}: balances went from {shown(move.before)} to {shown(move.after)}", ZERO_VALUE,
        )
        found = events(move.sent.receipt, a.token, "Transfer")
        expect(
            (sender, receiver, 0) in found,
            lambda: (
                f"{move.call} emitted Transfer events {shown(found)}, "
                f"none of them ({shown(sender)}, {shown(receiver)}, 0)"
            ),
            ZERO_VALUE,
        )
        exercised(
            "rule_erc20_zero_transfer_is_normal", move.before[sender] > 0 and sender != receiver,
            "a zero transfer between two accounts, from one holding tokens",
        )

    @rule(sender=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_to_zero_address_is_consistent(self, sender="erc20_actor", amount="erc20_amount"):
        """A transfer to the zero address either fails and moves nothing, or takes exactly the amount: held by the zero
        address, or burnt from the supply.

        EIP-20, transfer: "Transfers _value amount of tokens to address _to, and MUST fire the Transfer event."
        """
        a = self._erc20()
        if a.paused():
            return
        sender = a.actor(sender)
        move = self._erc20_move(sender, sender, ZERO_ADDRESS, clamp(amount, a.token.balanceOf(sender)))
        if move.sent.refused:
            expect(
                move.after == move.before and move.supply[0] == move.supply[1],
                lambda: f"{move.call} failed but balances or the supply changed", TRANSFER,
            )
            revert_expected(move.sent)  # EIP-20 lets it fail
        else:
            expect(
                move.after[sender] == move.before[sender] - move.amount,
                lambda: f"{move.call}: the sender's balance went from {move.before[sender]} to {move.after[sender]}",
                TRANSFER,
            )
            held = move.after[ZERO_ADDRESS] - move.before[ZERO_ADDRESS]
            burnt = move.supply[0] - move.supply[1]
            expect(
                (held, burnt) in ((move.amount, 0), (0, move.amount)),
                lambda: (
                    f"{move.call}: the zero address gained {held} and the supply fell by {burnt}; "
                    f"one of them must be {move.amount}, the other 0"
                ),
                TRANSFER,
            )
        exercised(
            "rule_erc20_transfer_to_zero_address_is_consistent", move.amount > 0,
            "a transfer of a non-zero amount to the zero address", reverting=True,
        )
