"""Wrapped ether forked from a node: three holders' balances, as the node has them at the pinned block, moved to accounts[0..2].

The ledger (contracts/Ledger.vy) was deployed on the node by its first account, and three
others deposited there (benchmarks/shrink.py, ledger_node()). The machine takes each holder's
whole balance to one of its own accounts, then deposits, withdraws and moves balances, checking
each balance and the supply against its model.
"""

from evmstate import reverts, strategy

LEDGER = "0x5FbDB2315678afecb367f032d93F642f64180aa3"  # the first contract anvil's first account deploys
HOLDERS = (  # anvil's accounts 1, 2 and 3: each deposited before the pinned block
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
)


class LedgerMachine:
    owner = strategy("address", length=3)
    receiver = strategy("address", length=3)
    amount = strategy("uint256")
    value = strategy("uint256", max_value="10 ether")

    def __init__(cls, accounts, Ledger):
        cls.accounts = list(accounts)[:3]
        cls.weth = Ledger.at(LEDGER)
        for holder, account in zip(HOLDERS, cls.accounts):
            cls.weth.transfer(account, cls.weth.balanceOf(holder), {"from": holder})

    def setup(self):
        self.balances = {a: self.weth.balanceOf(a) for a in self.accounts}
        self.supply = self.weth.totalSupply()

    def rule_deposit(self, owner, value):
        self.weth.deposit({"from": owner, "value": value})
        self.balances[owner] += value
        self.supply += value

    def rule_withdraw(self, owner, amount):
        if amount > self.balances[owner]:
            with reverts("insufficient balance"):
                self.weth.withdraw(amount, {"from": owner})
            return
        self.weth.withdraw(amount, {"from": owner})
        self.balances[owner] -= amount
        self.supply -= amount

    def rule_transfer(self, owner, receiver, amount):
        if amount > self.balances[owner]:
            with reverts("insufficient balance"):
                self.weth.transfer(receiver, amount, {"from": owner})
            return
        self.weth.transfer(receiver, amount, {"from": owner})
        self.balances[owner] -= amount
        self.balances[receiver] += amount

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.weth.balanceOf(account) == balance, f"{account}'s balance differs"

    def invariant_supply(self):
        assert self.weth.totalSupply() == self.supply, "the supply differs"
