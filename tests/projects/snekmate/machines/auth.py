"""snekmate's ownable_2step and access_control against models of owners and roles."""

from evmstate import Bundle, StateMachine, invariant, multiple, reverts, rule, strategy

ZERO = "0x" + "00" * 20
DEFAULT_ADMIN = b"\0" * 32
ROLES = [DEFAULT_ADMIN, b"MINTER".ljust(32, b"\0"), b"PAUSER".ljust(32, b"\0")]


class Ownable2StepMachine:
    st_caller = strategy("address")
    st_new_owner = strategy("address")

    def __init__(cls, accounts, Ownable2StepMock):
        cls.accounts = accounts
        cls.contract = Ownable2StepMock.deploy({"from": accounts[0]})

    def setup(self):
        self.owner = self.accounts[0]
        self.pending = None

    def rule_transfer_ownership(self, st_caller, st_new_owner):
        if st_caller != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.contract.transfer_ownership(st_new_owner, {"from": st_caller})
        else:
            tx = self.contract.transfer_ownership(st_new_owner, {"from": st_caller})
            assert tx.events["OwnershipTransferStarted"]["new_owner"] == st_new_owner
            self.pending = st_new_owner

    def rule_accept_ownership(self, st_caller):
        if st_caller != self.pending:
            with reverts("ownable_2step: caller is not the new owner"):
                self.contract.accept_ownership({"from": st_caller})
        else:
            self.contract.accept_ownership({"from": st_caller})
            self.owner, self.pending = st_caller, None

    def rule_renounce_ownership(self, st_caller):
        if st_caller != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.contract.renounce_ownership({"from": st_caller})
        else:
            self.contract.renounce_ownership({"from": st_caller})
            self.owner, self.pending = None, None

    def invariant_owner(self):
        assert self.contract.owner() == (self.owner.address if self.owner else ZERO)
        assert self.contract.pending_owner() == (self.pending.address if self.pending else ZERO)


class AccessControlMachine(StateMachine):
    """Decorator style: roles granted, revoked, renounced and re-administered."""

    granted = Bundle("granted")

    def __init__(cls, accounts, AccessControlMock):
        cls.accounts = accounts
        cls.contract = AccessControlMock.deploy({"from": accounts[0]})

    def setup(self):
        self.members = {(DEFAULT_ADMIN, self.accounts[0])}
        self.admins = {}

    def admin_of(self, role):
        return self.admins.get(role, DEFAULT_ADMIN)

    def may_administer(self, role, caller):
        return (self.admin_of(role), caller) in self.members

    @rule(target=granted, role=strategy("uint8", max_value=2), caller=strategy("address"), account=strategy("address"))
    def grant(self, role, caller, account):
        role = ROLES[role]
        if self.may_administer(role, caller):
            self.contract.grantRole(role, account, {"from": caller})
            self.members.add((role, account))
            return (role, account)
        with reverts("access_control: account is missing role"):
            self.contract.grantRole(role, account, {"from": caller})
        return multiple()

    @rule(member=granted, caller=strategy("address"))
    def revoke(self, member, caller):
        role, account = member
        if self.may_administer(role, caller):
            self.contract.revokeRole(role, account, {"from": caller})
            self.members.discard((role, account))
        else:
            with reverts("access_control: account is missing role"):
                self.contract.revokeRole(role, account, {"from": caller})

    @rule(role=strategy("uint8", max_value=2), caller=strategy("address"), account=strategy("address"))
    def renounce(self, role, caller, account):
        role = ROLES[role]
        if caller != account:
            with reverts("access_control: can only renounce roles for itself"):
                self.contract.renounceRole(role, account, {"from": caller})
        else:
            self.contract.renounceRole(role, account, {"from": caller})
            self.members.discard((role, account))

    @rule(role=strategy("uint8", max_value=2), admin_role=strategy("uint8", max_value=2), caller=strategy("address"))
    def set_role_admin(self, role, admin_role, caller):
        role, admin_role = ROLES[role], ROLES[admin_role]
        if self.may_administer(role, caller):
            self.contract.set_role_admin(role, admin_role, {"from": caller})
            self.admins[role] = admin_role
        else:
            with reverts("access_control: account is missing role"):
                self.contract.set_role_admin(role, admin_role, {"from": caller})

    @invariant()
    def roles_match(self):
        for role in ROLES:
            assert self.contract.getRoleAdmin(role) == self.admin_of(role)
            for account in self.accounts:
                assert self.contract.hasRole(role, account) == ((role, account) in self.members)
