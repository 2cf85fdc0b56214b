"""snekmate's ERC20 under the invariants of snekmate's own Foundry suite (test/tokens/ERC20.t.sol:
ERC20Invariants and its ERC20Handler), ported rule for rule.

The handler's calls (transfer, approve, transferFrom, burn, mint), each sent by any address; a
call that reverts changes nothing, as in a Foundry invariant run (fail_on_revert = false). The
total supply is tracked as the handler tracks it, and the balances of every address a call
moved tokens of add up to it.
"""

from evmstate import TransactionReverted, strategy

SUPPLY = 255 * 10**18  # the suite's _INITIAL_SUPPLY: type(uint8).max tokens of 18 decimals


def went_through(function, *args):
    """Call; whether the call went through (a revert is not a failure, as in Foundry's invariant runs)."""
    try:
        function(*args)
    except TransactionReverted:
        return False
    return True


class ERC20Machine:
    st_sender = strategy("address")
    st_owner = strategy("address")
    st_to = strategy("address")
    st_amount = strategy("uint256")

    def __init__(cls, accounts, ERC20Mock):
        cls.deployer = accounts[0]
        cls.token = ERC20Mock.deploy("MyToken", "WAGMI", SUPPLY, "MyToken", "1", {"from": accounts[0]})

    def setup(self):
        self.total_supply = SUPPLY
        self.holders = {self.deployer}

    def rule_transfer(self, st_sender, st_to, st_amount):
        if went_through(self.token.transfer, st_to, st_amount, {"from": st_sender}):
            self.holders |= {st_sender, st_to}

    def rule_approve(self, st_sender, st_to, st_amount):
        went_through(self.token.approve, st_to, st_amount, {"from": st_sender})

    def rule_transfer_from(self, st_sender, st_owner, st_to, st_amount):
        if went_through(self.token.transferFrom, st_owner, st_to, st_amount, {"from": st_sender}):
            self.holders |= {st_owner, st_to}

    def rule_burn(self, st_sender, st_amount):
        if went_through(self.token.burn, st_amount, {"from": st_sender}):
            self.total_supply -= st_amount
            self.holders.add(st_sender)

    def rule_mint(self, st_sender, st_to, st_amount):
        if went_through(self.token.mint, st_to, st_amount, {"from": st_sender}):
            self.total_supply += st_amount
            self.holders.add(st_to)

    def invariant_total_supply(self):
        assert self.token.totalSupply() == self.total_supply

    def invariant_balances(self):
        assert sum(self.token.balanceOf(a) for a in self.holders) == self.total_supply
