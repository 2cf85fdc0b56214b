"""snekmate's ERC1155 against a model of balances per (owner, id), single and batch operations."""

from hypothesis import strategies as st

from evmstate import reverts, strategy

IDS = 4


class ERC1155Machine:
    st_caller = strategy("address")
    st_owner = strategy("address")
    st_receiver = strategy("address")
    st_id = strategy("uint256", max_value=IDS - 1)
    st_amount = strategy("uint256", max_value=10**20)
    st_batch = st.lists(st.tuples(st.integers(0, IDS - 1), st.integers(0, 10**20)), max_size=4)
    st_approved = strategy("bool")

    def __init__(cls, accounts, ERC1155Mock):
        cls.accounts = accounts
        cls.token = ERC1155Mock.deploy("https://x.test/", {"from": accounts[0]})

    def setup(self):
        self.balances = {}
        self.operators = set()

    def balance(self, owner, id):
        return self.balances.get((owner, id), 0)

    def add(self, owner, id, delta):
        self.balances[(owner, id)] = self.balance(owner, id) + delta

    def may_move(self, caller, owner):
        return caller == owner or (owner, caller) in self.operators

    def rule_mint(self, st_caller, st_receiver, st_id, st_amount):
        if st_caller != self.accounts[0]:
            with reverts("erc1155: access is denied"):
                self.token.safe_mint(st_receiver, st_id, st_amount, b"", {"from": st_caller})
            return
        tx = self.token.safe_mint(st_receiver, st_id, st_amount, b"", {"from": st_caller})
        assert tx.events["TransferSingle"]["_value"] == st_amount
        self.add(st_receiver, st_id, st_amount)

    def rule_mint_batch(self, st_receiver, st_batch):
        ids, amounts = [i for i, _ in st_batch], [a for _, a in st_batch]
        self.token.safe_mint_batch(st_receiver, ids, amounts, b"", {"from": self.accounts[0]})
        for id, amount in st_batch:
            self.add(st_receiver, id, amount)

    def rule_transfer(self, st_caller, st_owner, st_receiver, st_id, st_amount):
        if not self.may_move(st_caller, st_owner):
            with reverts("erc1155: caller is not token owner or approved"):
                self.token.safeTransferFrom(st_owner, st_receiver, st_id, st_amount, b"", {"from": st_caller})
        elif self.balance(st_owner, st_id) < st_amount:
            with reverts("erc1155: insufficient balance for transfer"):
                self.token.safeTransferFrom(st_owner, st_receiver, st_id, st_amount, b"", {"from": st_caller})
        else:
            self.token.safeTransferFrom(st_owner, st_receiver, st_id, st_amount, b"", {"from": st_caller})
            self.add(st_owner, st_id, -st_amount)
            self.add(st_receiver, st_id, st_amount)

    def rule_transfer_batch(self, st_owner, st_receiver, st_batch):
        ids, amounts = [i for i, _ in st_batch], [a for _, a in st_batch]
        after = dict(self.balances)
        ok = True
        for id, amount in st_batch:
            have = after.get((st_owner, id), 0)
            if have < amount:
                ok = False
                break
            after[(st_owner, id)] = have - amount
            after[(st_receiver, id)] = after.get((st_receiver, id), 0) + amount
        if ok:
            self.token.safeBatchTransferFrom(st_owner, st_receiver, ids, amounts, b"", {"from": st_owner})
            self.balances = after
        else:
            with reverts("erc1155: insufficient balance for transfer"):
                self.token.safeBatchTransferFrom(st_owner, st_receiver, ids, amounts, b"", {"from": st_owner})

    def rule_burn(self, st_owner, st_id, st_amount):
        supply = sum(v for (_, i), v in self.balances.items() if i == st_id)
        if supply < st_amount:  # the supply is checked before the balance
            with reverts("erc1155: burn amount exceeds total_supply"):
                self.token.burn(st_owner, st_id, st_amount, {"from": st_owner})
        elif self.balance(st_owner, st_id) < st_amount:
            with reverts("erc1155: burn amount exceeds balance"):
                self.token.burn(st_owner, st_id, st_amount, {"from": st_owner})
        else:
            self.token.burn(st_owner, st_id, st_amount, {"from": st_owner})
            self.add(st_owner, st_id, -st_amount)

    def rule_set_operator(self, st_caller, st_owner, st_approved):
        if st_caller == st_owner:
            with reverts("erc1155: setting approval status for self"):
                self.token.setApprovalForAll(st_owner, st_approved, {"from": st_caller})
            return
        self.token.setApprovalForAll(st_owner, st_approved, {"from": st_caller})
        (self.operators.add if st_approved else self.operators.discard)((st_caller, st_owner))

    def invariant_balances(self):
        owners = [a for a in self.accounts for _ in range(IDS)]
        ids = [i for _ in self.accounts for i in range(IDS)]
        expected = [self.balance(o, i) for o, i in zip(owners, ids)]
        assert self.token.balanceOfBatch(owners, ids) == expected

    def invariant_supply(self):
        for id in range(IDS):
            assert self.token.total_supply(id) == sum(v for (_, i), v in self.balances.items() if i == id)
