"""The ERC-4626 adapter, and the four actions the vault pack's rules send, each bounded by what its actor can do.

An action reads the state it is about to change (asset and share balances, the supply, total
assets, the preview and the max* view for it), sends the call, and reads the state again; the
properties (erc4626.py) compare the two. A draw is bounded so that an action stays within its
max* and within what its caller holds: such an action must not revert.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..contracts.address import to_raw_address
from ..contracts.api import current_project
from ..contracts.contract import Contract
from ..errors import MachineDefinitionError, TransactionReverted, UsageError
from .base import MAX_UINT, Adapter, Sent, clamp, send, shown

FUND_CAP = 10**30  # the most one funding step gives

DEPOSIT = ("deposit", "previewDeposit", "maxDeposit")
MINT = ("mint", "previewMint", "maxMint")
WITHDRAW = ("withdraw", "previewWithdraw", "maxWithdraw")
REDEEM = ("redeem", "previewRedeem", "maxRedeem")


class ERC4626Adapter(Adapter):
    """The vault under test, its asset, the actors, and how to give an actor assets.

    fund(actor, amount) gives actor amount more of the asset (default: forge's deal on the asset,
    its supply adjusted); every actor starts with initial assets (default: a million whole tokens)
    and has approved the vault for all of them. idle=True says the vault keeps its assets as the
    asset's balance (totalAssets() is then that balance); donations=True lets a rule send assets to
    the vault directly, as yield does.
    """

    kind = "ERC-4626 vault"

    def __init__(
        self,
        vault: Any,
        actors: Iterable[Any] | None = None,
        *,
        asset: Any = None,
        fund: Callable[[Any, int], Any] | None = None,
        initial: int | None = None,
        idle: bool = True,
        donations: bool = True,
    ) -> None:
        super().__init__(vault, actors)
        self.require(
            "ERC4626Properties",
            *(((name, ["uint256", "address"]) for name in ("deposit", "mint"))),
            *(((name, ["uint256", "address", "address"]) for name in ("withdraw", "redeem"))),
            *(
                (
                    (name, ["uint256"])
                    for name in (
                        "previewDeposit", "previewMint", "previewWithdraw", "previewRedeem", "convertToShares",
                        "convertToAssets",
                    )
                )
            ),
            *(((name, ["address"]) for name in ("maxDeposit", "maxMint", "maxWithdraw", "maxRedeem", "balanceOf"))),
            ("totalAssets", []),
            ("totalSupply", []),
            ("asset", []),
            ("approve", ["address", "uint256"]),
            ("allowance", ["address", "address"]),
        )
        self.vault = vault
        self.asset = asset if asset is not None else _asset_of(vault)
        self.funder = fund
        self.idle = idle
        self.donations = donations
        if initial is None:
            decimals = self.asset.decimals() if "decimals" in {e.get("name") for e in self.asset.abi} else 18
            initial = 10**6 * 10**decimals
        for actor in self.actors:
            if initial:
                self.fund(actor, initial)
            self.asset.approve(vault, MAX_UINT, {"from": actor})

    def fund(self, actor: Any, amount: int) -> None:
        if self.funder is not None:
            self.funder(actor, amount)
            return
        try:
            self.chain.deal(self.asset, actor, self.asset.balanceOf(actor) + amount, adjust_total_supply=True)
        except UsageError as exc:
            raise MachineDefinitionError(
                f"ERC4626Adapter cannot give actors the asset by deal ({exc}); give ERC4626Adapter(fund=...) "
                "a function (actor, amount) that does"
            ) from exc

    def shares(self, owner: Any) -> int:
        return self.vault.balanceOf(owner)

    def assets(self, owner: Any) -> int:
        return self.asset.balanceOf(owner)


def _asset_of(vault: Any) -> Contract:
    """The vault's asset as a contract of the project's, from asset()."""
    project = current_project.get()
    raw = to_raw_address(vault.asset(), what="asset()")
    artifact = project.artifact_at(raw)
    if artifact is None:
        raise MachineDefinitionError(
            f"{vault!r}.asset() is {shown(vault.asset())}, a contract the project did not deploy: "
            "give ERC4626Adapter(asset=Token.at(address))"
        )
    return Contract(project, project.name_at(raw) or artifact.name, raw, artifact)


@dataclass
class Flow:
    """One deposit, mint, withdraw or redeem sent by a rule, and the state read around it."""

    kind: str  # deposit, mint, withdraw, redeem
    caller: Any
    receiver: Any
    owner: Any  # whose shares (withdraw, redeem) or whose assets (deposit, mint: the caller)
    amount: int  # assets (deposit, withdraw) or shares (mint, redeem)
    preview: int
    limit: int  # the max* view for it
    sent: Sent = field(default_factory=Sent)
    assets: tuple[dict[Any, int], dict[Any, int]] = ({}, {})
    shares: tuple[dict[Any, int], dict[Any, int]] = ({}, {})
    supply: tuple[int, int] = (0, 0)
    total: tuple[int, int] = (0, 0)
    allowance: tuple[int, int] = (0, 0)

    @property
    def call(self) -> str:
        args = [str(self.amount), shown(self.receiver)] + (
            [shown(self.owner)] if self.kind in ("withdraw", "redeem") else []
        )
        return f"{self.kind}({', '.join(args)}) from {shown(self.caller)}"

    @property
    def returned(self) -> int:
        return self.sent.value

    def change(self, which: str, account: Any) -> int:
        """How much account's assets (which="assets") or shares went up (down: negative)."""
        before, after = self.assets if which == "assets" else self.shares
        return after[account] - before[account]


