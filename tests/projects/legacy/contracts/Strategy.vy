# @version 0.3.7
"""A strategy that holds what the vault lends it and gives it back; a greedy one calls back into the vault as it does."""

from vyper.interfaces import ERC20

interface Vault:
    def update_debt(strategy: address, target_debt: uint256) -> uint256: nonpayable

asset: public(address)
vault: public(address)
greedy: public(bool)


@external
def __init__(asset: address, vault: address):
    self.asset = asset
    self.vault = vault


@external
def set_greedy(greedy: bool):
    self.greedy = greedy


@external
def withdraw(amount: uint256, receiver: address):
    assert msg.sender == self.vault, "not vault"
    if self.greedy:
        Vault(self.vault).update_debt(self, 0)
    assert ERC20(self.asset).transfer(receiver, amount, default_return_value=True), "Transfer failed."
