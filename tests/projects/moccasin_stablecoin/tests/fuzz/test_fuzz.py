"""The stateful fuzz test `mox test` runs (titanoboa and Hypothesis)."""

import boa
from boa.test.strategies import strategy
from hypothesis import assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from moccasin.config import get_active_network

from script.deploy_dsc import deploy_dsc
from script.deploy_dsc_engine import deploy_dsc_engine

USERS_SIZE = 10
MAX_DEPOSIT_SIZE = 1000 * 10**18
MAX_NEW_PRICE = 10_000 * 10**8


class StablecoinFuzzer(RuleBasedStateMachine):
    @initialize()
    def setup(self):
        self.dsc = deploy_dsc()
        self.dsce = deploy_dsc_engine(self.dsc)
        network = get_active_network()
        self.weth = network.manifest_named("weth")
        self.wbtc = network.manifest_named("wbtc")
        self.feeds = [network.manifest_named("eth_usd_price_feed"), network.manifest_named("btc_usd_price_feed")]
        self.users = [boa.env.generate_address() for _ in range(USERS_SIZE)]

    def _collateral(self, seed):
        return self.weth if seed == 0 else self.wbtc

    @rule(
        collateral_seed=st.integers(min_value=0, max_value=1),
        user_seed=st.integers(min_value=0, max_value=USERS_SIZE - 1),
        amount=strategy("uint256", min_value=1, max_value=MAX_DEPOSIT_SIZE),
    )
    def mint_and_deposit(self, collateral_seed, user_seed, amount):
        collateral = self._collateral(collateral_seed)
        with boa.env.prank(self.users[user_seed]):
            collateral.mint_amount(amount)
            collateral.approve(self.dsce.address, amount)
            self.dsce.deposit_collateral(collateral, amount)

    @rule(
        user_seed=st.integers(min_value=0, max_value=USERS_SIZE - 1),
        percentage=st.integers(min_value=1, max_value=100),
    )
    def mint_dsc(self, user_seed, percentage):
        user = self.users[user_seed]
        minted, collateral_value = self.dsce.get_account_information(user)
        to_mint = max(collateral_value // 2 - minted, 0) * percentage // 100
        assume(to_mint > 0)
        with boa.env.prank(user):
            self.dsce.mint_dsc(to_mint)

    @rule(
        collateral_seed=st.integers(min_value=0, max_value=1),
        user_seed=st.integers(min_value=0, max_value=USERS_SIZE - 1),
        percentage=st.integers(min_value=1, max_value=100),
    )
    def redeem_collateral(self, collateral_seed, user_seed, percentage):
        user = self.users[user_seed]
        collateral, other = self._collateral(collateral_seed), self._collateral(1 - collateral_seed)
        deposited = self.dsce.get_collateral_balance_of_user(user, collateral)
        to_redeem = deposited * percentage // 100
        assume(to_redeem > 0)
        minted, _ = self.dsce.get_account_information(user)
        left = self.dsce.get_usd_value(collateral, deposited - to_redeem) + self.dsce.get_usd_value(
            other, self.dsce.get_collateral_balance_of_user(user, other)
        )
        with boa.env.prank(user):
            if minted and left * 50 // 100 * 10**18 // minted < 10**18:
                with boa.reverts("DSCEngine__BreaksHealthFactor"):
                    self.dsce.redeem_collateral(collateral, to_redeem)
            else:
                self.dsce.redeem_collateral(collateral, to_redeem)

    @rule(
        collateral_seed=st.integers(min_value=0, max_value=1),
        new_price=st.integers(min_value=0, max_value=MAX_NEW_PRICE),
    )
    def update_collateral_price(self, collateral_seed, new_price):
        self.feeds[collateral_seed].updateAnswer(new_price)

    @invariant()
    def protocol_must_have_more_value_than_total_supply(self):
        total_supply = self.dsc.totalSupply()
        weth_value = self.dsce.get_usd_value(self.weth, self.weth.balanceOf(self.dsce))
        wbtc_value = self.dsce.get_usd_value(self.wbtc, self.wbtc.balanceOf(self.dsce))
        assert weth_value + wbtc_value >= total_supply


stablecoin_fuzzer = StablecoinFuzzer.TestCase
stablecoin_fuzzer.settings = settings(max_examples=64, stateful_step_count=64)
