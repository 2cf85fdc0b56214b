"""The Brownie-style contract surface over real Vyper contracts and py-evm."""

from __future__ import annotations

import pytest

from evmstate import ContractError, Receipt, TransactionReverted, VirtualMachineError, reverts
from evmstate.errors import CallUsageError
from evmstate.contracts.revert import decode_revert


def test_seed_depositer_deposit_and_buggy_withdraw(project):
    a = project.accounts
    dep = project.Depositer.deploy({"from": a[0]})
    tx = dep.deposit_for(a[1], {"from": a[0], "value": "1 ether"})
    assert isinstance(tx, Receipt)
    assert tx.return_value is True and tx.value == 10**18 and tx.sender == a[0] and tx.gas_used > 21_000
    assert dep.deposited(a[1]) == 10**18 and dep.balance() == 10**18
    before = a[1].balance()
    dep.withdraw_from(10**17, {"from": a[1]})
    assert a[1].balance() == before + 10**17
    # the planted bug: the balance is set to the withdrawn amount, not reduced by it
    assert dep.deposited(a[1]) == 10**17


def test_erc20_events(project):
    a = project.accounts
    token = project.Token.deploy("Test Token", "TST", 18, "1000 ether")
    assert token.name() == "Test Token" and token.decimals() == 18 and token.totalSupply() == 1000 * 10**18
    tx = token.transfer(a[1], 100, {"from": a[0]})
    transfer = tx.events["Transfer"]
    assert transfer["sender"] == a[0] and transfer["receiver"] == a[1] and transfer["value"] == 100
    assert len(transfer) == 1 and transfer[0] == {"sender": a[0].address, "receiver": a[1].address, "value": 100}
    assert [e.name for e in tx.events] == ["Transfer"] and len(tx.events) == 1
    with pytest.raises(KeyError, match="no 'Approval' event was emitted; events emitted: Transfer"):
        tx.events["Approval"]
    token.approve(a[2], 50, sender=a[1])
    tx = token.transferFrom(a[1], a[3], 50, sender=a[2])
    assert tx.events["Transfer"]["receiver"] == a[3]
    assert token.balanceOf(a[3]) == 50 and token.allowance(a[1], a[2]) == 0


def test_several_events_of_one_name(project):
    a = project.accounts
    vault = project.Vault.deploy()
    tx = vault.deposit(10, {"from": a[2], "value": 7})
    ev = tx.events["Deposited"]
    assert ev["owner"] == a[2] and ev["amount"] == 7 and ev["unlock_at"] == project.chain.time() + 10
    assert ev.keys() == {"owner", "amount", "unlock_at"}


def test_revert_reason_contract_function_and_source_line(project):
    a = project.accounts
    vault = project.Vault.deploy({"from": a[0]})
    with pytest.raises(TransactionReverted) as info:
        vault.only_owner({"from": a[1]})
    err = info.value
    assert err.reason == "Not owner" and err.contract == "Vault" and err.function == "only_owner"
    assert "Vault.only_owner reverted: 'Not owner'" in str(err)
    assert 'assert msg.sender == self.owner, "Not owner"' in err.source_line
    assert err.source_line.split(":")[-2].strip().isdigit()


def test_a_reverted_call_is_shown_as_written_and_pickles_as_text(project):
    import pickle

    a = project.accounts
    vault = project.Vault.deploy({"from": a[0]})
    with pytest.raises(TransactionReverted) as info:
        vault.underflow(6, {"from": a[1]})
    err = info.value
    assert "_call" not in vars(err)  # formatted when first read
    again = pickle.loads(pickle.dumps(err))
    assert err.call == again.call == "Vault.underflow(6)"
    assert (again.reason, again.function, again.source_line) == (err.reason, err.function, err.source_line)
    err.call = "shown otherwise"
    assert err.call == "shown otherwise"
    with reverts() as caught:
        vault.underflow(7)
    assert "_call" not in vars(caught.error) and caught.error.call == "Vault.underflow(7)"  # a revert caught as expected is never formatted


def test_revert_without_reason(project):
    vault = project.Vault.deploy()
    with pytest.raises(TransactionReverted) as info:
        vault.underflow(6)
    assert info.value.reason is None
    assert str(info.value).startswith("Vault.underflow reverted: underflow (safesub)\n  ")
    assert info.value.source_line.endswith("Vault.vy:53: return 5 - _x")
    with reverts():
        vault.check_no_reason(11)
    with pytest.raises(AssertionError, match="reverted with no reason \\(underflow \\(safesub\\)\\), but reverts\\('x'\\) expected 'x'"):
        with reverts("x"):
            vault.underflow(7)


def test_out_of_gas_raises_virtual_machine_error(project):
    vault = project.Vault.deploy()
    with pytest.raises(VirtualMachineError) as info:
        vault.spin(100_000, {"gas": 60_000})
    assert info.value.gas_used == 60_000 and "Vault.spin" in str(info.value)


