"""The ERC-4626 properties beyond one action: flows through an allowance, calls that must fail, round trips, an early
depositor.

A round trip (deposit then redeem, mint then withdraw, ...) and the first depositor's scenario run
inside chain.anchor(): they ask what would happen from the current state and leave it as it was,
so the search goes on from a state the other rules made. The first depositor's is an initializer:
each run starts from the vault the machine deployed, empty, which later steps seldom see again.
"""

from __future__ import annotations

from typing import Any

from ..spec.markers import initialize, rule
from . import vault as v
from .base import ACTOR, AMOUNT, MAX_UINT, Pack, clamp, exercised, expect, expect_reverted, send, shown

FAVOUR = (
    'EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during '
    'calculations over its users"'
)
WITHDRAW_ALLOWED = (
    'EIP-4626, withdraw: "MUST support a withdraw flow where the shares are burned from owner directly '
    'where msg.sender has EIP-20 approval over the shares of owner."'
)
REDEEM_ALLOWED = (
    'EIP-4626, redeem: "MUST support a redeem flow where the shares are burned from owner directly where '
    'msg.sender has EIP-20 approval over the shares of owner."'
)
CHECK_ALLOWANCE = (
    'EIP-4626, withdraw: "SHOULD check msg.sender can spend owner funds, '
    'assets needs to be converted to shares and shares should be checked for allowance."'
)
WITHDRAW_SHORT = (
    'EIP-4626, withdraw: "MUST revert if all of assets cannot be withdrawn (due to withdrawal limit '
    'being reached, slippage, the owner not having enough shares, etc)."'
)
REDEEM_SHORT = (
    'EIP-4626, redeem: "MUST revert if all of shares cannot be redeemed (due to withdrawal limit being '
    'reached, slippage, the owner not having enough shares, etc)."'
)
DEPOSIT_SHORT = (
    'EIP-4626, deposit: "MUST revert if all of assets cannot be deposited (due to deposit limit being '
    'reached, slippage, the user not approving enough underlying tokens to the Vault contract, etc)."'
)


