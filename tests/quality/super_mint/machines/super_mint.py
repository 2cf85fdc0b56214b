from hypothesis import assume
from hypothesis import strategies as st

from evmstate import StateMachine, invariant, reverts, rule, strategy

UINT256_MAX = 2**256 - 1
MINTERS = 10


class SuperMint(StateMachine):
    def __init__(cls, accounts, SnekToken):
        cls.owner = accounts[0]
        cls.minters = list(accounts[1 : MINTERS + 1])
        cls.token = SnekToken.deploy(1000 * 10**18, {"from": cls.owner})

    @rule(amount=strategy("uint256"), minter_seed=st.integers(min_value=0, max_value=MINTERS - 1))
    def mint(self, amount, minter_seed):
        assume(self.token.totalSupply() + amount < UINT256_MAX)
        self.token.mint(self.minters[minter_seed], amount, {"from": self.owner})

    @rule(minter_seed=st.integers(min_value=0, max_value=MINTERS - 1))
    def super_mint(self, minter_seed):
        self.token.super_mint({"from": self.minters[minter_seed]})

    @rule(amount=strategy("uint256"), sender_seed=st.integers(min_value=0, max_value=MINTERS - 1), receiver_seed=st.integers(min_value=0, max_value=MINTERS - 1))
    def transfer(self, amount, sender_seed, receiver_seed):
        sender, receiver = self.minters[sender_seed], self.minters[receiver_seed]
        if amount > self.token.balanceOf(sender):
            with reverts():
                self.token.transfer(receiver, amount, {"from": sender})
        else:
            self.token.transfer(receiver, amount, {"from": sender})

    @rule(amount=strategy("uint256"), holder_seed=st.integers(min_value=0, max_value=MINTERS - 1))
    def burn(self, amount, holder_seed):
        holder = self.minters[holder_seed]
        if amount > self.token.balanceOf(holder):
            with reverts():
                self.token.burn(amount, {"from": holder})
        else:
            self.token.burn(amount, {"from": holder})

    @invariant()
    def no_balance_exceeds_the_total_supply(self):
        supply = self.token.totalSupply()
        for minter in self.minters:
            assert self.token.balanceOf(minter) <= supply


class SuperMintWithView(SuperMint):
    @rule()
    def metadata(self):
        assert self.token.decimals() == 18
