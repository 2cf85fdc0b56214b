"""Yearn V3's VaultV3.vy (contracts/VaultV3.vy, unmodified) against a model written from its TECH_SPEC.md and docstrings.

Four depositors, two ERC-4626 strategies with gain and loss knobs, an accountant (management,
performance and refund ratios), and a factory that initialized the vault and takes a protocol
cut of the fees; the manager (the last account) holds every role. The model (Python, below) keeps
what the vault should hold: idle assets and each strategy's debt, every holder's shares, the
shares the vault holds while profit unlocks and the rate they unlock at, and what each strategy
holds. Each rule predicts its call from the model (the exact result, or the exact revert; a
revert without a reason where the vault's checked arithmetic overflows), checks the previews
against the action, and moves the model; the invariants compare the vault's views with the model
after every step, and check the spec's identities: total assets = total idle + total debt, the
strategies' debts add up to the total debt, the holders' shares and those locked add up to the
total supply, the vault holds at least its idle assets (a strategy may pay more than asked: the rest is not
idle until a report of the vault itself), the price of a share drops only when a loss or fees
are reported or a redeem realises a loss, and the max* views say what the vault will do. (They
revert where a strategy's unrealised loss, rounded up twice in _assess_share_of_unrealised_losses,
exceeds the amount it is a share of: 1 asset needed of a strategy owed 2 and worth 1 is a loss of
2; the model says so, and redeem reverts there too. Yearn fixed it after 3.0.4, in 3.1.0:
yearn/yearn-vaults-v3 pull request 235, "the assessed loss cannot round above the requested
strategy withdrawal amount".) Amounts
are full-width uint256 (a depositor holds 10**30 of the asset); a strategy's gain and loss knobs
are at most 10**30 too, as a strategy's yield is bounded by what it holds. Time passes between
steps by itself ([fuzz] max_time_delay), which unlocks profit and accrues the management fee.
"""

import copy

from evmstate import reverts, strategy

MAX = 2**256 - 1
MAX_BPS = 10_000
MAX_BPS_EXTENDED = 10**12
YEAR = 31_556_952
WALLET = 10**30  # each depositor's assets at the start
RESERVE = 10**20  # the accountant's assets, for refunds
UNLOCK_TIME = 7 * 86400
FEES = (0, 1000, 0)  # management (bps a year of the debt), performance (bps of a gain), refunds (bps of a loss)
PROTOCOL_FEE_BPS = 1000  # the factory's cut of the fees
ALL_ROLES = 2**14 - 1  # the fourteen roles of VaultV3's Roles enum


class Refused(Exception):
    """The model's word that the call reverts, and why (None: checked arithmetic, no reason)."""


def checked(value):
    """A uint256 result of VaultV3's checked arithmetic: out of range reverts."""
    if not 0 <= value <= MAX:
        raise Refused(None)
    return value


def mul_div(x, y, denominator, roundup=False):
    q, r = divmod(checked(x * y), denominator)
    return q + 1 if roundup and r else q


class StrategyModel:
    """One strategy (contracts/Strategy.vy: shares at (assets + 1) / (supply + 1)) and the vault's record of it."""

    def __init__(self, contract, activation):
        self.contract = contract
        self.assets = 0  # the asset it holds
        self.supply = 0  # its shares, all the vault's
        self.debt = 0
        self.max_debt = MAX
        self.last_report = activation

    def to_assets(self, shares):
        return mul_div(shares, self.assets + 1, self.supply + 1)

    def position(self):
        """What the vault's shares are worth (convertToAssets(maxRedeem(vault)) too: nothing is locked)."""
        return self.to_assets(self.supply)

    def deposit(self, assets):
        self.supply += mul_div(assets, self.supply + 1, self.assets + 1)
        self.assets += assets

    def withdraw(self, assets):
        """_withdraw_from_strategy: redeem previewWithdraw(assets) shares (at most the vault's); what came back."""
        shares = min(mul_div(assets, self.supply + 1, self.assets + 1, roundup=True), self.supply)
        out = self.to_assets(shares)
        self.supply -= shares
        self.assets -= out
        return out

    def unrealised_loss(self, debt, needed):
        """_assess_share_of_unrealised_losses: the part of needed the strategy's loss since its report takes, rounded up (and
        then 1 more where the division is inexact: it can exceed needed, and the vault's next subtraction then underflows)."""
        worth = self.position()
        if worth >= debt or debt == 0:
            return 0
        return needed - mul_div(needed, worth, debt) + (1 if needed * worth % debt else 0)


