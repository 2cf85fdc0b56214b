"""ERC4626Properties: the EIP-4626 tokenized vault standard as rules and invariants a machine inherits.

Each of the four actions (deposit, mint, withdraw, redeem) has five properties, each a rule of its
own that sends the action (bounded by its max* and what the caller holds, vault.py) and checks one
thing against the state read just before: it does not revert, its result against its preview,
the exact assets moved, the exact shares moved, its event. Then the flows through an allowance,
calls that must fail, round trips that must not profit the caller, an early depositor's donation,
and invariants on the views. The adapter is cls.erc4626 = ERC4626Adapter(vault, accounts).
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import TransactionReverted
from ..spec import invariant, precondition, rule
from . import vault as v
from .base import ACTOR, AMOUNT, Pack, adapter_of, clamp, events, exercised, expect, leave_out, send, shown
from .scenarios import ERC4626Scenarios
from .vault import ERC4626Adapter, Flow

MAX_DEPOSIT = (
    'EIP-4626, maxDeposit: "MUST return the maximum amount of assets deposit would allow to be deposited '
    'for receiver and not cause a revert"'
)
MAX_MINT = (
    'EIP-4626, maxMint: "MUST return the maximum amount of shares mint would allow to be deposited to '
    'receiver and not cause a revert"'
)
MAX_WITHDRAW = (
    'EIP-4626, maxWithdraw: "MUST return the maximum amount of assets that could be transferred from owner '
    'through withdraw and not cause a revert"'
)
MAX_REDEEM = (
    'EIP-4626, maxRedeem: "MUST return the maximum amount of shares that could be transferred from owner '
    'through redeem and not cause a revert"'
)
PREVIEW_DEPOSIT = (
    'EIP-4626, previewDeposit: "deposit should return the same or more shares as previewDeposit if '
    'called in the same transaction."'
)
PREVIEW_MINT = (
    'EIP-4626, previewMint: "mint should return the same or fewer assets as previewMint if called '
    'in the same transaction."'
)
PREVIEW_WITHDRAW = (
    'EIP-4626, previewWithdraw: "withdraw should return the same or fewer shares as previewWithdraw if '
    'called in the same transaction."'
)
PREVIEW_REDEEM = (
    'EIP-4626, previewRedeem: "redeem should return the same or more assets as previewRedeem if called '
    'in the same transaction."'
)
DEPOSIT = (
    'EIP-4626, deposit: "Mints shares Vault shares to receiver by depositing exactly assets of underlying tokens."'
)
MINT = 'EIP-4626, mint: "Mints exactly shares Vault shares to receiver by depositing assets of underlying tokens."'
WITHDRAW = 'EIP-4626, withdraw: "Burns shares from owner and sends exactly assets of underlying tokens to receiver."'
REDEEM = 'EIP-4626, redeem: "Burns exactly shares from owner and sends assets of underlying tokens to receiver."'
DEPOSIT_EVENT = (
    'EIP-4626, Deposit: "MUST be emitted when tokens are deposited into the Vault via the mint and deposit methods."'
)
WITHDRAW_EVENT = (
    'EIP-4626, Withdraw: "MUST be emitted when shares are withdrawn from the Vault in EIP-4626.redeem or '
    'EIP-4626.withdraw methods."'
)

# what each action's max*, preview and exact-amount sentences are
CLAUSES = {
    "deposit": (MAX_DEPOSIT, PREVIEW_DEPOSIT, DEPOSIT),
    "mint": (MAX_MINT, PREVIEW_MINT, MINT),
    "withdraw": (MAX_WITHDRAW, PREVIEW_WITHDRAW, WITHDRAW),
    "redeem": (MAX_REDEEM, PREVIEW_REDEEM, REDEEM),
}


def _succeeds(f: Flow) -> bool:
    """Within max: it must not revert, unless it would move nothing (a zero-share deposit may be refused)."""
    substantial = f.amount > 0 and f.preview > 0
    expect(
        not substantial or not f.sent.reverted,
        lambda: (
            f"{f.call} reverted though {f.amount} is within {_max_name(f.kind)}(...) "
            f"= {f.limit} and the caller can pay (preview {f.preview}): {f.sent.error}"
        ),
        CLAUSES[f.kind][0],
    )
    return substantial


def _against_preview(f: Flow) -> bool:
    """deposit and redeem give at least their preview; mint and withdraw take at most theirs."""
    more = f.kind in ("deposit", "redeem")
    got = f.returned
    expect(
        got >= f.preview if more else got <= f.preview,
        lambda: f"{f.call} returned {got}, {'fewer' if more else 'more'} than its preview {f.preview}",
        CLAUSES[f.kind][1],
    )
    return f.amount > 0 and f.total[0] > 0


def _exact_assets(f: Flow) -> bool:
    """deposit takes exactly its assets from the caller, withdraw pays exactly its assets to the receiver; no one else's
    change.
    """
    return _moved(
        f, "assets", -f.amount if f.kind == "deposit" else f.amount, f.caller if f.kind == "deposit" else f.receiver,
        CLAUSES[f.kind][2],
    )


def _exact_shares(f: Flow) -> bool:
    """mint credits exactly its shares to the receiver, redeem burns exactly its shares from the owner; the supply moves
    as much.
    """
    return _moved(
        f, "shares", f.amount if f.kind == "mint" else -f.amount, f.receiver if f.kind == "mint" else f.owner,
        CLAUSES[f.kind][2],
    )


def _returned_shares(f: Flow) -> bool:
    """deposit credits the shares it returns to the receiver, withdraw burns the shares it returns from the owner."""
    return _moved(
        f, "shares", f.returned if f.kind == "deposit" else -f.returned, f.receiver if f.kind == "deposit" else f.owner,
        CLAUSES[f.kind][2],
    )


def _returned_assets(f: Flow) -> bool:
    """mint takes the assets it returns from the caller, redeem pays the assets it returns to the receiver."""
    return _moved(
        f, "assets", -f.returned if f.kind == "mint" else f.returned, f.caller if f.kind == "mint" else f.receiver,
        CLAUSES[f.kind][2],
    )


def _moved(f: Flow, which: str, change: int, account: Any, clause: str) -> bool:
    before, after = f.assets if which == "assets" else f.shares
    for x in before:
        wanted = change if x == account else 0
        expect(
            after[x] - before[x] == wanted,
            lambda: (
                f"{f.call}: the {which} of {shown(x)} went from {before[x]} to {after[x]}, "
                f"a change of {after[x] - before[x]}, not {wanted}"
            ),
            clause,
        )
    if which == "shares":
        expect(
            f.supply[1] - f.supply[0] == change,
            lambda: f"{f.call}: the total supply went from {f.supply[0]} to {f.supply[1]}, not by {change}", clause,
        )
    return change != 0


def _event(f: Flow) -> bool:
    """Deposit(caller, receiver, assets, shares) or Withdraw(caller, receiver, owner, assets, shares), from the vault.
    """
    assets, shares = (f.amount, f.returned) if f.kind in ("deposit", "withdraw") else (f.returned, f.amount)
    wanted: tuple[Any, ...]
    if f.kind in ("deposit", "mint"):
        name, wanted, clause = "Deposit", (f.caller, f.receiver, assets, shares), DEPOSIT_EVENT
    else:
        name, wanted, clause = "Withdraw", (f.caller, f.receiver, f.owner, assets, shares), WITHDRAW_EVENT
    found = events(f.sent.receipt, f.sent.receipt.contract, name) if f.sent.receipt is not None else []
    expect(
        wanted in found, lambda: f"{f.call} emitted {name} events {shown(found)}, none of them {shown(wanted)}", clause
    )
    return f.amount > 0


def _max_name(kind: str) -> str:
    return {"deposit": "maxDeposit", "mint": "maxMint", "withdraw": "maxWithdraw", "redeem": "maxRedeem"}[kind]


# (kind, property, its check, the state a check counts on, its docstring)
FLOWS: list[tuple[str, str, Callable[[Flow], bool], str, str]] = []


def _flow(kind: str, prop: str, check: Callable[[Flow], bool], what: str, doc: str) -> None:
    FLOWS.append((kind, prop, check, what, doc))


_flow(
    "deposit",
    "within_max_succeeds",
    _succeeds,
    "a deposit that mints shares",
    "A deposit within maxDeposit(receiver) and the caller's assets does not revert (unless it would mint no "
    f"shares).\n\n{MAX_DEPOSIT}",
)
_flow(
    "deposit", "mints_at_least_preview", _against_preview, "a deposit into a vault holding assets",
    f"A deposit returns at least previewDeposit(assets), read just before.\n\n{PREVIEW_DEPOSIT}",
)
_flow(
    "deposit", "takes_exact_assets", _exact_assets, "a deposit of a non-zero amount",
    f"A deposit takes exactly its assets from the caller, and no other actor's assets change.\n\n{DEPOSIT}",
)
_flow(
    "deposit", "credits_returned_shares", _returned_shares, "a deposit that mints shares",
    f"A deposit credits the receiver with exactly the shares it returns, and the supply grows as much.\n\n{DEPOSIT}",
)
_flow(
    "deposit", "emits_deposit_event", _event, "a deposit of a non-zero amount",
    f"A deposit emits Deposit(caller, receiver, assets, shares) from the vault.\n\n{DEPOSIT_EVENT}",
)
_flow(
    "mint", "within_max_succeeds", _succeeds, "a mint of a non-zero number of shares",
    f"A mint within maxMint(receiver) that the caller's assets pay for does not revert.\n\n{MAX_MINT}",
)
_flow(
    "mint", "costs_at_most_preview", _against_preview, "a mint from a vault holding assets",
    f"A mint takes at most previewMint(shares), read just before.\n\n{PREVIEW_MINT}",
)
_flow(
    "mint", "credits_exact_shares", _exact_shares, "a mint of a non-zero number of shares",
    f"A mint credits the receiver with exactly the shares asked for, and the supply grows as much.\n\n{MINT}",
)
_flow(
    "mint", "takes_returned_assets", _returned_assets, "a mint that costs assets",
    f"A mint takes exactly the assets it returns from the caller, and no other actor's assets change.\n\n{MINT}",
)
_flow(
    "mint", "emits_deposit_event", _event, "a mint of a non-zero number of shares",
    f"A mint emits Deposit(caller, receiver, assets, shares) from the vault.\n\n{DEPOSIT_EVENT}",
)
_flow(
    "withdraw", "within_max_succeeds", _succeeds, "a withdrawal of a non-zero amount",
    f"A withdrawal within maxWithdraw(owner) does not revert.\n\n{MAX_WITHDRAW}",
)
_flow(
    "withdraw", "burns_at_most_preview", _against_preview, "a withdrawal from a vault holding assets",
    f"A withdrawal burns at most previewWithdraw(assets) shares, read just before.\n\n{PREVIEW_WITHDRAW}",
)
_flow(
    "withdraw", "pays_exact_assets", _exact_assets, "a withdrawal of a non-zero amount",
    f"A withdrawal pays exactly its assets to the receiver, and no other actor's assets change.\n\n{WITHDRAW}",
)
_flow(
    "withdraw", "burns_returned_shares", _returned_shares, "a withdrawal that burns shares",
    f"A withdrawal burns exactly the shares it returns from the owner, and the supply falls as much.\n\n{WITHDRAW}",
)
_flow(
    "withdraw", "emits_withdraw_event", _event, "a withdrawal of a non-zero amount",
    f"A withdrawal emits Withdraw(caller, receiver, owner, assets, shares) from the vault.\n\n{WITHDRAW_EVENT}",
)
_flow(
    "redeem", "within_max_succeeds", _succeeds, "a redemption that pays assets",
    f"A redemption within maxRedeem(owner) does not revert (unless it would pay no assets).\n\n{MAX_REDEEM}",
)
_flow(
    "redeem", "pays_at_least_preview", _against_preview, "a redemption from a vault holding assets",
    f"A redemption pays at least previewRedeem(shares), read just before.\n\n{PREVIEW_REDEEM}",
)
_flow(
    "redeem", "burns_exact_shares", _exact_shares, "a redemption of a non-zero number of shares",
    f"A redemption burns exactly the shares asked for from the owner, and the supply falls as much.\n\n{REDEEM}",
)
_flow(
    "redeem", "pays_returned_assets", _returned_assets, "a redemption that pays assets",
    f"A redemption pays the receiver exactly the assets it returns, and no other actor's assets change.\n\n{REDEEM}",
)
_flow(
    "redeem", "emits_withdraw_event", _event, "a redemption of a non-zero number of shares",
    f"A redemption emits Withdraw(caller, receiver, owner, assets, shares) from the vault.\n\n{WITHDRAW_EVENT}",
)


def _flow_rule(kind: str, prop: str, check: Callable[[Flow], bool], what: str, doc: str) -> Callable:
    """The rule for one property of one action: the action sent by the caller for itself (the owner), then the check."""
    name = f"rule_erc4626_{kind}_{prop}"
    needs_success = prop != "within_max_succeeds"

    def run(
        self: Any, caller: Any = "erc4626_actor", receiver: Any = "erc4626_actor", amount: Any = "erc4626_amount"
    ) -> None:
        a = self._erc4626()
        caller, receiver = a.actor(caller), a.actor(receiver)
        f = (
            getattr(v, kind)(a, caller, receiver, amount)
            if kind in ("deposit", "mint")
            else getattr(v, kind)(a, caller, receiver, caller, amount)
        )
        if f is None or (needs_success and f.sent.reverted):
            return exercised(name, False, what)
        exercised(name, check(f), what)

    run.__name__ = name
    run.__qualname__ = f"ERC4626Properties.{name}"
    run.__doc__ = doc
    return rule(caller=ACTOR, receiver=ACTOR, amount=AMOUNT)(run)


class ERC4626Properties(ERC4626Scenarios, Pack):
    """EIP-4626: conversions, previews, limits, exact amounts, events and rounding, from the EIP's own sentences
    (docs/properties.md).

    Switch a property off with `rule_erc4626_<name> = None` in the machine's class body (a vault
    with fees: the preview and exact-amount ones it cannot meet...).
    """

    prefix = "erc4626"
    erc4626_actor = ACTOR
    erc4626_amount = AMOUNT

    def _erc4626(self) -> ERC4626Adapter:
        return adapter_of(self, "erc4626", ERC4626Adapter, "ERC4626Properties", "ERC4626Adapter(vault, accounts)")

    # -- what the actors need ---------------------------------------------------------

    @rule(receiver=ACTOR, amount=AMOUNT)
    def rule_erc4626_fund(self, receiver="erc4626_actor", amount="erc4626_amount"):
        """Gives an actor assets, as the adapter says (default: deal): not a property, what the others need."""
        a = self._erc4626()
        amount %= v.FUND_CAP + 1
        if a.asset.totalSupply() + amount < 2**255:
            a.fund(a.actor(receiver), amount)

    @precondition(
        lambda self: self._erc4626().donations or leave_out("rule_erc4626_donate", "ERC4626Adapter(donations=False)")
    )
    @rule(sender=ACTOR, amount=AMOUNT)
    def rule_erc4626_donate(self, sender="erc4626_actor", amount="erc4626_amount"):
        """Sends assets to the vault directly, as yield does: not a property, a change of share price the others must
        hold under.
        """
        a = self._erc4626()
        sender = a.actor(sender)
        send(a.asset.transfer, a.vault, clamp(amount, a.assets(sender)), sender=sender)

    # -- invariants -------------------------------------------------------------------

    @precondition(
        lambda self: (
            self._erc4626().idle
            or leave_out(
                "invariant_erc4626_total_assets_match_balance",
                "ERC4626Adapter(idle=False): the vault puts its assets elsewhere",
            )
        )
    )
    @invariant()
    def invariant_erc4626_total_assets_match_balance(self):
        """A vault that keeps its assets idle manages exactly the asset balance it holds: totalAssets() is that balance.

        EIP-4626, totalAssets: "Total amount of the underlying asset that is "managed" by Vault."
        """
        a = self._erc4626()
        total, held = a.vault.totalAssets(), a.assets(a.vault)
        expect(
            total == held,
            lambda: (
                f"totalAssets() is {total}, but the vault holds {held} of the asset (give ERC4626Adapter(idle=False) "
                "for a vault that invests them or counts what it manages itself, so that assets sent to it are not its)"
            ),
            'EIP-4626, totalAssets: "Total amount of the underlying asset that is "managed" by Vault."',
        )
        exercised("invariant_erc4626_total_assets_match_balance", total > 0, "a vault holding assets")

    @rule(owner=ACTOR)
    def rule_erc4626_views_do_not_revert(self, owner="erc4626_actor"):
        """asset, totalAssets and every max* view answer (for an actor), as they must whatever the state.

        EIP-4626, maxDeposit: "MUST NOT revert."
        """
        a = self._erc4626()
        owner = a.actor(owner)
        checks = [("asset()", a.vault.asset, ()), ("totalAssets()", a.vault.totalAssets, ())]
        checks += [
            (f"{n}({shown(owner)})", a.vault.function(n), (owner,))
            for n in ("maxDeposit", "maxMint", "maxWithdraw", "maxRedeem")
        ]
        for label, view, args in checks:
            try:
                view(*args)
            except TransactionReverted as exc:
                raise AssertionError(
                    f'{label} reverted: {exc}\n  EIP-4626, {label.split("(")[0]}: "MUST NOT revert."'
                ) from exc
        exercised("rule_erc4626_views_do_not_revert", a.shares(owner) > 0, "an actor holding shares")

    def _erc4626_sample(self, amount: int) -> tuple[ERC4626Adapter, int, bool]:
        """The adapter, an amount at most as large as what exists of assets or shares, and whether the share price is
        not 1:1.
        """
        a = self._erc4626()
        vault = a.vault
        supply, total = vault.totalSupply(), vault.totalAssets()
        return a, clamp(amount, max(supply, total, a.asset.totalSupply())), supply > 0 and total != supply

    @rule(amount=AMOUNT)
    def rule_erc4626_conversions_round_down(self, amount="erc4626_amount"):
        """Converting an amount to shares and back (and shares to assets and back) never gives more than it started
        with.

        EIP-4626, convertToShares: "MUST round down towards 0."
        """
        a, amount, priced = self._erc4626_sample(amount)
        vault, clause = a.vault, 'EIP-4626, convertToShares and convertToAssets: "MUST round down towards 0."'
        back = vault.convertToAssets(vault.convertToShares(amount))
        expect(
            back <= amount,
            lambda: f"convertToAssets(convertToShares({amount})) is {back}: rounding up gave more than it started with",
            clause,
        )
        again = vault.convertToShares(vault.convertToAssets(amount))
        expect(
            again <= amount,
            lambda: (
                f"convertToShares(convertToAssets({amount})) is {again}: rounding up gave more than it started with"
            ),
            clause,
        )
        exercised(
            "rule_erc4626_conversions_round_down", priced and amount > 0, "a share price other than one asset per share"
        )

    @rule(amount=AMOUNT)
    def rule_erc4626_previews_favour_the_vault(self, amount="erc4626_amount"):
        """previewDeposit and previewRedeem give no more than the conversions, previewMint and previewWithdraw ask no
        less, and what a mint asks buys at least its shares by deposit (a withdrawal's shares redeem for at least its
        assets).

        EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during calculations
        over its users"
        """
        a, amount, priced = self._erc4626_sample(amount)
        vault = a.vault
        clause = (
            'EIP-4626, Security Considerations: "it is considered most secure to favor the Vault itself during '
            'calculations over its users"'
        )
        pairs = (
            ("previewDeposit", "convertToShares", lambda p, c: p <= c),
            ("previewMint", "convertToAssets", lambda p, c: p >= c),
            ("previewWithdraw", "convertToShares", lambda p, c: p >= c),
            ("previewRedeem", "convertToAssets", lambda p, c: p <= c),
        )
        for name, convert, holds in pairs:
            seen = v.preview(vault, name, amount)
            converted = vault.function(convert)(amount)
            expect(
                seen is None or holds(seen, converted),
                lambda: (
                    f"{name}({amount}) is {seen} but {convert}({amount}) is {converted}: the preview favours the caller"
                ),
                clause,
            )
        # mint and withdraw round up: the assets a mint asks buy at least as many shares by a deposit,
        # and the shares a withdrawal burns redeem for at least its assets
        for ask, back in (("previewMint", "previewDeposit"), ("previewWithdraw", "previewRedeem")):
            asked = v.preview(vault, ask, amount)
            again = None if asked is None else v.preview(vault, back, asked)
            expect(
                again is None or again >= amount,
                lambda: f"{ask}({amount}) is {asked}, and {back}({asked}) is {again}: {ask} rounds toward the caller",
                clause,
            )
        exercised(
            "rule_erc4626_previews_favour_the_vault", priced and amount > 0,
            "a share price other than one asset per share",
        )

    @rule(owner=ACTOR)
    def rule_erc4626_max_redeem_and_withdraw_are_backed(self, owner="erc4626_actor"):
        """maxRedeem(owner) is at most the owner's shares, and withdrawing maxWithdraw(owner) asks no more shares than
        the owner has.

        EIP-4626, maxWithdraw: "Maximum amount of the underlying asset that can be withdrawn from the owner balance in
        the Vault, through a withdraw call."
        """
        a = self._erc4626()
        owner = a.actor(owner)
        shares = a.shares(owner)
        most = a.vault.maxRedeem(owner)
        expect(
            most <= shares, lambda: f"maxRedeem({shown(owner)}) is {most}, but {shown(owner)} holds {shares} shares",
            MAX_REDEEM,
        )
        limit = a.vault.maxWithdraw(owner)
        needed = v.preview(a.vault, "previewWithdraw", limit)
        expect(
            needed is None or needed <= shares,
            lambda: (
                f"maxWithdraw({shown(owner)}) is {limit}, which previewWithdraw says needs {needed} shares, "
                f"but {shown(owner)} holds {shares}"
            ),
            MAX_WITHDRAW,
        )
        exercised(
            "rule_erc4626_max_redeem_and_withdraw_are_backed", shares > 0 and a.vault.totalSupply() > shares,
            "an actor holding some of the shares, not all",
        )


for _kind, _prop, _check, _what, _doc in FLOWS:  # the action properties, each a rule of the pack's
    setattr(ERC4626Properties, f"rule_erc4626_{_kind}_{_prop}", _flow_rule(_kind, _prop, _check, _what, _doc))
del _kind, _prop, _check, _what, _doc
