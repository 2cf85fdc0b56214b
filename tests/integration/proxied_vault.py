"""A vault behind a delegating proxy: value sent to its function that is not payable, blamed on the function's def line on every release and backend."""

from __future__ import annotations

import pytest

from evmstate import Project, TransactionReverted


PROXY = """# pragma version ~=0.4.3
implementation: public(address)


@deploy
def __init__(implementation: address):
    self.implementation = implementation


@external
@payable
def __default__():
    raw_call(self.implementation, msg.data, is_delegate_call=True)
"""

VAULT = """# pragma version ~=0.4.3
implementation: public(address)
totalDeposits: public(uint256)


@external
def deposit(amount: uint256):
    self.totalDeposits += amount
"""


def blames_the_def_line_of_deposit(p: Project, line: int) -> None:
    """Value sent to Vault.deposit (not payable) directly, through the proxy, and through it with Vault.at(proxy): the line is deposit's def line."""
    from evmstate.contracts.revert import complete

    vault = p.Vault.deploy()
    proxy = p.Proxy.deploy(vault)
    data = vault.deposit.encode_input(5)
    p.accounts[0].transfer(proxy, 0, data=data)
    for to, attached in ((vault, False), (proxy, False), (proxy, True)):
        if attached:
            p.Vault.at(proxy)  # the proxy's address names Vault's interface now: the code that runs there is still the proxy's
        with pytest.raises(TransactionReverted) as info:
            p.accounts[0].transfer(to, 1, data=data)
        err = complete(info.value)
        assert err.kind == "bad calldata, or value sent to a non-payable function"
        assert err.source_line.endswith(f"contracts/Vault.vy:{line}: def deposit(amount: uint256):"), str(err)
        assert (to is vault) or (err.via and "contracts/Proxy.vy:" in err.via[0] and "is_delegate_call=True" in err.via[0]), err.via