def preview(vault: Any, name: str, amount: int) -> int | None:
    """A preview, or None where it reverts (a preview may, where the action would)."""
    try:
        return vault.function(name)(amount)
    except TransactionReverted:
        return None


def flow(a: ERC4626Adapter, kind: str, caller: Any, receiver: Any, owner: Any, amount: int, limit: int) -> Flow | None:
    """Send one action, reading the state around it; None where its preview reverts."""
    names = {"deposit": DEPOSIT, "mint": MINT, "withdraw": WITHDRAW, "redeem": REDEEM}[kind]
    vault = a.vault
    seen = preview(vault, names[1], amount)
    if seen is None:
        return None
    f = Flow(kind, caller, receiver, owner, amount, seen, limit)
    watched = list(dict.fromkeys([caller, receiver, owner, *a.actors]))
    before = ({x: a.assets(x) for x in watched}, {x: a.shares(x) for x in watched})
    supply, total, allowance = vault.totalSupply(), vault.totalAssets(), vault.allowance(owner, caller)
    args = (amount, receiver) if kind in ("deposit", "mint") else (amount, receiver, owner)
    f.sent = send(vault.function(kind), *args, sender=caller)
    f.assets = (before[0], {x: a.assets(x) for x in watched})
    f.shares = (before[1], {x: a.shares(x) for x in watched})
    f.supply, f.total = (supply, vault.totalSupply()), (total, vault.totalAssets())
    f.allowance = (allowance, vault.allowance(owner, caller))
    return f


def deposit(a: ERC4626Adapter, caller: Any, receiver: Any, raw: int) -> Flow | None:
    """A deposit of at most the caller's assets and maxDeposit(receiver)."""
    limit = a.vault.maxDeposit(receiver)
    return flow(a, "deposit", caller, receiver, caller, clamp(raw, min(a.assets(caller), limit)), limit)


def mint(a: ERC4626Adapter, caller: Any, receiver: Any, raw: int) -> Flow | None:
    """A mint of at most maxMint(receiver) shares that the caller's assets pay for."""
    limit = a.vault.maxMint(receiver)
    wallet = a.assets(caller)
    affordable = preview(a.vault, "previewDeposit", wallet) or 0
    shares = clamp(raw, min(limit, affordable))
    cost = preview(a.vault, "previewMint", shares)
    while shares and (cost is None or cost > wallet):  # rounding up may ask a wei more than the wallet
        shares -= 1 if shares < 4 else shares // 4
        cost = preview(a.vault, "previewMint", shares)
    return flow(a, "mint", caller, receiver, caller, shares, limit)


def withdraw(a: ERC4626Adapter, caller: Any, receiver: Any, owner: Any, raw: int) -> Flow | None:
    """A withdrawal of at most maxWithdraw(owner) assets."""
    limit = a.vault.maxWithdraw(owner)
    return flow(a, "withdraw", caller, receiver, owner, clamp(raw, limit), limit)


def redeem(a: ERC4626Adapter, caller: Any, receiver: Any, owner: Any, raw: int) -> Flow | None:
    """A redemption of at most maxRedeem(owner) shares."""
    limit = a.vault.maxRedeem(owner)
    return flow(a, "redeem", caller, receiver, owner, clamp(raw, limit), limit)


def allow(a: ERC4626Adapter, owner: Any, spender: Any, shares: int) -> None:
    """The owner lets the spender spend at least shares of its shares (an approve, when the allowance is short)."""
    if a.vault.allowance(owner, spender) < shares:
        send(a.vault.approve, spender, shares, sender=owner)
