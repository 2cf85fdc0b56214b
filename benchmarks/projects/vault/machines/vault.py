"""The allocator vault (contracts/Vault.vy) against a model of its accounting, written from its specification.

Four depositors, two strategies with gain, loss and lock knobs, an accountant with fees and
refunds, and a manager holding every role. The model (Python, below) keeps what the vault should
hold: idle assets and each strategy's debt, every holder's shares, the shares the vault holds
while profit unlocks, and what each strategy holds. Each rule predicts its call's outcome from the
model (the exact result, or the exact revert), checks the previews against the action, and moves
the model; the invariants compare the vault's views with the model after every step, and check
the identities: total assets = idle + debt, the holders' shares sum to the total supply, the price
of a share never drops but in a report of a loss or fees, and the max* views say what the
vault will do. Time passes between steps by itself ([fuzz] max_time_delay), which is what
unlocks profit and accrues the management fee.
"""

from evmstate import reverts, strategy

MAX = 2**256 - 1
MAX_BPS = 10_000
MAX_BPS_EXTENDED = 10**12
YEAR = 31_556_952
WALLET = 1000 * 10**18  # each depositor's assets at the start
RESERVE = 100 * 10**18  # the accountant's assets, for refunds
UNLOCK_TIME = 7 * 86400
FEES = (100, 1000, 0)  # management (bps a year), performance (bps of a gain), refunds (bps of a loss)
ALL_ROLES = 2**9 - 1


class Refused(Exception):
    """The model's word that the call reverts, and why."""


def mul_div(x, y, denominator, roundup=False):
    q, r = divmod(x * y, denominator)
    return q + 1 if roundup and r else q


class StrategyModel:
    """One strategy: what it holds (snekmate's erc4626 over the asset) and the vault's record of it."""

    def __init__(self, contract, activation):
        self.contract = contract
        self.assets = 0  # the asset it holds
        self.supply = 0  # its shares, all the vault's
        self.locked = 0
        self.debt = 0
        self.max_debt = MAX
        self.last_report = activation

    def to_assets(self, shares, roundup=False):
        return mul_div(shares, self.assets + 1, self.supply + 1, roundup)

    def to_shares(self, assets, roundup=False):
        return mul_div(assets, self.supply + 1, self.assets + 1, roundup)

    def position(self):
        """What the vault's shares are worth."""
        return self.to_assets(self.supply)

    def max_withdraw(self):
        return min(self.position(), self.assets - min(self.assets, self.locked))

    def deposit(self, assets):
        shares = self.to_shares(assets)
        self.supply += shares
        self.assets += assets

    def withdraw(self, assets):
        self.supply -= self.to_shares(assets, roundup=True)
        self.assets -= assets