def test_reverts_passes_and_fails_with_clear_messages(project):
    a = project.accounts
    dep = project.Depositer.deploy()
    with reverts("Insufficient balance") as caught:
        dep.withdraw_from(1, {"from": a[1]})
    assert caught.error.reason == "Insufficient balance"
    with pytest.raises(AssertionError, match=r"Depositer.withdraw_from\(0\) succeeded where reverts\('Insufficient balance'\) expected a revert"):
        with reverts("Insufficient balance"):
            dep.withdraw_from(0, {"from": a[1]})
    with pytest.raises(AssertionError, match=r"reverted with 'Insufficient balance', but reverts\('Other'\) expected 'Other'"):
        with reverts("Other"):
            dep.withdraw_from(1, {"from": a[1]})
    with pytest.raises(AssertionError, match="nothing reverted"):
        with reverts():
            pass
    with pytest.raises(ValueError):
        with reverts():
            raise ValueError("not a revert: passes through")


def test_payable_value_and_account_transfer(project):
    a = project.accounts
    vault = project.Vault.deploy({"from": a[0], "value": "1 gwei"})
    assert vault.balance() == 10**9
    with pytest.raises(ContractError, match="not payable"):
        vault.withdraw({"value": 1})
    with reverts("Nothing sent"):
        vault.deposit(0)
    before = a[5].balance()
    tx = a[4].transfer(a[5], "2 ether")
    assert a[5].balance() == before + 2 * 10**18 and tx.gas_used == 21_000
    with reverts():
        a[4].transfer(vault, 5)  # Vault has no __default__: plain ether is refused
    assert vault.balance() == 10**9


def test_time_lock_follows_chain_sleep(project):
    vault = project.Vault.deploy()
    a = project.accounts
    vault.deposit(3600, {"from": a[1], "value": 10})
    with reverts("Still locked"):
        vault.withdraw({"from": a[1]})
    project.chain.sleep(3600)
    vault.withdraw({"from": a[1]})
    assert vault.locked(a[1]) == 0


def test_address_arguments_and_return_values(project):
    a = project.accounts
    vault = project.Vault.deploy()
    token = project.Token.deploy("T", "T", 18, 1000)
    assert vault.pair(a[3], 7) == (a[3], 7)
    assert vault.pair(a[3].address.lower(), 1)[0] == a[3]
    assert vault.pair(token, 1)[0] == token
    owner = vault.owner()
    assert owner == a[0] and a[0] == owner and isinstance(owner, str)
    balances = {acct: 0 for acct in a}
    balances[owner] += 1
    assert balances[a[0]] == 1, "a returned address finds the account's dict entry"
    with pytest.raises(ContractError, match="expected an account, a contract or a 0x-prefixed"):
        vault.pair("0x1234", 1)


def test_call_dry_runs_a_state_changing_function(project):
    a = project.accounts
    token = project.Token.deploy("T", "T", 18, 1000)
    assert token.transfer.call(a[1], 10) is True
    assert token.balanceOf(a[1]) == 0
    with reverts("Insufficient balance"):
        token.transfer.call(a[1], 10, {"from": a[2]})


def test_bad_calls_are_clear_errors(project):
    token = project.Token.deploy("T", "T", 18, 1000)
    with pytest.raises(ContractError, match=r"Token.transfer takes 2 \(_to: address, _value: uint256\) arguments, got 1"):
        token.transfer(1)
    with pytest.raises(ContractError, match="unknown transaction option"):
        token.transfer(token, 1, {"form": 1})
    with pytest.raises(ContractError, match="unexpected keyword 'frm'"):
        token.transfer(token, 1, frm=1)
    with pytest.raises(ContractError, match="expected an integer for uint256"):
        token.transfer(token, [1])
    with pytest.raises(AttributeError, match="Token has no function 'mint'"):
        token.mint
    with pytest.raises(ContractError, match="takes 4 arguments"):
        project.Token.deploy("T")
    # a trailing {"from": ...} is the options even when the argument count is wrong
    with pytest.raises(CallUsageError, match=r"Token.transfer takes 2 \(_to: address, _value: uint256\) arguments, got 1$"):
        token.transfer(token, {"from": project.accounts[1]})
    with pytest.raises(CallUsageError, match=r"Token.deploy takes 4 arguments \(.*\), got 1$"):
        project.Token.deploy("T", {"from": project.accounts[0]})


def test_accounts_behave_as_addresses(project):
    a = project.accounts
    assert repr(a[3]) == "accounts[3]" and str(a[3]) == a[3].address
    assert a[3] == a[3].address and a[3] == a[3].address.lower() and a[3] != a[4]
    assert hash(a[3]) == hash(a[3].address)
    assert len(a) == 10 and a[0].balance() == 100 * 10**18


def test_decode_revert_payloads():
    assert decode_revert(b"") is None
    assert decode_revert(bytes.fromhex("4e487b71") + (0x11).to_bytes(32, "big")) == "Panic(0x11): arithmetic overflow or underflow"
    abi = [{"type": "error", "name": "Nope", "inputs": [{"name": "x", "type": "uint256"}]}]
    from eth_utils import keccak

    data = keccak(text="Nope(uint256)")[:4] + (5).to_bytes(32, "big")
    assert decode_revert(data, abi) == "Nope(5)"
    assert decode_revert(b"\x01\x02", abi) == "0x0102"
