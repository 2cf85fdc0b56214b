"""A passing machine: an ERC20 token under a full model of balances and allowances."""

from evmstate import reverts, strategy


class ERC20Machine:

    st_amount = strategy("uint256", max_value="1000 ether")
    st_owner = strategy("address")
    st_spender = strategy("address")
    st_receiver = strategy("address")

    def __init__(cls, accounts, Token):
        cls.accounts = accounts
        cls.token = Token.deploy("Test Token", "TST", 18, "1000 ether", {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = 1000 * 10**18
        self.allowances = {}

    def rule_transfer(self, st_owner, st_receiver, st_amount):
        if self.balances[st_owner] >= st_amount:
            tx = self.token.transfer(st_receiver, st_amount, {"from": st_owner})
            assert tx.events["Transfer"]["value"] == st_amount
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
        else:
            with reverts("Insufficient balance"):
                self.token.transfer(st_receiver, st_amount, {"from": st_owner})

    def rule_approve(self, st_owner, st_spender, st_amount):
        self.token.approve(st_spender, st_amount, {"from": st_owner})
        self.allowances[(st_owner, st_spender)] = st_amount

    def rule_transfer_from(self, st_spender, st_owner, st_receiver, st_amount):
        allowed = self.allowances.get((st_owner, st_spender), 0)
        if self.balances[st_owner] >= st_amount and allowed >= st_amount:
            self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
            self.allowances[(st_owner, st_spender)] = allowed - st_amount
        else:
            with reverts():
                self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.token.balanceOf(account) == balance

    def invariant_total_supply(self):
        assert self.token.totalSupply() == sum(self.balances.values())