class VaultModel:
    """What the vault should hold, and what each of its functions should do."""

    def __init__(self, strategies, actors, holders):
        self.strategies = strategies
        self.wallets = {a: WALLET for a in actors}
        self.idle = 0
        self.debt = 0
        self.held = 0  # the asset the vault holds: its idle, and what a strategy paid beyond what was asked
        self.shares = {h: 0 for h in holders}  # shares of every holder but the vault
        self.supply = 0  # total_supply: the vault's own shares included
        self.locked = 0  # balance_of[vault]: profit still locked, or unlocked and not yet burnt
        self.rate = 0
        self.unlock_date = 0
        self.last_update = 0
        self.unlock_time = UNLOCK_TIME
        self.minimum_idle = 0
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

    def to_assets(self, shares, now, roundup=False):
        supply = self.total_supply(now)
        if shares in (0, MAX) or supply == 0:
            return shares
        return mul_div(shares, self.total_assets(), supply, roundup)

    def to_shares(self, assets, now, roundup=False):
        supply = self.total_supply(now)
        if assets in (0, MAX) or supply == 0:
            return assets
        if self.total_assets() == 0:
            return 0
        return mul_div(assets, supply, self.total_assets(), roundup)

    def max_withdraw(self, owner, now, max_loss):
        """_max_withdraw: a simulation of the withdrawal over the queue."""
        max_assets = self.to_assets(self.shares[owner], now)
        if max_assets <= self.idle:
            return max_assets
        have, loss = self.idle, 0
        for s in self.strategies:
            to_withdraw = min(max_assets - have, s.debt)
            unrealised = s.unrealised_loss(s.debt, to_withdraw)
            limit = s.position()
            realizable = checked(to_withdraw - unrealised)
            if limit < realizable:
                if unrealised:
                    unrealised = unrealised * limit // realizable
                to_withdraw = limit + unrealised
            if to_withdraw == 0:
                continue
            if unrealised and max_loss < MAX_BPS and loss + unrealised > (have + to_withdraw) * max_loss // MAX_BPS:
                break
            have += to_withdraw
            if have >= max_assets:
                break
            loss += unrealised
        return have

    def max_redeem(self, owner, now):
        return min(self.to_shares(self.max_withdraw(owner, now, MAX_BPS), now), self.shares[owner])

    # actions: each runs on a copy of the model (see VaultMachine.act) and raises Refused as the vault reverts

    def deposit(self, sender, receiver, assets, shares):
        if assets > MAX:
            raise Refused(None)
        if assets == 0:
            raise Refused("cannot deposit zero")
        if shares == 0:
            raise Refused("cannot mint zero")
        if assets > self.wallets[sender]:
            raise Refused("asset: insufficient balance")
        self.wallets[sender] -= assets
        self.idle += assets
        self.held += assets
        self.shares[receiver] += shares
        self.supply = checked(self.supply + shares)

    def redeem(self, receiver, owner, assets, shares, max_loss):
        """_redeem: the assets the receiver gets."""
        if shares == 0:
            raise Refused("no shares to redeem")
        if assets == 0:
            raise Refused("no assets to withdraw")
        if self.shares[owner] < shares:
            raise Refused("insufficient shares to redeem")
        requested, idle = assets, self.idle
        if requested > idle:
            total_debt, needed = self.debt, requested - idle
            for s in self.strategies:
                current = s.debt
                to_withdraw = min(needed, current)
                limit = s.position()
                unrealised = s.unrealised_loss(current, to_withdraw)
                if unrealised:
                    if limit < checked(to_withdraw - unrealised):
                        unrealised = unrealised * limit // (to_withdraw - unrealised)
                        to_withdraw = limit + unrealised
                    to_withdraw -= unrealised
                    requested -= unrealised
                    needed -= unrealised
                    total_debt -= unrealised
                    if limit == 0:
                        s.debt = current - unrealised
                to_withdraw = min(to_withdraw, limit)
                if to_withdraw == 0:
                    continue
                withdrawn = s.withdraw(to_withdraw)
                self.held += withdrawn
                loss = 0
                if withdrawn > to_withdraw:
                    to_withdraw = current if withdrawn > current else withdrawn
                elif withdrawn < to_withdraw:
                    loss = to_withdraw - withdrawn
                idle += to_withdraw - loss
                requested -= loss
                total_debt = checked(total_debt - to_withdraw)
                s.debt = checked(current - (to_withdraw + unrealised))
                if requested <= idle:
                    break
                needed = checked(needed - to_withdraw)
            if idle < requested:
                raise Refused("insufficient assets in vault")
            self.debt = total_debt
        if assets > requested and max_loss < MAX_BPS and assets - requested > assets * max_loss // MAX_BPS:
            raise Refused("too much loss")
        self.shares[owner] -= shares
        self.supply -= shares
        self.idle = idle - requested
        self.held -= requested
        self.wallets[receiver] += requested
        return requested

    def update_debt(self, s, target):
        """_update_debt with max_loss MAX_BPS: the strategy's new debt."""
        current = s.debt
        if target == current:
            raise Refused("new debt equals current debt")
        if current > target:
            to_withdraw = current - target
            if self.idle + to_withdraw < self.minimum_idle:
                to_withdraw = min(self.minimum_idle - self.idle, current)
            to_withdraw = min(to_withdraw, s.position())
            if to_withdraw == 0:
                return current
            if s.unrealised_loss(current, to_withdraw):
                raise Refused("strategy has unrealised losses")
            out = s.withdraw(to_withdraw)
            self.held += out
            withdrawn = min(out, current)
            to_withdraw = max(to_withdraw, withdrawn)
            self.idle += withdrawn
            self.debt -= to_withdraw
            s.debt = current - to_withdraw
        else:
            new = min(target, s.max_debt)
            if new < current:
                return current
            if self.idle <= self.minimum_idle:
                return current
            to_deposit = min(new - current, self.idle - self.minimum_idle)
            if to_deposit:
                s.deposit(to_deposit)
                self.held -= to_deposit
                self.idle -= to_deposit
                self.debt += to_deposit
            s.debt = current + to_deposit
        return s.debt

    def process_report(self, s, now, accountant, protocol):
        """_process_report: (gain, loss, fees); realise the gain or loss, charge the fees, lock the profit."""
        worth, current = s.position(), s.debt
        gain, loss = max(worth - current, 0), max(current - worth, 0)
        management, performance, refund = self.fees
        fees = current * (now - s.last_report) * management // MAX_BPS // YEAR + gain * performance // MAX_BPS
        refunds = min(loss * refund // MAX_BPS, self.reserve)
        to_burn = fee_shares = protocol_shares = to_lock = 0
        if loss + fees:
            to_burn = self.to_shares(loss + fees, now, roundup=True)
            if fees:
                fee_shares = to_burn * fees // (loss + fees)
                protocol_shares = fee_shares * PROTOCOL_FEE_BPS // MAX_BPS
        if gain + refunds and self.unlock_time:
            to_lock = self.to_shares(gain + refunds, now)
        ending = checked(checked(self.supply + to_lock - to_burn) - self.unlocked(now))
        if ending > self.supply:
            self.locked += ending - self.supply
            self.supply = ending
        elif self.supply > ending:
            burnt = min(self.supply - ending, self.locked)
            self.locked -= burnt
            self.supply -= burnt
        to_lock = to_lock - to_burn if to_lock > to_burn else 0
        self.reserve -= refunds
        self.idle += refunds
        self.held += refunds
        if gain:
            s.debt = current + gain
            self.debt += gain
        elif loss:
            s.debt = current - loss
            self.debt -= loss
        if fee_shares:
            self.shares[accountant] += fee_shares - protocol_shares
            self.shares[protocol] += protocol_shares
            self.supply = checked(self.supply + fee_shares)
        if self.locked:
            before = checked(self.locked - to_lock) * (self.unlock_date - now) if self.unlock_date > now else 0
            period = (before + to_lock * self.unlock_time) // self.locked
            if period == 0:
                raise Refused(None)  # the unlocking rate divides by it
            self.rate = self.locked * MAX_BPS_EXTENDED // period
            self.unlock_date = now + period
            self.last_update = now
        else:
            self.unlock_date = 0
        s.last_report = now
        return gain, loss, fees

    def set_unlock_time(self, seconds):
        if seconds > YEAR:
            raise Refused("profit unlock time too long")
        if seconds == 0:
            self.supply -= self.locked
            self.locked = self.rate = self.unlock_date = 0
        self.unlock_time = seconds


class YearnVaultMachine:
    st_actor = strategy("address", length=4)
    st_receiver = strategy("address", length=4)
    st_assets = strategy("uint256")
    st_shares = strategy("uint256")
    st_debt = strategy("uint256")
    st_knob = strategy("uint256", max_value=WALLET)
    st_strategy = strategy("uint8", max_value=1)
    st_bps = strategy("uint256", max_value=MAX_BPS)
    st_seconds = strategy("uint256", max_value=2 * YEAR)

    def __init__(cls, accounts, chain, Asset, VaultV3, Strategy, Accountant, Factory):
        cls.chain = chain
        cls.actors = list(accounts[:4])
        cls.protocol = accounts[-2]  # the factory's fee recipient
        cls.manager = manager = accounts[-1]
        sender = {"from": manager}
        cls.asset = Asset.deploy("Asset", "AST", sender)
        factory = Factory.deploy(PROTOCOL_FEE_BPS, cls.protocol, sender)
        deployed = factory.deploy_new_vault(VaultV3.deploy(sender), cls.asset, manager, UNLOCK_TIME, sender)
        cls.vault = VaultV3.at(deployed.return_value)
        cls.vault.set_role(manager, ALL_ROLES, sender)
        cls.strategy_contracts = [Strategy.deploy(cls.asset, sender) for _ in "AB"]
        cls.accountant = Accountant.deploy(cls.asset, cls.vault, sender)
        cls.accountant.set_fees(*FEES, sender)
        cls.vault.set_accountant(cls.accountant, sender)
        cls.vault.set_deposit_limit(MAX, sender)
        for contract in cls.strategy_contracts:
            cls.vault.add_strategy(contract, sender)
            cls.vault.update_max_debt_for_strategy(contract, MAX, sender)
        cls.activation = chain.time()
        cls.asset.mint(cls.accountant, RESERVE, sender)
        for actor in cls.actors:
            cls.asset.mint(actor, WALLET, sender)
            cls.asset.approve(cls.vault, MAX, {"from": actor})

    def setup(self):
        self.strategies = [StrategyModel(c, self.activation) for c in self.strategy_contracts]
        holders = [*self.actors, self.accountant.address, self.protocol]
        self.model = VaultModel(self.strategies, self.actors, holders)
        self.price = self.vault.pricePerShare()
        self.price_may_drop = False

    def act(self, change, call):
        """change(model) on a copy of the model, then the call: it must revert as the change was refused (and the model
        stays), or succeed (and the copy becomes the model). The change's result."""
        model = copy.deepcopy(self.model)
        try:
            result = change(model)
        except Refused as refused:
            with reverts(refused.args[0]):
                call()
            return None, None
        tx = call()
        self.model, self.strategies = model, model.strategies
        return result, tx

    def view(self, model, call, name):
        """A view of the vault that the model predicts: its value, or None where it reverts as the model says."""
        try:
            expected = model()
        except Refused:
            with reverts():
                call()
            return None
        value = call()
        assert value == expected, f"{name}: {value}, the model {expected}"
        return value

    # depositors

    def rule_deposit(self, st_actor, st_receiver, st_assets):
        now, m = self.chain.time(), self.model
        amount = m.wallets[st_actor] if st_assets == MAX else st_assets
        try:
            shares = m.to_shares(amount, now)
        except Refused:
            shares = None
        else:
            preview = self.vault.previewDeposit(amount)
            assert preview == shares, f"previewDeposit: {preview} shares, the model {shares}"
        _, tx = self.act(lambda m: m.deposit(st_actor, st_receiver, amount, m.to_shares(amount, now)),
                         lambda: self.vault.deposit(st_assets, st_receiver, {"from": st_actor}))
        if tx is not None:
            assert tx.return_value == shares, f"deposit returned {tx.return_value} shares, the model {shares}"

    def rule_mint(self, st_actor, st_receiver, st_shares):
        now, m = self.chain.time(), self.model
        try:
            assets = m.to_assets(st_shares, now, roundup=True)
        except Refused:
            assets = None
        else:
            preview = self.vault.previewMint(st_shares)
            assert preview == assets, f"previewMint: {preview} assets, the model {assets}"
        _, tx = self.act(lambda m: m.deposit(st_actor, st_receiver, m.to_assets(st_shares, now, roundup=True), st_shares),
                         lambda: self.vault.mint(st_shares, st_receiver, {"from": st_actor}))
        if tx is not None:
            assert tx.return_value == assets, f"mint returned {tx.return_value} assets, the model {assets}"

    def rule_withdraw(self, st_actor, st_receiver, st_assets):
        self._withdraw(st_actor, st_receiver, st_assets)

    def rule_withdraw_max(self, st_actor, st_receiver):
        maximum = self.view(lambda: self.model.max_withdraw(st_actor, self.chain.time(), 0), lambda: self.vault.maxWithdraw(st_actor), "maxWithdraw")
        if maximum is not None:
            self._withdraw(st_actor, st_receiver, maximum)

    def _withdraw(self, owner, receiver, assets):
        now = self.chain.time()
        try:
            shares = self.model.to_shares(assets, now, roundup=True)
        except Refused:
            shares = None
        else:
            preview = self.vault.previewWithdraw(assets)
            assert preview == shares, f"previewWithdraw: {preview} shares, the model {shares}"
        received, tx = self.act(lambda m: m.redeem(receiver, owner, assets, m.to_shares(assets, now, roundup=True), 0),
                                lambda: self.vault.withdraw(assets, receiver, owner, {"from": owner}))
        if tx is not None:
            assert received == assets, f"withdraw of {assets} sent {received}"
            assert tx.return_value == shares, f"withdraw returned {tx.return_value} shares, the model {shares}"

    def rule_redeem(self, st_actor, st_receiver, st_shares):
        self._redeem(st_actor, st_receiver, st_shares)

    def rule_redeem_max(self, st_actor, st_receiver):
        maximum = self.view(lambda: self.model.max_redeem(st_actor, self.chain.time()), lambda: self.vault.maxRedeem(st_actor), "maxRedeem")
        if maximum is not None:
            self._redeem(st_actor, st_receiver, maximum)

    def _redeem(self, owner, receiver, shares):
        now = self.chain.time()
        try:
            assets = self.model.to_assets(shares, now)
        except Refused:
            assets = None
        else:
            preview = self.vault.previewRedeem(shares)
            assert preview == assets, f"previewRedeem: {preview} assets, the model {assets}"
        received, tx = self.act(lambda m: m.redeem(receiver, owner, m.to_assets(shares, now), shares, MAX_BPS),
                                lambda: self.vault.redeem(shares, receiver, owner, {"from": owner}))
        if tx is not None:
            # previewRedeem leaves out the strategies' unrealised losses; the owner bears their share
            assert tx.return_value == received <= assets, f"redeem returned {tx.return_value} assets, the model {received} (previewRedeem {assets})"
            self.price_may_drop |= received < assets

    def rule_transfer(self, st_actor, st_receiver, st_shares):
        def move(m):
            if m.shares[st_actor] < st_shares:
                raise Refused("insufficient funds")
            m.shares[st_actor] -= st_shares
            m.shares[st_receiver] += st_shares

        self.act(move, lambda: self.vault.transfer(st_receiver, st_shares, {"from": st_actor}))

    # the manager

    def rule_update_debt(self, st_strategy, st_debt):
        new_debt, tx = self.act(lambda m: m.update_debt(m.strategies[st_strategy], st_debt),
                                lambda: self.vault.update_debt(self.strategy_contracts[st_strategy], st_debt, {"from": self.manager}))
        if tx is not None:
            assert tx.return_value == new_debt, f"update_debt returned {tx.return_value}, the model {new_debt}"

    def rule_process_report(self, st_strategy):
        now = self.chain.time()
        report, tx = self.act(lambda m: m.process_report(m.strategies[st_strategy], now, self.accountant.address, self.protocol),
                              lambda: self.vault.process_report(self.strategy_contracts[st_strategy], {"from": self.manager}))
        if tx is not None:
            gain, loss, fees = report
            assert tx.return_value == (gain, loss), f"process_report returned {tx.return_value}, the model {(gain, loss)}"
            self.price_may_drop |= bool(loss or fees)

    def rule_set_minimum_idle(self, st_assets):
        self.vault.set_minimum_total_idle(st_assets, {"from": self.manager})
        self.model.minimum_idle = st_assets

    def rule_set_profit_max_unlock_time(self, st_seconds):
        self.act(lambda m: m.set_unlock_time(st_seconds), lambda: self.vault.setProfitMaxUnlockTime(st_seconds, {"from": self.manager}))

    def rule_set_fees(self, management="st_bps", performance="st_bps", refund="st_bps"):
        self.accountant.set_fees(management, performance, refund, {"from": self.manager})
        self.model.fees = (management, performance, refund)

    # the strategies' knobs

    def rule_strategy_gain(self, st_strategy, st_knob):
        self.strategy_contracts[st_strategy].simulate_gain(st_knob, {"from": self.manager})
        self.strategies[st_strategy].assets += st_knob

    def rule_strategy_loss(self, st_strategy, st_knob):
        s = self.strategies[st_strategy]
        if st_knob > s.assets:
            with reverts("asset: insufficient balance"):
                s.contract.simulate_loss(st_knob, {"from": self.manager})
            return
        s.contract.simulate_loss(st_knob, {"from": self.manager})
        s.assets -= st_knob

    # properties

    def invariant_accounting(self):
        m, vault = self.model, self.vault
        idle, debt = vault.totalIdle(), vault.totalDebt()
        assert (idle, debt) == (m.idle, m.debt), f"idle and debt: {(idle, debt)}, the model {(m.idle, m.debt)}"
        total = vault.totalAssets()
        assert total == idle + debt, f"totalAssets {total} is not total idle + total debt, {idle} + {debt}"
        debts = [vault.strategies(s.contract).current_debt for s in self.strategies]
        assert sum(debts) == debt, f"the strategies' debts {debts} do not add up to the total debt, {debt}"
        held = self.asset.balanceOf(vault)
        assert held == m.held >= idle, f"the vault holds {held} assets, the model {m.held}, its total idle {idle}"
        for n, s in enumerate(self.strategies):
            _, last_report, current, max_debt = vault.strategies(s.contract)
            assert (last_report, current, max_debt) == (s.last_report, s.debt, s.max_debt), f"strategy {n} (last report, debt, max debt): {(last_report, current, max_debt)}, the model {(s.last_report, s.debt, s.max_debt)}"
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
            assert wallet == m.wallets[actor], f"assets of {actor}: {wallet}, the model {m.wallets[actor]}"

    def invariant_price(self):
        price, expected = self.vault.pricePerShare(), self.model.to_assets(10**18, self.chain.time())
        assert price == expected, f"pricePerShare: {price}, the model {expected}"
        assert price >= self.price or self.price_may_drop, f"the price of a share fell from {self.price} to {price} with no loss or fee reported"
        self.price, self.price_may_drop = price, False

    def invariant_limits(self):
        now, m, vault = self.chain.time(), self.model, self.vault
        deposit, mint = vault.maxDeposit(self.actors[0]), vault.maxMint(self.actors[0])
        assert (deposit, mint) == (MAX, MAX), f"maxDeposit and maxMint: {(deposit, mint)}, with no deposit limit"
        for actor in self.actors:
            self.view(lambda: m.max_withdraw(actor, now, 0), lambda: vault.maxWithdraw(actor), f"maxWithdraw of {actor}")
            self.view(lambda: m.max_redeem(actor, now), lambda: vault.maxRedeem(actor), f"maxRedeem of {actor}")
