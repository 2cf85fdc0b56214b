"""snekmate's own Foundry invariant suites, ported to evmstate: the baseline the packs are compared with.

ERC20Invariants (test/tokens/ERC20.t.sol), ERC721Invariants (test/tokens/ERC721.t.sol) and
ERC4626VaultInvariants (test/extensions/ERC4626.t.sol): each suite's handler is the machine's rules,
its ghost variables the machine's, and its invariants (the total supply and the owner against the
handler's ghosts; the vault's total supply and total assets) the machine's invariants. As in Foundry
(fail_on_revert off), a call that reverts is skipped.

Ported generously: in Foundry the handler contract itself sends the calls, holds no tokens and is
neither owner nor minter, so most of its calls revert. Here they are sent from the deployer (the
owner and minter, holding the supply; for the vault, holding assets it approved), as the suites'
targetSender(deployer) suggests.
"""

from evmstate import TransactionReverted, strategy

ZERO = "0x" + "00" * 20


class Handler:
    """Calls from the deployer; False where one reverts (skipped, as Foundry skips it)."""

    address = strategy("address")
    other = strategy("address")
    amount = strategy("uint256")
    flag = strategy("bool")
    v = strategy("uint8")
    r = strategy("bytes32")
    s = strategy("bytes32")
    data = strategy("bytes", max_length=32)
    uri = strategy("string", max_length=16)

    def send(self, function, *args):
        try:
            return function(*args, {"from": self.deployer})
        except TransactionReverted:
            return None


class ERC20FoundryMachine(Handler):
    def __init__(cls, accounts, ERC20Mock):
        cls.deployer = accounts[0]
        cls.token = ERC20Mock.deploy("MyToken", "WAGMI", 255 * 10**18, "MyToken", "1", {"from": accounts[0]})

    def setup(self):
        self.total_supply = 255 * 10**18
        self.owner = self.deployer

    def rule_transfer(self, address, amount):
        self.send(self.token.transfer, address, amount)

    def rule_approve(self, address, amount):
        self.send(self.token.approve, address, amount)

    def rule_transfer_from(self, address, other, amount):
        self.send(self.token.transferFrom, address, other, amount)

    def rule_permit(self, address, other, amount, v, r, s):
        self.send(self.token.permit, address, other, amount, amount, v, r, s)

    def rule_burn(self, amount):
        if self.send(self.token.burn, amount) is not None:
            self.total_supply -= amount

    def rule_burn_from(self, address, amount):
        if self.send(self.token.burn_from, address, amount) is not None:
            self.total_supply -= amount

    def rule_mint(self, address, amount):
        if self.send(self.token.mint, address, amount) is not None:
            self.total_supply += amount

    def rule_set_minter(self, address, flag):
        self.send(self.token.set_minter, address, flag)

    def rule_transfer_ownership(self, address):
        if self.send(self.token.transfer_ownership, address) is not None:
            self.owner = address

    def rule_renounce_ownership(self):
        if self.send(self.token.renounce_ownership) is not None:
            self.owner = ZERO

    def invariant_total_supply(self):
        assert self.token.totalSupply() == self.total_supply

    def invariant_owner(self):
        assert self.token.owner() == self.owner


class ERC721FoundryMachine(Handler):
    def __init__(cls, accounts, ERC721Mock):
        cls.deployer = accounts[0]
        cls.token = ERC721Mock.deploy("MyNFT", "WAGMI", "https://www.wagmi.xyz/", "MyNFT", "1", {"from": accounts[0]})

    def setup(self):
        self.total_supply = 0
        self.counter = 0
        self.owner = self.deployer

    def rule_safe_transfer_from_with_data(self, address, other, data):
        self.send(self.token.safeTransferFrom, address, other, self.counter, data)

    def rule_safe_transfer_from(self, address, other):
        self.send(self.token.safeTransferFrom, address, other, self.counter)

    def rule_transfer_from(self, address, other):
        self.send(self.token.transferFrom, address, other, self.counter)

    def rule_approve(self, address):
        self.send(self.token.approve, address, self.counter)

    def rule_set_approval_for_all(self, address, flag):
        self.send(self.token.setApprovalForAll, address, flag)

    def rule_permit(self, address, amount, v, r, s):
        self.send(self.token.permit, address, self.counter, amount, v, r, s)

    def rule_burn(self):
        if self.send(self.token.burn, self.counter) is not None:
            self.counter -= 1
            self.total_supply -= 1

    def rule_safe_mint(self, address, uri):
        if self.send(self.token.safe_mint, address, uri) is not None:
            self.counter += 1
            self.total_supply += 1

    def rule_set_minter(self, address, flag):
        self.send(self.token.set_minter, address, flag)

    def rule_transfer_ownership(self, address):
        if self.send(self.token.transfer_ownership, address) is not None:
            self.owner = address

    def rule_renounce_ownership(self):
        if self.send(self.token.renounce_ownership) is not None:
            self.owner = ZERO

    def invariant_total_supply(self):
        assert self.token.totalSupply() == self.total_supply

    def invariant_owner(self):
        assert self.token.owner() == self.owner


class ERC4626FoundryMachine(Handler):
    def __init__(cls, accounts, ERC20Mock, ERC4626Mock):
        cls.deployer = accounts[0]
        asset = ERC20Mock.deploy("UnderlyingTokenMock", "UTM", 255 * 10**18, "UnderlyingTokenMock", "1", {"from": accounts[0]})
        cls.vault = ERC4626Mock.deploy("TokenisedVaultMock", "TVM", asset, 9, "TokenisedVaultMock", "1", {"from": accounts[0]})
        asset.approve(cls.vault, 2**256 - 1, {"from": accounts[0]})

    def setup(self):
        self.total_supply = 0
        self.total_assets = 0

    def rule_transfer(self, address, amount):
        self.send(self.vault.transfer, address, amount)

    def rule_approve(self, address, amount):
        self.send(self.vault.approve, address, amount)

    def rule_transfer_from(self, address, other, amount):
        self.send(self.vault.transferFrom, address, other, amount)

    def rule_permit(self, address, other, amount, v, r, s):
        self.send(self.vault.permit, address, other, amount, amount, v, r, s)

    def rule_deposit(self, amount, address):
        done = self.send(self.vault.deposit, amount, address)
        if done is not None:
            self.total_supply += done.return_value
            self.total_assets += amount

    def rule_mint(self, amount, address):
        done = self.send(self.vault.mint, amount, address)
        if done is not None:
            self.total_supply += amount
            self.total_assets += done.return_value

    def rule_withdraw(self, amount, address, other):
        done = self.send(self.vault.withdraw, amount, address, other)
        if done is not None:
            self.total_supply -= done.return_value
            self.total_assets -= amount

    def rule_redeem(self, amount, address, other):
        done = self.send(self.vault.redeem, amount, address, other)
        if done is not None:
            self.total_supply -= amount
            self.total_assets -= done.return_value

    def invariant_total_supply(self):
        assert self.vault.totalSupply() == self.total_supply

    def invariant_total_assets(self):
        assert self.vault.totalAssets() == self.total_assets