class ERC4626Scenarios(Pack):
    """The part of ERC4626Properties that takes more than one action or more than one account."""

    def _erc4626(self) -> v.ERC4626Adapter:
        raise NotImplementedError  # ERC4626Properties gives it

    def _erc4626_spend(self, kind: str, caller: Any, receiver: Any, owner: Any, amount: int, clause: str) -> None:
        """withdraw or redeem by a spender the owner approves for the shares it needs: it succeeds and spends that
        allowance.
        """
        name = f"rule_erc4626_{kind}_with_allowance_spends_it"
        a = self._erc4626()
        owner, receiver = a.actor(owner), a.actor(receiver)
        caller = a.other(caller, owner)
        if caller is None:
            return
        limit = a.vault.maxWithdraw(owner) if kind == "withdraw" else a.vault.maxRedeem(owner)
        amount = clamp(amount, limit)
        needed = v.preview(a.vault, "previewWithdraw", amount) if kind == "withdraw" else amount
        if needed is None:
            return exercised(name, False, "a spender's withdrawal against a limited allowance")
        v.allow(a, owner, caller, needed)
        f = v.flow(a, kind, caller, receiver, owner, amount, limit)
        if f is None:
            return exercised(name, False, "a spender's withdrawal against a limited allowance")
        expect(
            not (amount and f.preview) or not f.sent.reverted,
            lambda: (
                f"{f.call} reverted though {shown(owner)} approved {f.allowance[0]} shares and {amount} is within the "
                f"max ({limit}): {f.sent.error}"
            ),
            clause,
        )
        if f.sent.reverted:
            return exercised(name, False, "a spender's withdrawal against a limited allowance")
        burned = f.returned if kind == "withdraw" else amount
        before, after = f.allowance
        expect(
            after == before - burned or before == MAX_UINT,
            lambda: f"{f.call}: the allowance went from {before} to {after}, not down by the {burned} shares burned",
            clause,
        )
        exercised(name, burned > 0 and before != MAX_UINT, "a spender's withdrawal against a limited allowance")

    @rule(caller=ACTOR, receiver=ACTOR, owner=ACTOR, amount=AMOUNT)
    def rule_erc4626_withdraw_with_allowance_spends_it(
        self, caller="erc4626_actor", receiver="erc4626_actor", owner="erc4626_actor", amount="erc4626_amount"
    ):
        """A withdrawal by a spender the owner approved for the shares it burns succeeds, and lowers the allowance by
        exactly those shares.

        EIP-4626, withdraw: "MUST support a withdraw flow where the shares are burned from owner directly where
        msg.sender has EIP-20 approval over the shares of owner."
        """
        self._erc4626_spend("withdraw", caller, receiver, owner, amount, WITHDRAW_ALLOWED)

    @rule(caller=ACTOR, receiver=ACTOR, owner=ACTOR, amount=AMOUNT)
    def rule_erc4626_redeem_with_allowance_spends_it(
        self, caller="erc4626_actor", receiver="erc4626_actor", owner="erc4626_actor", amount="erc4626_amount"
    ):
        """A redemption by a spender the owner approved for the shares succeeds, and lowers the allowance by exactly
        those shares.

        EIP-4626, redeem: "MUST support a redeem flow where the shares are burned from owner directly where msg.sender
        has EIP-20 approval over the shares of owner."
        """
        self._erc4626_spend("redeem", caller, receiver, owner, amount, REDEEM_ALLOWED)

    @rule(caller=ACTOR, owner=ACTOR, amount=AMOUNT)
    def rule_erc4626_withdraw_without_allowance_reverts(
        self, caller="erc4626_actor", owner="erc4626_actor", amount="erc4626_amount"
    ):
        """A withdrawal from an owner by an account it has not approved reverts.

        EIP-4626, withdraw: "SHOULD check msg.sender can spend owner funds, assets needs to be converted to shares and
        shares should be checked for allowance."
        """
        a = self._erc4626()
        owner = a.actor(owner)
        caller = a.other(caller, owner)
        if caller is None:
            return
        if a.vault.allowance(owner, caller):
            send(a.vault.approve, caller, 0, sender=owner)
        limit = a.vault.maxWithdraw(owner)
        f = v.flow(a, "withdraw", caller, caller, owner, clamp(amount, limit), limit)
        if f is None or not f.preview:
            return exercised(
                "rule_erc4626_withdraw_without_allowance_reverts", False, "an owner with shares to withdraw",
                reverting=True,
            )
        expect_reverted(
            f.sent,
            lambda: (
                f"{f.call} succeeded though {shown(owner)} never approved {shown(caller)}: "
                f"it burned {f.returned} of the owner's shares"
            ),
            CHECK_ALLOWANCE,
        )
        exercised(
            "rule_erc4626_withdraw_without_allowance_reverts", True, "an owner with shares to withdraw", reverting=True
        )

    @rule(owner=ACTOR, amount=AMOUNT)
    def rule_erc4626_redeem_beyond_shares_reverts(self, owner="erc4626_actor", amount="erc4626_amount"):
        """A redemption of more shares than the owner holds reverts.

        EIP-4626, redeem: "MUST revert if all of shares cannot be redeemed (due to withdrawal limit being reached,
        slippage, the owner not having enough shares, etc)."
        """
        a = self._erc4626()
        owner = a.actor(owner)
        held = a.shares(owner)
        if held == MAX_UINT:
            return
        f = v.flow(
            a, "redeem", owner, owner, owner, held + 1 + clamp(amount, MAX_UINT - held - 1), a.vault.maxRedeem(owner)
        )
        if f is None:
            return exercised(
                "rule_erc4626_redeem_beyond_shares_reverts", False, "an owner holding shares", reverting=True
            )
        expect_reverted(
            f.sent, lambda: f"{f.call} succeeded though {shown(owner)} holds only {held} shares", REDEEM_SHORT
        )
        exercised("rule_erc4626_redeem_beyond_shares_reverts", held > 0, "an owner holding shares", reverting=True)

    @rule(owner=ACTOR, amount=AMOUNT)
    def rule_erc4626_withdraw_beyond_shares_reverts(self, owner="erc4626_actor", amount="erc4626_amount"):
        """A withdrawal of more assets than the owner's shares are worth (previewWithdraw asks more shares than it
        holds) reverts.

        EIP-4626, withdraw: "MUST revert if all of assets cannot be withdrawn (due to withdrawal limit being reached,
        slippage, the owner not having enough shares, etc)."
        """
        a = self._erc4626()
        owner = a.actor(owner)
        held = a.shares(owner)
        worth = a.vault.convertToAssets(held)
        assets = worth + 1 + clamp(amount, 10**30)
        needed = v.preview(a.vault, "previewWithdraw", assets)
        if needed is None or needed <= held:
            return exercised(
                "rule_erc4626_withdraw_beyond_shares_reverts", False, "an owner holding shares", reverting=True
            )
        f = v.flow(a, "withdraw", owner, owner, owner, assets, a.vault.maxWithdraw(owner))
        if f is None:
            return
        expect_reverted(
            f.sent,
            lambda: f"{f.call} succeeded though it needs {needed} shares and {shown(owner)} holds only {held}",
            WITHDRAW_SHORT,
        )
        exercised("rule_erc4626_withdraw_beyond_shares_reverts", held > 0, "an owner holding shares", reverting=True)

    @rule(caller=ACTOR, amount=AMOUNT)
    def rule_erc4626_deposit_beyond_assets_reverts(self, caller="erc4626_actor", amount="erc4626_amount"):
        """A deposit of more assets than the caller holds (it has approved the vault for all) reverts.

        EIP-4626, deposit: "MUST revert if all of assets cannot be deposited (due to deposit limit being reached,
        slippage, the user not approving enough underlying tokens to the Vault contract, etc)."
        """
        a = self._erc4626()
        caller = a.actor(caller)
        held = a.assets(caller)
        f = v.flow(a, "deposit", caller, caller, caller, held + 1 + clamp(amount, 10**30), a.vault.maxDeposit(caller))
        if f is None:
            return
        expect_reverted(
            f.sent, lambda: f"{f.call} succeeded though {shown(caller)} holds only {held} of the asset",
            DEPOSIT_SHORT,
        )
        exercised("rule_erc4626_deposit_beyond_assets_reverts", held > 0, "a caller holding assets", reverting=True)

    # -- round trips: from the current state, and back to it --------------------------

    def _erc4626_round_trip(self, name: str, first: str, second: str, actor: Any, amount: int) -> None:
        """first (by actor, for itself) then second with what first returned or moved; the second may not give back
        more.
        """
        a = self._erc4626()
        actor = a.actor(actor)
        what = "a round trip through a vault whose share price is not one asset per share"
        with a.chain.anchor():
            price = a.vault.totalSupply() > 0 and a.vault.totalAssets() != a.vault.totalSupply()
            own = (actor,) if first in ("deposit", "mint") else (actor, actor)
            f = getattr(v, first)(a, actor, *own, amount)
            if f is None or f.sent.reverted or not f.returned or not f.amount:
                return exercised(name, False, what)
            # deposit -> shares to redeem; mint -> assets to withdraw;
            # redeem -> assets to deposit; withdraw -> shares to mint
            back_amount = f.returned
            g = v.flow(a, second, actor, actor, actor, back_amount, MAX_UINT)
            if g is None or g.sent.reverted:
                return exercised(name, False, what)
            if first in ("deposit", "redeem"):  # gave amount, got back returned of the other unit
                expect(
                    g.returned <= f.amount,
                    lambda: (
                        f"{f.call} returned {f.returned}, then {g.call} returned {g.returned}: "
                        f"more than the {f.amount} it started with"
                    ),
                    FAVOUR,
                )
            # mint -> withdraw burns at least the shares minted; withdraw -> mint costs at least the assets withdrawn
            else:
                expect(
                    g.returned >= f.amount,
                    lambda: (
                        f"{f.call} returned {f.returned}, then {g.call} returned {g.returned}: "
                        f"fewer {'shares burned than minted' if first == 'mint' else 'assets paid than withdrawn'}"
                    ),
                    FAVOUR,
                )
        exercised(name, price, what)

    @rule(actor=ACTOR, amount=AMOUNT)
    def rule_erc4626_deposit_then_redeem_does_not_profit(self, actor="erc4626_actor", amount="erc4626_amount"):
        """Depositing assets and redeeming the shares at once gives back no more assets than were deposited.

        EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during calculations
        over its users"
        """
        self._erc4626_round_trip("rule_erc4626_deposit_then_redeem_does_not_profit", "deposit", "redeem", actor, amount)

    @rule(actor=ACTOR, amount=AMOUNT)
    def rule_erc4626_mint_then_withdraw_does_not_profit(self, actor="erc4626_actor", amount="erc4626_amount"):
        """Minting shares and withdrawing what they cost at once burns at least the shares minted.

        EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during calculations
        over its users"
        """
        self._erc4626_round_trip("rule_erc4626_mint_then_withdraw_does_not_profit", "mint", "withdraw", actor, amount)

    @rule(actor=ACTOR, amount=AMOUNT)
    def rule_erc4626_redeem_then_deposit_does_not_profit(self, actor="erc4626_actor", amount="erc4626_amount"):
        """Redeeming shares and depositing the assets at once mints no more shares than were redeemed.

        EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during calculations
        over its users"
        """
        self._erc4626_round_trip("rule_erc4626_redeem_then_deposit_does_not_profit", "redeem", "deposit", actor, amount)

    @rule(actor=ACTOR, amount=AMOUNT)
    def rule_erc4626_withdraw_then_mint_does_not_profit(self, actor="erc4626_actor", amount="erc4626_amount"):
        """Withdrawing assets and minting back the shares burned at once costs at least the assets withdrawn.

        EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during calculations
        over its users"
        """
        self._erc4626_round_trip("rule_erc4626_withdraw_then_mint_does_not_profit", "withdraw", "mint", actor, amount)

    @initialize(attacker=ACTOR, victim=ACTOR, amount=AMOUNT, donation=AMOUNT, deposit=AMOUNT)
    def initialize_erc4626_first_depositor_cannot_profit_from_a_donation(
        self, attacker="erc4626_actor", victim="erc4626_actor", amount="erc4626_amount", donation="erc4626_amount",
        deposit="erc4626_amount",
    ):
        """The first depositor into an empty vault, who then donates assets to it and redeems after another's smaller
        deposit, gets back no more than it paid (it cannot inflate the share price).

        EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during calculations
        over its users"
        """
        name, what = (
            "initialize_erc4626_first_depositor_cannot_profit_from_a_donation",
            "an empty vault, a donation, and a deposit after it",
        )
        a = self._erc4626()
        attacker = a.actor(attacker)
        victim = a.other(victim, attacker)
        if victim is None or not _empty(a.vault):  # an initializer: the vault is empty unless the machine filled it
            return exercised(name, False, what)
        with a.chain.anchor():
            first = v.flow(
                a, "deposit", attacker, attacker, attacker,
                clamp(amount, min(a.assets(attacker) // 2, a.vault.maxDeposit(attacker))), MAX_UINT,
            )
            if first is None or first.sent.reverted or not first.returned:
                return exercised(name, False, what)
            gift = clamp(donation, a.assets(attacker))
            send(a.asset.transfer, a.vault, gift, sender=attacker)
            later = clamp(deposit, min(a.assets(victim), gift, a.vault.maxDeposit(victim)))
            send(a.vault.deposit, later, victim, sender=victim)
            out = v.flow(a, "redeem", attacker, attacker, attacker, first.returned, MAX_UINT)
            if out is None or out.sent.reverted:
                return exercised(name, False, what)
            paid = first.amount + gift
            expect(
                out.returned <= paid,
                lambda: (
                    f"{first.call} minted {first.returned} shares, {shown(attacker)} donated {gift}, "
                    f"{shown(victim)} deposited {later}; redeeming the {first.returned} shares paid {out.returned}, "
                    f"more than the {paid} put in"
                ),
                FAVOUR,
            )
        exercised(name, gift > 0 and later > 0, what)


def _empty(vault: Any) -> bool:
    """Whether the vault has neither shares nor assets: where a first depositor sets the share price."""
    return vault.totalSupply() == 0 and vault.totalAssets() == 0
