"""The ERC-4626 bug classes found in real vaults, each planted as one line changed in a copy of contracts/Vault.vy.

Read by tests/quality/test_packs.py and benchmarks/packs.py (--bugs); not a machine (it is not
under machines/). Each class: the line as it is, as the bug has it, and the pack properties that
may report it.
"""

BUGS = {
    "VaultMintsMore": (
        "    self._pull(assets)\n    self._mint(receiver, shares)\n    log Deposit(sender=msg.sender, owner=receiver, assets=assets, shares=shares)\n    return assets\n",
        "    self._pull(assets)\n    self._mint(receiver, self._to_shares(assets, True))\n    log Deposit(sender=msg.sender, owner=receiver, assets=assets, shares=shares)\n    return assets\n",
        {"rule_erc4626_mint_credits_exact_shares", "rule_erc4626_mint_then_withdraw_does_not_profit"},
    ),
    "VaultWithdrawPaysOther": (
        "    self._burn(owner, shares)\n    assert extcall IERC20(self.asset).transfer(receiver, assets, default_return_value=True)\n    log Withdraw(sender=msg.sender, receiver=receiver, owner=owner, assets=assets, shares=shares)\n    return shares\n",
        "    self._burn(owner, shares)\n    assert extcall IERC20(self.asset).transfer(receiver, self._to_assets(shares, False), default_return_value=True)\n    log Withdraw(sender=msg.sender, receiver=receiver, owner=owner, assets=assets, shares=shares)\n    return shares\n",
        {"rule_erc4626_withdraw_pays_exact_assets", "rule_erc4626_withdraw_within_max_succeeds", "rule_erc4626_withdraw_with_allowance_spends_it", "rule_erc4626_withdraw_then_mint_does_not_profit", "rule_erc4626_mint_then_withdraw_does_not_profit"},
    ),
    "VaultMaxWrongAccount": (
        "    assert assets <= self._max_withdraw(owner), ",
        "    assert assets <= self._max_withdraw(receiver), ",
        {"rule_erc4626_withdraw_within_max_succeeds", "rule_erc4626_withdraw_with_allowance_spends_it", "rule_erc4626_mint_then_withdraw_does_not_profit"},
    ),
    "VaultMaxIgnoresCap": (
        "    return self.cap - total\n",
        "    return max_value(uint256)\n",
        {"rule_erc4626_deposit_within_max_succeeds", "rule_erc4626_mint_within_max_succeeds"},
    ),
    "VaultInflatable": (
        "VIRTUAL: constant(uint256) = 1",
        "VIRTUAL: constant(uint256) = 0",
        {"initialize_erc4626_first_depositor_cannot_profit_from_a_donation", "rule_erc4626_deposit_then_redeem_does_not_profit", "rule_erc4626_redeem_then_deposit_does_not_profit"},
    ),
}
# maxDeposit still above zero once the owner shuts deposits: found by a scaffolded machine, whose rule calls shutdown()
SHUT = ("    if self.shut or total >= self.cap:\n", "    if total >= self.cap:\n")

MACHINE = """
class {name}Machine(ERC4626Properties):
    def __init__(cls, accounts, Asset, {name}):
        asset = Asset.deploy({{"from": accounts[0]}})
        cls.erc4626 = ERC4626Adapter({name}.deploy(asset, 2 * 10**24, {{"from": accounts[0]}}), accounts, asset=asset)
"""


def variants(source: str) -> dict[str, str]:
    """The vault's source with each bug planted (VaultShutKeepsMax too), by the name of its copy."""
    changed = {name: (line, bug) for name, (line, bug, _) in BUGS.items()} | {"VaultShutKeepsMax": SHUT}
    out = {name: source.replace(line, bug) for name, (line, bug) in changed.items()}
    unchanged = [name for name, text in out.items() if text == source]
    assert not unchanged, f"the vault no longer has the lines these bugs change: {unchanged}"
    return out


def machines(names: list[str]) -> str:
    """A machines module: for each named copy of the vault, a machine of the ERC-4626 pack alone."""
    return "from evmstate.properties import ERC4626Adapter, ERC4626Properties\n" + "".join(MACHINE.format(name=name) for name in names)
