"""snekmate's ERC20 (with ownable and minters) against a model of balances, allowances and roles."""

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


class ERC20Machine:
    st_amount = strategy("uint256", max_value="1000 ether")
    st_owner = strategy("address")
    st_spender = strategy("address")
    st_receiver = strategy("address")
    st_status = strategy("bool")

    def __init__(cls, accounts, chain, ERC20Mock):
        cls.accounts, cls.chain = accounts, chain
        cls.token = ERC20Mock.deploy("Token", "TKN", "1000 ether", "Token", "1", {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = 1000 * 10**18
        self.allowances = {}
        self.owner = self.accounts[0]
        self.minters = {self.accounts[0]}
        self.nonces = {}

    def rule_transfer(self, st_owner, st_receiver, st_amount):
        if self.balances[st_owner] >= st_amount:
            tx = self.token.transfer(st_receiver, st_amount, {"from": st_owner})
            assert tx.events["Transfer"]["value"] == st_amount
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
        else:
            with reverts("erc20: transfer amount exceeds balance"):
                self.token.transfer(st_receiver, st_amount, {"from": st_owner})

    def rule_approve(self, st_owner, st_spender, st_amount):
        self.token.approve(st_spender, st_amount, {"from": st_owner})
        self.allowances[(st_owner, st_spender)] = st_amount

    def rule_transfer_from(self, st_spender, st_owner, st_receiver, st_amount):
        allowed = self.allowances.get((st_owner, st_spender), 0)
        if allowed < st_amount:
            with reverts("erc20: insufficient allowance"):
                self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
        elif self.balances[st_owner] < st_amount:
            with reverts("erc20: transfer amount exceeds balance"):
                self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
        else:
            self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
            if allowed != 2**256 - 1:  # an infinite allowance is never spent
                self.allowances[(st_owner, st_spender)] = allowed - st_amount

    def rule_mint(self, st_spender, st_receiver, st_amount):
        if st_spender in self.minters:
            self.token.mint(st_receiver, st_amount, {"from": st_spender})
            self.balances[st_receiver] += st_amount
        else:
            with reverts("erc20: access is denied"):
                self.token.mint(st_receiver, st_amount, {"from": st_spender})

    def rule_burn(self, st_owner, st_amount):
        if self.balances[st_owner] >= st_amount:
            self.token.burn(st_amount, {"from": st_owner})
            self.balances[st_owner] -= st_amount
        else:
            with reverts("erc20: burn amount exceeds balance"):
                self.token.burn(st_amount, {"from": st_owner})

    def rule_set_minter(self, st_spender, st_owner, st_status):
        if st_spender != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.token.set_minter(st_owner, st_status, {"from": st_spender})
        elif st_owner == self.owner:
            with reverts("erc20: minter is owner address"):
                self.token.set_minter(st_owner, st_status, {"from": st_spender})
        else:
            self.token.set_minter(st_owner, st_status, {"from": st_spender})
            (self.minters.add if st_status else self.minters.discard)(st_owner)

    def rule_transfer_ownership(self, st_spender, st_owner):
        if st_spender != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.token.transfer_ownership(st_owner, {"from": st_spender})
        else:
            self.token.transfer_ownership(st_owner, {"from": st_spender})
            self.minters.discard(self.owner)
            self.owner = st_owner
            self.minters.add(st_owner)

    def rule_permit(self, st_owner, st_spender, st_receiver, st_amount, st_status):
        """st_receiver signs for st_owner: a valid permit only when they are the same account."""
        expired = st_status
        deadline = self.chain.time() + (-1 if expired else 3600)
        message = {"owner": st_owner, "spender": st_spender, "value": st_amount, "nonce": self.nonces.get(st_owner, 0), "deadline": deadline}
        domain = {"name": "Token", "version": "1", "chainId": self.chain.id, "verifyingContract": self.token}
        signed = st_receiver.sign_typed_data(domain, PERMIT_TYPES, message)
        args = (st_owner, st_spender, st_amount, deadline, signed.v, signed.r, signed.s)
        if expired:
            with reverts("erc20: expired deadline"):
                self.token.permit(*args, {"from": st_spender})
        elif st_receiver != st_owner:
            with reverts("erc20: invalid signature"):
                self.token.permit(*args, {"from": st_spender})
        else:
            self.token.permit(*args, {"from": st_spender})
            self.allowances[(st_owner, st_spender)] = st_amount
            self.nonces[st_owner] = self.nonces.get(st_owner, 0) + 1

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.token.balanceOf(account) == balance

    def invariant_total_supply(self):
        assert self.token.totalSupply() == sum(self.balances.values())

    def invariant_roles(self):
        assert self.token.owner() == self.owner
        for account in self.accounts:
            assert self.token.is_minter(account) == (account in self.minters)

    def invariant_nonces(self):
        for account in self.accounts:
            assert self.token.nonces(account) == self.nonces.get(account, 0)

    def invariant_allowances(self):
        for (owner, spender), amount in self.allowances.items():
            assert self.token.allowance(owner, spender) == amount
