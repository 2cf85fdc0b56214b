"""snekmate's ERC721 (enumerable, with minters) against a model of owners and approvals."""

from evmstate import Bundle, StateMachine, invariant, multiple, reverts, rule, strategy

ZERO = "0x" + "00" * 20
accounts_ = strategy("address")


class ERC721Machine(StateMachine):
    tokens = Bundle("tokens")

    def __init__(cls, accounts, ERC721Mock):
        cls.accounts = accounts
        cls.nft = ERC721Mock.deploy("Token", "TKN", "https://x.test/", "Token", "1", {"from": accounts[0]})

    def setup(self):
        self.owners = {}  # token id -> account
        self.approved = {}  # token id -> account
        self.operators = set()  # (owner, operator)
        self.next_id = 0

    def may_manage(self, caller, token):
        owner = self.owners[token]
        return caller == owner or (owner, caller) in self.operators or self.approved.get(token) == caller

    @rule(target=tokens, caller=accounts_, to=accounts_)
    def mint(self, caller, to):
        if caller != self.accounts[0]:
            with reverts("erc721: access is denied"):
                self.nft.safe_mint(to, "", {"from": caller})
            return multiple()
        tx = self.nft.safe_mint(to, "", {"from": caller})
        token = self.next_id
        assert tx.events["Transfer"]["token_id"] == token and tx.events["Transfer"]["receiver"] == to
        self.next_id += 1
        self.owners[token] = to
        return token

    @rule(token=tokens, caller=accounts_, to=accounts_)
    def transfer(self, token, caller, to):
        if token not in self.owners:
            with reverts("erc721: invalid token ID"):
                self.nft.transferFrom(caller, to, token, {"from": caller})
            return
        owner = self.owners[token]
        if not self.may_manage(caller, token):
            with reverts("erc721: caller is not token owner or approved"):
                self.nft.transferFrom(owner, to, token, {"from": caller})
            return
        self.nft.transferFrom(owner, to, token, {"from": caller})
        self.owners[token] = to
        self.approved.pop(token, None)

    @rule(token=tokens, caller=accounts_, to=accounts_)
    def approve(self, token, caller, to):
        if token not in self.owners:
            with reverts("erc721: invalid token ID"):
                self.nft.approve(to, token, {"from": caller})
            return
        owner = self.owners[token]
        if to == owner:
            with reverts("erc721: approval to current owner"):
                self.nft.approve(to, token, {"from": caller})
        elif caller != owner and (owner, caller) not in self.operators:
            with reverts("erc721: approve caller is not token owner or approved for all"):
                self.nft.approve(to, token, {"from": caller})
        else:
            self.nft.approve(to, token, {"from": caller})
            self.approved[token] = to

    @rule(caller=accounts_, operator=accounts_, approved=strategy("bool"))
    def set_operator(self, caller, operator, approved):
        if caller == operator:
            with reverts("erc721: approve to caller"):
                self.nft.setApprovalForAll(operator, approved, {"from": caller})
            return
        self.nft.setApprovalForAll(operator, approved, {"from": caller})
        (self.operators.add if approved else self.operators.discard)((caller, operator))

    @rule(token=tokens, caller=accounts_)
    def burn(self, token, caller):
        if token not in self.owners:
            with reverts("erc721: invalid token ID"):
                self.nft.burn(token, {"from": caller})
        elif not self.may_manage(caller, token):
            with reverts("erc721: caller is not token owner or approved"):
                self.nft.burn(token, {"from": caller})
        else:
            self.nft.burn(token, {"from": caller})
            del self.owners[token]
            self.approved.pop(token, None)

    @invariant()
    def ownership(self):
        assert self.nft.totalSupply() == len(self.owners)
        for token, owner in self.owners.items():
            assert self.nft.ownerOf(token) == owner
            assert self.nft.getApproved(token) == (self.approved[token].address if token in self.approved else ZERO)

    @invariant()
    def enumeration(self):
        for account in self.accounts:
            mine = sorted(t for t, o in self.owners.items() if o == account)
            assert self.nft.balanceOf(account) == len(mine)
            assert sorted(self.nft.tokenOfOwnerByIndex(account, i) for i in range(len(mine))) == mine
