"""snekmate's ERC20 (with ownable and minters) against a model of balances, allowances, roles and nonces."""

from evmstate import reverts, strategy

PERMIT_TYPES = {
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ]
}
MAX = 2**256 - 1


class TokenMachine:
    amount = strategy("uint256", max_value="1000 ether")
    sender = strategy("address")
    owner = strategy("address")
    receiver = strategy("address")
    flag = strategy("bool")

    def __init__(cls, accounts, chain, ERC20Mock):
        cls.accounts, cls.chain = accounts, chain
        cls.token = ERC20Mock.deploy("Token", "TKN", "1000 ether", "Token", "1", {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = 1000 * 10**18
        self.allowances = {}
        self.admin = self.accounts[0]
        self.minters = {self.accounts[0]}
        self.nonces = {}

    def rule_transfer(self, owner, receiver, amount):
        if self.balances[owner] >= amount:
            tx = self.token.transfer(receiver, amount, {"from": owner})
            event = tx.events["Transfer"]
            assert (event["sender"], event["receiver"], event["value"]) == (owner, receiver, amount)
            self.balances[owner] -= amount
            self.balances[receiver] += amount
        else:
            with reverts("erc20: transfer amount exceeds balance"):
                self.token.transfer(receiver, amount, {"from": owner})

    def rule_approve(self, owner, sender, amount):
        tx = self.token.approve(sender, amount, {"from": owner})
        event = tx.events["Approval"]
        assert (event["owner"], event["spender"], event["value"]) == (owner, sender, amount)
        self.allowances[(owner, sender)] = amount

    def rule_transfer_from(self, sender, owner, receiver, amount):
        allowed = self.allowances.get((owner, sender), 0)
        if allowed < amount:
            with reverts("erc20: insufficient allowance"):
                self.token.transferFrom(owner, receiver, amount, {"from": sender})
        elif self.balances[owner] < amount:
            with reverts("erc20: transfer amount exceeds balance"):
                self.token.transferFrom(owner, receiver, amount, {"from": sender})
        else:
            self.token.transferFrom(owner, receiver, amount, {"from": sender})
            self.balances[owner] -= amount
            self.balances[receiver] += amount
            if allowed != MAX:  # an infinite allowance is never spent
                self.allowances[(owner, sender)] = allowed - amount

    def rule_mint(self, sender, receiver, amount):
        if sender in self.minters:
            self.token.mint(receiver, amount, {"from": sender})
            self.balances[receiver] += amount
        else:
            with reverts("erc20: access is denied"):
                self.token.mint(receiver, amount, {"from": sender})

    def rule_burn(self, owner, amount):
        if self.balances[owner] >= amount:
            self.token.burn(amount, {"from": owner})
            self.balances[owner] -= amount
        else:
            with reverts("erc20: burn amount exceeds balance"):
                self.token.burn(amount, {"from": owner})

    def rule_burn_from(self, sender, owner, amount):
        allowed = self.allowances.get((owner, sender), 0)
        if allowed < amount:
            with reverts("erc20: insufficient allowance"):
                self.token.burn_from(owner, amount, {"from": sender})
        elif self.balances[owner] < amount:
            with reverts("erc20: burn amount exceeds balance"):
                self.token.burn_from(owner, amount, {"from": sender})
        else:
            self.token.burn_from(owner, amount, {"from": sender})
            self.balances[owner] -= amount
            if allowed != MAX:
                self.allowances[(owner, sender)] = allowed - amount

    def rule_set_minter(self, sender, owner, flag):
        if sender != self.admin:
            with reverts("ownable: caller is not the owner"):
                self.token.set_minter(owner, flag, {"from": sender})
        elif owner == self.admin:
            with reverts("erc20: minter is owner address"):
                self.token.set_minter(owner, flag, {"from": sender})
        else:
            self.token.set_minter(owner, flag, {"from": sender})
            (self.minters.add if flag else self.minters.discard)(owner)

    def rule_transfer_ownership(self, sender, owner):
        if sender != self.admin:
            with reverts("ownable: caller is not the owner"):
                self.token.transfer_ownership(owner, {"from": sender})
        else:
            self.token.transfer_ownership(owner, {"from": sender})
            self.minters.discard(self.admin)
            self.admin = owner
            self.minters.add(owner)

    def rule_permit(self, owner, sender, receiver, amount, flag):
        """receiver signs for owner: a valid permit only when they are the same account, and not expired."""
        deadline = self.chain.time() + (-1 if flag else 3600)
        message = {"owner": owner, "spender": sender, "value": amount, "nonce": self.nonces.get(owner, 0), "deadline": deadline}
        domain = {"name": "Token", "version": "1", "chainId": self.chain.id, "verifyingContract": self.token}
        signed = receiver.sign_typed_data(domain, PERMIT_TYPES, message)
        args = (owner, sender, amount, deadline, signed.v, signed.r, signed.s)
        if flag:
            with reverts("erc20: expired deadline"):
                self.token.permit(*args, {"from": sender})
        elif receiver != owner:
            with reverts("erc20: invalid signature"):
                self.token.permit(*args, {"from": sender})
        else:
            self.token.permit(*args, {"from": sender})
            self.allowances[(owner, sender)] = amount
            self.nonces[owner] = self.nonces.get(owner, 0) + 1

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.token.balanceOf(account) == balance

    def invariant_total_supply(self):
        assert self.token.totalSupply() == sum(self.balances.values())

    def invariant_roles(self):
        assert self.token.owner() == self.admin
        for account in self.accounts:
            assert self.token.is_minter(account) == (account in self.minters)

    def invariant_nonces(self):
        for account in self.accounts:
            assert self.token.nonces(account) == self.nonces.get(account, 0)

    def invariant_allowances(self):
        for (owner, sender), amount in self.allowances.items():
            assert self.token.allowance(owner, sender) == amount

    def invariant_metadata(self):
        assert (self.token.name(), self.token.symbol(), self.token.decimals()) == ("Token", "TKN", 18)