class VaultModel:
    """What the vault should hold, and what each of its functions should do."""

    def __init__(self, strategies, holders):
        self.strategies = strategies
        self.idle = 0
        self.debt = 0
        self.shares = {h: 0 for h in holders}  # shares of every holder but the vault
        self.supply = 0  # the share token's supply, the vault's own shares included
        self.locked = 0  # the vault's own shares: profit still locked, or unlocked and not yet burnt
        self.rate = 0
        self.unlock_date = 0
        self.last_update = 0
        self.unlock_time = UNLOCK_TIME
        self.deposit_limit = MAX
        self.minimum_idle = 0
        self.shutdown = False
        self.fees = FEES
        self.reserve = RESERVE

    # views

    def unlocked(self, now):
        if self.unlock_date > now:
            return self.rate * (now - self.last_update) // MAX_BPS_EXTENDED
        return self.locked if self.unlock_date else 0

    def total_supply(self, now):
        return self.supply - self.unlocked(now)

    def total_assets(self):
        return self.idle + self.debt

    def to_shares(self, assets, now, roundup=False):
        return mul_div(assets, self.total_supply(now) + 1, self.total_assets() + 1, roundup)

    def to_assets(self, shares, now, roundup=False):
        return mul_div(shares, self.total_assets() + 1, self.total_supply(now) + 1, roundup)

    def max_deposit(self):
        if self.shutdown or self.total_assets() >= self.deposit_limit:
            return 0
        if self.deposit_limit == MAX:
            return MAX
        return self.deposit_limit - self.total_assets()

    def max_mint(self, now):
        return MAX if self.max_deposit() == MAX else self.to_shares(self.max_deposit(), now)

    def portion(self, s, needed, take_losses):
        """(debt retired, assets it is worth) of a withdrawal's need taken from strategy s."""
        if s.debt == 0:
            return 0, 0
        position = s.position()
        to_withdraw = min(needed, s.debt)
        if position >= s.debt:
            worth = to_withdraw
        elif take_losses:
            worth = to_withdraw * position // s.debt
        else:
            return 0, 0
        if worth > s.max_withdraw():
            if worth < to_withdraw:
                return 0, 0
            to_withdraw = worth = s.max_withdraw()
        return to_withdraw, worth

    def max_withdraw(self, owner, now, take_losses=False):
        max_assets = self.to_assets(self.shares[owner], now)
        if max_assets <= self.idle:
            return max_assets
        needed = max_assets - self.idle
        for s in self.strategies:
            if needed == 0:
                break
            needed -= self.portion(s, needed, take_losses)[0]
        return max_assets - needed

    def max_redeem(self, owner, now):
        liquid = self.max_withdraw(owner, now, take_losses=True)
        if liquid == self.to_assets(self.shares[owner], now):
            return self.shares[owner]
        return self.to_shares(liquid, now)

    # actions: each checks everything before it changes anything, and raises Refused as the vault reverts

    def deposit(self, wallets, sender, receiver, assets, shares):
        if assets > wallets[sender]:
            raise Refused("erc20: transfer amount exceeds balance")
        wallets[sender] -= assets
        self.idle += assets
        self.shares[receiver] += shares
        self.supply += shares

    def redeem(self, wallets, receiver, owner, assets, shares, take_losses):
        """The withdrawal walk: the assets the receiver gets."""
        if shares == 0:
            raise Refused("vault: no shares to redeem")
        if assets == 0:
            raise Refused("vault: no assets to withdraw")
        plan = []
        if assets > self.idle:
            needed = assets - self.idle
            for s in self.strategies:
                if needed == 0:
                    break
                to_withdraw, worth = self.portion(s, needed, take_losses)
                if to_withdraw:
                    plan.append((s, to_withdraw, worth))
                    needed -= to_withdraw
            if needed:
                raise Refused("vault: not enough assets")
        if shares > self.shares[owner]:
            raise Refused("erc20: burn amount exceeds balance")
        received = assets
        idle = self.idle
        for s, to_withdraw, worth in plan:
            if worth:
                s.withdraw(worth)
                idle += worth
            s.debt -= to_withdraw
            self.debt -= to_withdraw
            received -= to_withdraw - worth
        self.idle = idle - received
        self.shares[owner] -= shares
        self.supply -= shares
        wallets[receiver] += received
        return received

    def update_debt(self, s, target):
        current = s.debt
        new = 0 if self.shutdown else target
        if new == current:
            raise Refused("vault: new debt equals current debt")
        if current > new:
            to_withdraw = current - new
            if self.idle + to_withdraw < self.minimum_idle:
                to_withdraw = min(self.minimum_idle - self.idle, current)
            if s.position() < current:
                raise Refused("vault: strategy has unrealised losses")
            to_withdraw = min(to_withdraw, s.max_withdraw())
            if to_withdraw == 0:
                raise Refused("vault: nothing to withdraw")
            s.withdraw(to_withdraw)
            self.idle += to_withdraw
            self.debt -= to_withdraw
            s.debt = current - to_withdraw
        else:
            if new > s.max_debt:
                new = max(s.max_debt, current)
            if self.idle <= self.minimum_idle:
                return current
            to_deposit = min(new - current, self.idle - self.minimum_idle)
            if to_deposit == 0:
                return current
            s.deposit(to_deposit)
            self.idle -= to_deposit
            self.debt += to_deposit
            s.debt = current + to_deposit
        return s.debt

    def process_report(self, s, now, accountant):
        """(gain, loss, fees): realise the strategy's gain or loss, charge the fees, lock the profit."""
        unlocked = self.unlocked(now)
        if unlocked:
            if self.unlock_date > now:
                self.last_update = now
            self.locked -= unlocked
            self.supply -= unlocked
        position = s.position()
        gain, loss = max(position - s.debt, 0), max(s.debt - position, 0)
        management, performance, refund = self.fees
        fees = s.debt * (now - s.last_report) * management // MAX_BPS // YEAR + gain * performance // MAX_BPS
        refunds = min(loss * refund // MAX_BPS, self.reserve)
        to_burn = fee_shares = to_lock = 0
        if loss + fees:
            to_burn = self.to_shares(loss + fees, now, roundup=True)
            fee_shares = to_burn * fees // (loss + fees)
        if gain + refunds and self.unlock_time:
            to_lock = self.to_shares(gain + refunds, now)
        moved = to_lock - to_burn if to_lock > to_burn else -min(to_burn - to_lock, self.locked)
        self.locked += moved
        self.supply += moved
        newly_locked = to_lock - min(to_lock, to_burn)
        self.reserve -= refunds
        self.idle += refunds
        change = gain - loss
        s.debt += change
        self.debt += change
        self.shares[accountant] += fee_shares
        self.supply += fee_shares
        if self.locked:
            before = (self.locked - newly_locked) * (self.unlock_date - now) if self.unlock_date > now else 0
            period = (before + newly_locked * self.unlock_time) // self.locked
            self.rate = self.locked * MAX_BPS_EXTENDED // period
            self.unlock_date = now + period
            self.last_update = now
        else:
            self.rate = self.unlock_date = 0
        s.last_report = now
        return gain, loss, fees

    def set_unlock_time(self, seconds):
        if seconds > YEAR:
            raise Refused("vault: profit unlock time too long")
        if seconds == 0:
            self.supply -= self.locked
            self.locked = self.rate = self.unlock_date = 0
        self.unlock_time = seconds


class VaultMachine:
    st_actor = strategy("address", length=4)
    st_receiver = strategy("address", length=4)
    st_assets = strategy("uint256", max_value="1000 ether")
    st_shares = strategy("uint256", max_value="1000 ether")
    st_debt = strategy("uint256", max_value="4000 ether")
    st_knob = strategy("uint256", max_value="100 ether")
    st_strategy = strategy("uint8", max_value=1)
    st_bps = strategy("uint256", max_value=MAX_BPS)
    st_seconds = strategy("uint256", max_value=2 * YEAR)

    def __init__(cls, accounts, chain, ERC20Mock, Vault, MockStrategy, MockAccountant):
        cls.chain = chain
        cls.actors = list(accounts[:4])
        cls.manager = manager = accounts[-1]
        sender = {"from": manager}
        cls.asset = ERC20Mock.deploy("Asset", "AST", 0, "Asset", "1", sender)
        cls.vault = Vault.deploy(cls.asset, "Vault", "yvAST", manager, UNLOCK_TIME, sender)
        cls.vault.set_role(manager, ALL_ROLES, sender)
        cls.strategy_contracts = [MockStrategy.deploy(cls.asset, f"Strategy {n}", f"s{n}", sender) for n in "AB"]
        cls.accountant = MockAccountant.deploy(cls.asset, cls.vault, sender)
        cls.accountant.set_fees(*FEES, sender)
        cls.vault.set_accountant(cls.accountant, sender)
        cls.vault.set_deposit_limit(MAX, sender)
        for contract in cls.strategy_contracts:
            cls.asset.set_minter(contract, True, sender)
            cls.vault.add_strategy(contract, sender)
            cls.vault.update_max_debt_for_strategy(contract, MAX, sender)
        cls.activation = chain.time()
        cls.asset.mint(cls.accountant, RESERVE, sender)
        for actor in cls.actors:
            cls.asset.mint(actor, WALLET, sender)
            cls.asset.approve(cls.vault, MAX, {"from": actor})

    def setup(self):
        self.strategies = [StrategyModel(c, self.activation) for c in self.strategy_contracts]
        self.model = VaultModel(self.strategies, [*self.actors, self.accountant.address])
        self.wallets = {a: WALLET for a in self.actors}
        self.price = self.vault.pricePerShare()
        self.price_may_drop = False

    def expect(self, refused, call):
        """Run the call: it must revert with the reason the model gave, or succeed."""
        if refused is not None:
            with reverts(str(refused)):
                call()
            return None
        return call()

    # depositors

    def rule_deposit(self, st_actor, st_receiver, st_assets):
        now, m = self.chain.time(), self.model
        shares = m.to_shares(st_assets, now)
        refused = None
        try:
            if st_assets > m.max_deposit():
                raise Refused("vault: deposit more than maximum")
            if shares == 0:
                raise Refused("vault: cannot mint zero shares")
            preview = self.vault.previewDeposit(st_assets)
            assert preview == shares, f"previewDeposit: {preview} shares, the model {shares}"
            m.deposit(self.wallets, st_actor, st_receiver, st_assets, shares)
        except Refused as e:
            refused = e
        tx = self.expect(refused, lambda: self.vault.deposit(st_assets, st_receiver, {"from": st_actor}))
        if tx is not None:
            assert tx.return_value == shares, f"deposit returned {tx.return_value} shares, the model {shares}"

    def rule_mint(self, st_actor, st_receiver, st_shares):
        now, m = self.chain.time(), self.model
        assets = m.to_assets(st_shares, now, roundup=True)
        refused = None
        try:
            if assets > m.max_deposit():
                raise Refused("vault: mint more than maximum")
            if assets == 0:
                raise Refused("vault: cannot deposit zero assets")
            preview = self.vault.previewMint(st_shares)
            assert preview == assets, f"previewMint: {preview} assets, the model {assets}"
            m.deposit(self.wallets, st_actor, st_receiver, assets, st_shares)
        except Refused as e:
            refused = e
        tx = self.expect(refused, lambda: self.vault.mint(st_shares, st_receiver, {"from": st_actor}))
        if tx is not None:
            assert tx.return_value == assets, f"mint returned {tx.return_value} assets, the model {assets}"

    def rule_withdraw(self, st_actor, st_receiver, st_assets):
        self._withdraw(st_actor, st_receiver, st_assets)

    def rule_withdraw_max(self, st_actor, st_receiver):
        maximum, expected = self.vault.maxWithdraw(st_actor), self.model.max_withdraw(st_actor, self.chain.time())
        assert maximum == expected, f"maxWithdraw: {maximum}, the model {expected}"
        self._withdraw(st_actor, st_receiver, maximum)

    def _withdraw(self, owner, receiver, assets):
        now, m = self.chain.time(), self.model
        shares = m.to_shares(assets, now, roundup=True)
        refused = None
        try:
            if assets > m.max_withdraw(owner, now):
                raise Refused("vault: withdraw more than maximum")
            preview = self.vault.previewWithdraw(assets)
            assert preview == shares, f"previewWithdraw: {preview} shares, the model {shares}"
            received = m.redeem(self.wallets, receiver, owner, assets, shares, take_losses=False)
            assert received == assets
        except Refused as e:
            refused = e
        tx = self.expect(refused, lambda: self.vault.withdraw(assets, receiver, owner, {"from": owner}))
        if tx is not None:
            assert tx.return_value == shares, f"withdraw returned {tx.return_value} shares, the model {shares}"

    def rule_redeem(self, st_actor, st_receiver, st_shares):
        self._redeem(st_actor, st_receiver, st_shares)

    def rule_redeem_max(self, st_actor, st_receiver):
        maximum, expected = self.vault.maxRedeem(st_actor), self.model.max_redeem(st_actor, self.chain.time())
        assert maximum == expected, f"maxRedeem: {maximum}, the model {expected}"
        self._redeem(st_actor, st_receiver, maximum)

    def _redeem(self, owner, receiver, shares):
        now, m = self.chain.time(), self.model
        assets = m.to_assets(shares, now)
        refused = received = None
        try:
            if shares > m.shares[owner]:
                raise Refused("vault: redeem more than balance")
            preview = self.vault.previewRedeem(shares)
            assert preview == assets, f"previewRedeem: {preview} assets, the model {assets}"
            received = m.redeem(self.wallets, receiver, owner, assets, shares, take_losses=True)
        except Refused as e:
            refused = e
        tx = self.expect(refused, lambda: self.vault.redeem(shares, receiver, owner, {"from": owner}))
        if tx is not None:
            # previewRedeem leaves out the strategies' unrealised losses; the owner bears their share
            assert tx.return_value == received <= assets, f"redeem returned {tx.return_value} assets, the model {received} (previewRedeem {assets})"

    def rule_transfer(self, st_actor, st_receiver, st_shares):
        shares = self.model.shares
        if st_shares > shares[st_actor]:
            with reverts("erc20: transfer amount exceeds balance"):
                self.vault.transfer(st_receiver, st_shares, {"from": st_actor})
            return
        self.vault.transfer(st_receiver, st_shares, {"from": st_actor})
        shares[st_actor] -= st_shares
        shares[st_receiver] += st_shares

    # the manager

    def rule_update_debt(self, st_strategy, st_debt):
        s = self.strategies[st_strategy]
        refused = new_debt = None
        try:
            new_debt = self.model.update_debt(s, st_debt)
        except Refused as e:
            refused = e
        tx = self.expect(refused, lambda: self.vault.update_debt(s.contract, st_debt, {"from": self.manager}))
        if tx is not None:
            assert tx.return_value == new_debt, f"update_debt returned {tx.return_value}, the model {new_debt}"

    def rule_process_report(self, st_strategy):
        s = self.strategies[st_strategy]
        gain, loss, fees = self.model.process_report(s, self.chain.time(), self.accountant.address)
        tx = self.vault.process_report(s.contract, {"from": self.manager})
        assert tx.return_value == (gain, loss), f"process_report returned {tx.return_value}, the model {(gain, loss)}"
        self.price_may_drop = bool(loss or fees)

    def rule_set_max_debt(self, st_strategy, st_debt):
        s = self.strategies[st_strategy]
        self.vault.update_max_debt_for_strategy(s.contract, st_debt, {"from": self.manager})
        s.max_debt = st_debt

    def rule_set_minimum_idle(self, st_assets):
        self.vault.set_minimum_total_idle(st_assets, {"from": self.manager})
        self.model.minimum_idle = st_assets

    def rule_set_deposit_limit(self, st_assets):
        """A limit that leaves room for st_assets more."""
        limit = self.model.total_assets() + st_assets
        if self.model.shutdown:
            with reverts("vault: shut down"):
                self.vault.set_deposit_limit(limit, {"from": self.manager})
            return
        self.vault.set_deposit_limit(limit, {"from": self.manager})
        self.model.deposit_limit = limit

    def rule_set_profit_max_unlock_time(self, st_seconds):
        refused = None
        try:
            self.model.set_unlock_time(st_seconds)
        except Refused as e:
            refused = e
        self.expect(refused, lambda: self.vault.set_profit_max_unlock_time(st_seconds, {"from": self.manager}))

    def rule_set_fees(self, management="st_bps", performance="st_bps", refund="st_bps"):
        self.accountant.set_fees(management, performance, refund, {"from": self.manager})
        self.model.fees = (management, performance, refund)

    def rule_shutdown(self):
        if self.model.shutdown:
            with reverts("vault: already shut down"):
                self.vault.shutdown_vault({"from": self.manager})
            return
        self.vault.shutdown_vault({"from": self.manager})
        self.model.shutdown = True
        self.model.deposit_limit = 0

    # the strategies' knobs

    def rule_strategy_gain(self, st_strategy, st_knob):
        s = self.strategies[st_strategy]
        s.contract.simulate_gain(st_knob, {"from": self.manager})
        s.assets += st_knob

    def rule_strategy_loss(self, st_strategy, st_knob):
        s = self.strategies[st_strategy]
        if st_knob > s.assets:
            with reverts("erc20: burn amount exceeds balance"):
                s.contract.simulate_loss(st_knob, {"from": self.manager})
            return
        s.contract.simulate_loss(st_knob, {"from": self.manager})
        s.assets -= st_knob

    def rule_strategy_lock(self, st_strategy, st_knob):
        s = self.strategies[st_strategy]
        s.contract.set_locked(st_knob, {"from": self.manager})
        s.locked = st_knob

    # properties

    def invariant_accounting(self):
        m, vault = self.model, self.vault
        idle, debt = vault.total_idle(), vault.total_debt()
        assert (idle, debt) == (m.idle, m.debt), f"idle and debt: {(idle, debt)}, the model {(m.idle, m.debt)}"
        total = vault.totalAssets()
        assert total == idle + debt, f"totalAssets {total} is not idle + debt, {idle} + {debt}"
        assert sum(s.debt for s in self.strategies) == m.debt
        held = self.asset.balanceOf(vault)
        assert held == m.idle, f"the vault holds {held} assets, the model {m.idle} idle"  # nobody donates here
        for n, s in enumerate(self.strategies):
            _, last_report, debt, max_debt = vault.strategies(s.contract)
            assert (last_report, debt, max_debt) == (s.last_report, s.debt, s.max_debt), f"strategy {n} (last report, debt, max debt): {(last_report, debt, max_debt)}, the model {(s.last_report, s.debt, s.max_debt)}"
            assets, shares = self.asset.balanceOf(s.contract), s.contract.balanceOf(vault)
            assert (assets, shares) == (s.assets, s.supply), f"strategy {n} holds {assets} assets for the vault's {shares} shares, the model {(s.assets, s.supply)}"

    def invariant_shares(self):
        now, m, vault = self.chain.time(), self.model, self.vault
        supply = vault.totalSupply()
        assert supply == m.total_supply(now), f"totalSupply: {supply}, the model {m.total_supply(now)}"
        still_locked = vault.balanceOf(vault)
        assert still_locked == m.locked - m.unlocked(now), f"shares still locked: {still_locked}, the model {m.locked - m.unlocked(now)}"
        held = 0
        for holder, shares in m.shares.items():
            balance = vault.balanceOf(holder)
            assert balance == shares, f"shares of {holder}: {balance}, the model {shares}"
            held += shares
        assert held + still_locked == supply, f"the holders' {held} shares and the {still_locked} locked are not the total supply, {supply}"
        for actor in self.actors:
            wallet = self.asset.balanceOf(actor)
            assert wallet == self.wallets[actor], f"assets of {actor}: {wallet}, the model {self.wallets[actor]}"

    def invariant_price(self):
        price, expected = self.vault.pricePerShare(), self.model.to_assets(10**18, self.chain.time())
        assert price == expected, f"pricePerShare: {price}, the model {expected}"
        assert price >= self.price or self.price_may_drop, f"the price of a share fell from {self.price} to {price} with no loss or fee reported"
        self.price, self.price_may_drop = price, False

    def invariant_limits(self):
        now, m, vault = self.chain.time(), self.model, self.vault
        deposit, mint = vault.maxDeposit(self.actors[0]), vault.maxMint(self.actors[0])
        assert (deposit, mint) == (m.max_deposit(), m.max_mint(now)), f"maxDeposit and maxMint: {(deposit, mint)}, the model {(m.max_deposit(), m.max_mint(now))}"
        for actor in self.actors:
            withdraw, redeem = vault.maxWithdraw(actor), vault.maxRedeem(actor)
            expected = (m.max_withdraw(actor, now), m.max_redeem(actor, now))
            assert (withdraw, redeem) == expected, f"maxWithdraw and maxRedeem of {actor}: {(withdraw, redeem)}, the model {expected}"
