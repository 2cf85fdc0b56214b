"""ERC20Properties: the EIP-20 token standard as rules and invariants a machine inherits.

Each rule sends one kind of call and checks one property of it against the state read just before
(balances, allowances, the supply), so the pack holds whatever else the machine's own rules do.
The adapter (cls.erc20 = ERC20Adapter(token, accounts)) names the token, the actors and how to give
an actor tokens; what the token's ABI has switches the optional behaviours: mint (with a minter),
burn, paused(). The adapter and the transfer properties are in erc20_transfers.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..spec.markers import invariant, precondition, rule
from .base import (
    ACTOR,
    AMOUNT,
    MAX_UINT,
    ZERO_ADDRESS,
    Pack,
    Sent,
    clamp,
    events,
    exercised,
    expect,
    expect_refused,
    leave_out,
    send,
    shown,
)
from .erc20_transfers import BALANCE, SUPPLY, ERC20Adapter, ERC20Transfers, Move

FUND_CAP = 10**30  # the most one funding step gives: supplies stay far from overflowing

TRANSFER_FROM = (
    'EIP-20, transferFrom: "Transfers _value amount of tokens from address _from to address _to, '
    'and MUST fire the Transfer event."'
)
AUTHORIZED = (
    'EIP-20, transferFrom: "The function SHOULD throw unless the _from account has deliberately authorized '
    'the sender of the message via some mechanism."'
)
APPROVE = (
    'EIP-20, approve: "Allows _spender to withdraw from your account multiple times, up to the _value amount. '
    'If this function is called again it overwrites the current allowance with _value."'
)
APPROVAL = 'EIP-20, Approval: "MUST trigger on any successful call to approve(address _spender, uint256 _value)."'
ALLOWANCE = 'EIP-20, allowance: "Returns the amount which _spender is still allowed to withdraw from _owner."'
MINTED = (
    'EIP-20, Transfer: "A token contract which creates new tokens SHOULD trigger a Transfer event with the _from '
    'address set to 0x0 when tokens are created."'
)


@dataclass
class Supplied:
    """One mint or burn sent by a rule, and the balance and supply read around it."""

    call: str
    account: Any
    amount: int
    sent: Sent
    balance: tuple[int, int]
    supply: tuple[int, int]


class ERC20Properties(ERC20Transfers, Pack):
    """EIP-20: transfers, allowances, events and the supply, from the EIP's own sentences (docs/properties.md).

    Switch a property off with `rule_erc20_<name> = None` in the machine's class body (a
    fee-on-transfer token: the exact-amount ones; a token that lets the zero address hold tokens...).
    """

    prefix = "erc20"
    erc20_actor = ACTOR
    erc20_amount = AMOUNT

    def _erc20_spend(self, spender: Any, owner: Any, receiver: Any, amount: int) -> Move | None:
        """A transferFrom within the owner's balance and the spender's allowance; the owner approves one first when
        there is none.
        """
        a = self._erc20()
        if a.paused():
            return None
        spender, owner, receiver = a.actor(spender), a.actor(owner), a.actor(receiver)
        if spender == owner:
            spender = a.other(spender, owner) or spender
        balance = a.token.balanceOf(owner)
        if spender != owner and a.token.allowance(owner, spender) == 0 and balance:
            send(a.token.approve, spender, clamp(amount, balance), sender=owner)
        return self._erc20_move(
            spender, owner, receiver, clamp(amount, min(balance, a.token.allowance(owner, spender)))
        )

    # -- allowances -------------------------------------------------------------------

    @rule(owner=ACTOR, spender=ACTOR, amount=AMOUNT)
    def rule_erc20_approve_sets_allowance(self, owner="erc20_actor", spender="erc20_actor", amount="erc20_amount"):
        """An approve sets the spender's allowance to exactly the amount, whatever it was.

        EIP-20, approve: "Allows _spender to withdraw from your account multiple times, up to the _value amount. If this
        function is called again it overwrites the current allowance with _value."
        """
        a = self._erc20()
        owner, spender = a.actor(owner), a.actor(spender)
        before = a.token.allowance(owner, spender)
        sent = send(a.token.approve, spender, amount, sender=owner)
        if sent.refused:
            return exercised("rule_erc20_approve_sets_allowance", False, "an approval that changes an allowance")
        after = a.token.allowance(owner, spender)
        expect(
            after == amount,
            lambda: (
                f"approve({shown(spender)}, {amount}) from {shown(owner)}: the allowance went from {before} to {after}"
            ),
            APPROVE,
        )
        if a.returns("approve"):
            expect(
                sent.value is True,
                lambda: (
                    f"approve({shown(spender)}, {amount}) from {shown(owner)} returned {shown(sent.value)}, not True"
                ),
                APPROVE,
            )
        exercised("rule_erc20_approve_sets_allowance", before != amount, "an approval that changes an allowance")

    @rule(owner=ACTOR, spender=ACTOR, amount=AMOUNT)
    def rule_erc20_approve_emits_approval_event(
        self, owner="erc20_actor", spender="erc20_actor", amount="erc20_amount"
    ):
        """An approve emits Approval(owner, spender, amount) from the token.

        EIP-20, Approval: "MUST trigger on any successful call to approve(address _spender, uint256 _value)."
        """
        a = self._erc20()
        owner, spender = a.actor(owner), a.actor(spender)
        sent = send(a.token.approve, spender, amount, sender=owner)
        if sent.refused:
            return exercised("rule_erc20_approve_emits_approval_event", False, "an approval of a non-zero amount")
        found = events(sent.receipt, a.token, "Approval")
        expect(
            (owner, spender, amount) in found,
            lambda: (
                f"approve({shown(spender)}, {amount}) from {shown(owner)} emitted Approval events {shown(found)}, "
                f"none of them ({shown(owner)}, {shown(spender)}, {amount})"
            ),
            APPROVAL,
        )
        exercised("rule_erc20_approve_emits_approval_event", amount > 0, "an approval of a non-zero amount")

    @rule(spender=ACTOR, owner=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_from_moves_exact_amount(
        self, spender="erc20_actor", owner="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transferFrom within the owner's balance and the spender's allowance succeeds, and moves exactly the amount
        from the owner to the receiver.

        EIP-20, transferFrom: "Transfers _value amount of tokens from address _from to address _to, and MUST fire the
        Transfer event."
        """
        move = self._erc20_spend(spender, owner, receiver, amount)
        if move is None:
            return
        expect(
            not move.sent.refused,
            lambda: (
                f"{move.call} {'reverted' if move.sent.reverted else 'returned false'} within the owner's balance "
                f"{move.before[move.owner]} and allowance {move.allowance[0]}: {move.sent.error or ''}"
            ),
            TRANSFER_FROM,
        )
        self._erc20_moved_exactly(move, TRANSFER_FROM)
        exercised(
            "rule_erc20_transfer_from_moves_exact_amount", move.moving and move.sender != move.owner,
            "a transferFrom of a non-zero amount by a spender",
        )

    @rule(spender=ACTOR, owner=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_from_spends_allowance(
        self, spender="erc20_actor", owner="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transferFrom lowers the spender's allowance by exactly the amount (an allowance of 2**256 - 1 may stay: the
        usual unlimited one).

        EIP-20, allowance: "Returns the amount which _spender is still allowed to withdraw from _owner."
        """
        move = self._erc20_spend(spender, owner, receiver, amount)
        if move is None or move.sent.refused or move.sender == move.owner:
            return exercised(
                "rule_erc20_transfer_from_spends_allowance", False,
                "a transferFrom of a non-zero amount against a limited allowance",
            )
        before, after = move.allowance
        allowed = (before - move.amount,) + ((MAX_UINT,) if before == MAX_UINT else ())
        expect(
            after in allowed,
            lambda: f"{move.call}: the allowance went from {before} to {after}, not {before - move.amount}", ALLOWANCE,
        )
        exercised(
            "rule_erc20_transfer_from_spends_allowance", move.amount > 0 and before != MAX_UINT,
            "a transferFrom of a non-zero amount against a limited allowance",
        )

    @rule(spender=ACTOR, owner=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_from_emits_transfer_event(
        self, spender="erc20_actor", owner="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transferFrom emits Transfer(owner, receiver, amount) from the token.

        EIP-20, transferFrom: "Transfers _value amount of tokens from address _from to address _to, and MUST fire the
        Transfer event."
        """
        move = self._erc20_spend(spender, owner, receiver, amount)
        if move is None or move.sent.refused:
            return exercised(
                "rule_erc20_transfer_from_emits_transfer_event", False,
                "a transferFrom of a non-zero amount between two accounts",
            )
        found = events(move.sent.receipt, self._erc20().token, "Transfer")
        expect(
            (move.owner, move.receiver, move.amount) in found,
            lambda: (
                f"{move.call} emitted Transfer events {shown(found)}, none of them ({shown(move.owner)}, "
                f"{shown(move.receiver)}, {move.amount})"
            ),
            TRANSFER_FROM,
        )
        exercised(
            "rule_erc20_transfer_from_emits_transfer_event", move.moving,
            "a transferFrom of a non-zero amount between two accounts",
        )

    @rule(spender=ACTOR, owner=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_from_beyond_allowance_fails(
        self, spender="erc20_actor", owner="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transferFrom of more than the spender's allowance (within the owner's balance) reverts or returns false,
        and moves nothing.

        EIP-20, transferFrom: "The function SHOULD throw unless the _from account has deliberately authorized the sender
        of the message via some mechanism."
        """
        a = self._erc20()
        spender, owner, receiver = a.actor(spender), a.actor(owner), a.actor(receiver)
        spender = a.other(spender, owner) or spender
        allowance, balance = a.token.allowance(owner, spender), a.token.balanceOf(owner)
        if spender == owner or allowance >= balance:
            return exercised(
                "rule_erc20_transfer_from_beyond_allowance_fails", False,
                "an owner holding more than the spender may take", reverting=True,
            )
        move = self._erc20_move(spender, owner, receiver, allowance + 1 + clamp(amount, balance - allowance - 1))
        expect_refused(move.sent, lambda: f"{move.call} succeeded though the allowance is only {allowance}", AUTHORIZED)
        expect(
            move.after == move.before and move.allowance[1] == allowance,
            lambda: f"{move.call} returned false but balances or the allowance changed", AUTHORIZED,
        )
        exercised(
            "rule_erc20_transfer_from_beyond_allowance_fails", True, "an owner holding more than the spender may take",
            reverting=True,
        )

    @rule(spender=ACTOR, owner=ACTOR, receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_transfer_from_beyond_balance_fails(
        self, spender="erc20_actor", owner="erc20_actor", receiver="erc20_actor", amount="erc20_amount"
    ):
        """A transferFrom of more than the owner's balance (within the allowance) reverts or returns false, and moves
        nothing.

        EIP-20, transfer: "The function SHOULD throw if the message caller's account balance does not have enough tokens
        to spend."
        """
        a = self._erc20()
        spender, owner, receiver = a.actor(spender), a.actor(owner), a.actor(receiver)
        spender = a.other(spender, owner) or spender
        balance = a.token.balanceOf(owner)
        if spender == owner or balance == MAX_UINT:
            return
        value = balance + 1 + clamp(amount, MAX_UINT - balance - 1)
        if a.token.allowance(owner, spender) < value:
            send(a.token.approve, spender, value, sender=owner)
        move = self._erc20_move(spender, owner, receiver, value)
        expect_refused(move.sent, lambda: f"{move.call} succeeded though the owner holds only {balance}", BALANCE)
        expect(move.after == move.before, lambda: f"{move.call} returned false but balances changed", BALANCE)
        exercised(
            "rule_erc20_transfer_from_beyond_balance_fails", balance > 0, "an owner holding tokens", reverting=True
        )

    # -- supply: funding, minting, burning --------------------------------------------

    @precondition(
        lambda self: (
            self._erc20().fundable
            or leave_out("rule_erc20_fund", "deal finds no balance slot in this token: give ERC20Adapter(fund=...)")
        )
    )
    @rule(receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_fund(self, receiver="erc20_actor", amount="erc20_amount"):
        """Gives an actor tokens, as the adapter says (default: deal): not a property, what the others need to see
        balances.
        """
        a = self._erc20()
        amount %= FUND_CAP + 1
        if a.token.totalSupply() + amount < 2**255:
            a.fund(a.actor(receiver), amount)

    def _erc20_supply(self, kind: str, account: Any, amount: int, beyond: bool = False) -> Supplied | None:
        """mint (to account, by the minter) or burn (by account, at most its balance; more than it, beyond), the balance
        and supply read around it.
        """
        a = self._erc20()
        account = a.actor(account)
        balance, supply = a.token.balanceOf(account), a.token.totalSupply()
        if kind == "mint":
            amount = amount % (FUND_CAP + 1)
            sent = send(a.token.mint, account, amount, sender=a.minter)
        elif beyond:
            if balance == MAX_UINT:
                return None
            amount = balance + 1 + clamp(amount, MAX_UINT - balance - 1)
            sent = send(a.token.burn, amount, sender=account)
        else:
            amount = clamp(amount, balance)
            sent = send(a.token.burn, amount, sender=account)
        call = f"mint({shown(account)}, {amount})" if kind == "mint" else f"burn({amount}) from {shown(account)}"
        return Supplied(
            call, account, amount, sent, (balance, a.token.balanceOf(account)), (supply, a.token.totalSupply())
        )

    def _erc20_supplied_exactly(self, s: Supplied, change: int) -> None:
        expect(
            s.balance[1] == s.balance[0] + change,
            lambda: f"{s.call}: the balance went from {s.balance[0]} to {s.balance[1]}", SUPPLY,
        )
        expect(
            s.supply[1] == s.supply[0] + change,
            lambda: f"{s.call}: the total supply went from {s.supply[0]} to {s.supply[1]}", SUPPLY,
        )

    @precondition(lambda self: _mintable(self._erc20(), "rule_erc20_mint_credits_exact_amount"))
    @rule(receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_mint_credits_exact_amount(self, receiver="erc20_actor", amount="erc20_amount"):
        """A mint by the minter adds exactly the amount to the receiver's balance and to the total supply.

        EIP-20, totalSupply: "Returns the total token supply."
        """
        s = self._erc20_supply("mint", receiver, amount)
        if s is None or s.sent.refused:
            return exercised("rule_erc20_mint_credits_exact_amount", False, "a mint of a non-zero amount")
        self._erc20_supplied_exactly(s, s.amount)
        exercised("rule_erc20_mint_credits_exact_amount", s.amount > 0, "a mint of a non-zero amount")

    @precondition(lambda self: _mintable(self._erc20(), "rule_erc20_mint_emits_transfer_from_zero"))
    @rule(receiver=ACTOR, amount=AMOUNT)
    def rule_erc20_mint_emits_transfer_from_zero(self, receiver="erc20_actor", amount="erc20_amount"):
        """A mint emits Transfer(0x0, receiver, amount).

        EIP-20, Transfer: "A token contract which creates new tokens SHOULD trigger a Transfer event with the _from
        address set to 0x0 when tokens are created."
        """
        s = self._erc20_supply("mint", receiver, amount)
        if s is None or s.sent.refused:
            return exercised("rule_erc20_mint_emits_transfer_from_zero", False, "a mint of a non-zero amount")
        found = events(s.sent.receipt, self._erc20().token, "Transfer")
        expect(
            (ZERO_ADDRESS, s.account, s.amount) in found,
            lambda: (
                f"{s.call} emitted Transfer events {shown(found)}, none of them (0x0, {shown(s.account)}, {s.amount})"
            ),
            MINTED,
        )
        exercised("rule_erc20_mint_emits_transfer_from_zero", s.amount > 0, "a mint of a non-zero amount")

    @precondition(
        lambda self: (
            self._erc20().burnable or leave_out("rule_erc20_burn_debits_exact_amount", "the token has no burn(uint256)")
        )
    )
    @rule(owner=ACTOR, amount=AMOUNT)
    def rule_erc20_burn_debits_exact_amount(self, owner="erc20_actor", amount="erc20_amount"):
        """A burn of at most one's balance takes exactly the amount from the balance and from the total supply.

        EIP-20, totalSupply: "Returns the total token supply."
        """
        s = self._erc20_supply("burn", owner, amount)
        if s is None or s.sent.refused:
            return exercised("rule_erc20_burn_debits_exact_amount", False, "a burn of a non-zero amount")
        self._erc20_supplied_exactly(s, -s.amount)
        exercised("rule_erc20_burn_debits_exact_amount", s.amount > 0, "a burn of a non-zero amount")

    @precondition(
        lambda self: (
            self._erc20().burnable
            or leave_out("rule_erc20_burn_beyond_balance_fails", "the token has no burn(uint256)")
        )
    )
    @rule(owner=ACTOR, amount=AMOUNT)
    def rule_erc20_burn_beyond_balance_fails(self, owner="erc20_actor", amount="erc20_amount"):
        """A burn of more than one's balance reverts, and neither the balance nor the total supply changes.

        EIP-20, totalSupply: "Returns the total token supply."
        """
        s = self._erc20_supply("burn", owner, amount, beyond=True)
        if s is None:
            return
        expect_refused(
            s.sent, lambda: f"{s.call} succeeded though {shown(s.account)} holds only {s.balance[0]}", SUPPLY
        )
        self._erc20_supplied_exactly(s, 0)
        exercised("rule_erc20_burn_beyond_balance_fails", s.balance[0] > 0, "an owner holding tokens", reverting=True)

    @precondition(
        lambda self: (
            self._erc20().burnable
            or leave_out("rule_erc20_burn_emits_transfer_to_zero", "the token has no burn(uint256)")
        )
    )
    @rule(owner=ACTOR, amount=AMOUNT)
    def rule_erc20_burn_emits_transfer_to_zero(self, owner="erc20_actor", amount="erc20_amount"):
        """A burn emits Transfer(owner, 0x0, amount), the mirror of minting's event (switch it off for a token that logs
        burns otherwise).

        EIP-20, Transfer: "A token contract which creates new tokens SHOULD trigger a Transfer event with the _from
        address set to 0x0 when tokens are created."
        """
        s = self._erc20_supply("burn", owner, amount)
        if s is None or s.sent.refused:
            return exercised("rule_erc20_burn_emits_transfer_to_zero", False, "a burn of a non-zero amount")
        found = events(s.sent.receipt, self._erc20().token, "Transfer")
        expect(
            (s.account, ZERO_ADDRESS, s.amount) in found,
            lambda: (
                f"{s.call} emitted Transfer events {shown(found)}, none of them ({shown(s.account)}, 0x0, {s.amount})"
            ),
            MINTED,
        )
        exercised("rule_erc20_burn_emits_transfer_to_zero", s.amount > 0, "a burn of a non-zero amount")

    # -- invariants -------------------------------------------------------------------

    @invariant()
    def invariant_erc20_balances_sum_to_total_supply(self):
        """The balances of every holder (the actors, the adapter's holders, the zero address) add up to the total
        supply.

        EIP-20, totalSupply: "Returns the total token supply."
        """
        a = self._erc20()
        balances = {h: a.token.balanceOf(h) for h in a.holders}
        supply = a.token.totalSupply()
        expect(
            sum(balances.values()) == supply,
            lambda: (
                f"the balances add up to {sum(balances.values())} "
                f"({', '.join(f'{shown(h)}: {b}' for h, b in balances.items() if b)}), the total supply is {supply}; "
                "a holder the pack does not know of is given to ERC20Adapter(holders=...)"
            ),
            SUPPLY,
        )
        exercised(
            "invariant_erc20_balances_sum_to_total_supply", sum(1 for b in balances.values() if b) >= 2,
            "tokens spread over two holders or more",
        )


def _mintable(a: ERC20Adapter, name: str) -> bool:
    if not a.mintable:
        return leave_out(name, "the token has no mint(address,uint256)")
    if a.minter is None:
        return leave_out(name, "give ERC20Adapter(minter=...) the account that may mint")
    return True
