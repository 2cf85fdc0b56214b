from evmstate import strategy


class BankMachine:
    """The bank holds what was deposited and not withdrawn; with the re-entering actor drawn as a depositor it does not."""

    settings = {"actors": ["reenters"]}
    who = strategy("address")
    amount = strategy("uint256", max_value="10 ether")

    def __init__(cls, Bank):
        cls.bank = Bank.deploy()

    def setup(self):
        self.total = 0

    def rule_deposit(self, who, amount):
        self.bank.deposit({"from": who, "value": amount})
        self.total += amount

    def rule_withdraw(self, who):
        self.total -= self.bank.balances(who)
        self.bank.withdraw({"from": who})

    def invariant_holds_every_deposit(self):
        assert self.bank.balance() == self.total


class PayMachine:
    """pay() pushes ether: to an actor that rejects ether it reverts (the strategy names the actors it draws)."""

    to = strategy("address", actors=["rejects-ether"])

    def __init__(cls, Bank, accounts):
        cls.bank = Bank.deploy()
        cls.bank.deposit({"from": accounts[0], "value": 10**18})

    def rule_pay(self, to):
        self.bank.pay(to, 1)
