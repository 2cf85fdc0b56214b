"""snekmate's two-step ownership against a model of the owner and the pending owner."""

from evmstate import reverts, strategy

ZERO = "0x" + "00" * 20


class OwnershipMachine:
    caller = strategy("address")
    candidate = strategy("address")

    def __init__(cls, accounts, Ownable2StepMock):
        cls.accounts = accounts
        cls.contract = Ownable2StepMock.deploy({"from": accounts[0]})

    def setup(self):
        self.owner = self.accounts[0]
        self.pending = None

    def rule_transfer_ownership(self, caller, candidate):
        if caller != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.contract.transfer_ownership(candidate, {"from": caller})
        else:
            tx = self.contract.transfer_ownership(candidate, {"from": caller})
            started = tx.events["OwnershipTransferStarted"]
            assert (started["previous_owner"], started["new_owner"]) == (caller, candidate)
            self.pending = candidate

    def rule_accept_ownership(self, caller):
        if caller != self.pending:
            with reverts("ownable_2step: caller is not the new owner"):
                self.contract.accept_ownership({"from": caller})
        else:
            tx = self.contract.accept_ownership({"from": caller})
            done = tx.events["OwnershipTransferred"]
            assert (done["previous_owner"], done["new_owner"]) == (self.owner, caller)
            self.owner, self.pending = caller, None

    def rule_renounce_ownership(self, caller):
        if caller != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.contract.renounce_ownership({"from": caller})
        else:
            self.contract.renounce_ownership({"from": caller})
            self.owner, self.pending = None, None

    def invariant_owner(self):
        assert self.contract.owner() == (self.owner.address if self.owner else ZERO)

    def invariant_pending_owner(self):
        assert self.contract.pending_owner() == (self.pending.address if self.pending else ZERO)
