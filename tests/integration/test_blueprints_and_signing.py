"""What real suites do beyond calls: ERC-5202 blueprints, code hashes, EIP-191 and EIP-712 (permit) signatures."""

from __future__ import annotations

import pytest
from eth_keys import keys
from eth_utils import keccak

from evmstate import ContractError, TransactionReverted, UsageError
from evmstate.contracts.accounts import eip191_hash

PERMIT_TYPES = {
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ]
}


def test_a_factory_deploys_from_a_blueprint_and_the_child_is_usable(tokens):
    a = tokens.accounts
    blueprint = tokens.Coin.deploy_as_blueprint({"from": a[1]})
    code = tokens.backend.get_code(blueprint.raw_address)
    # ERC-5202: the preamble, then the contract's initcode, which cannot be called as a contract
    assert code == b"\xfe\x71\x00" + tokens.Coin.bytecode and blueprint.address in repr(blueprint)
    factory = tokens.Factory.deploy()
    tx = factory.make(blueprint, 1000, {"from": a[2]})
    child = tokens.Coin.at(tx.return_value)
    assert factory.last() == child.address and child.balanceOf(factory) == 1000
    # a second child is a separate contract with the same runtime code
    other = tokens.Coin.at(factory.make(blueprint.address, 5).return_value)
    assert other != child and other.balanceOf(factory) == 5
    assert child.codehash == other.codehash == keccak(tokens.backend.get_code(child.raw_address))
    assert child.codehash == factory.code_hash_of(child) and factory.codehash == factory.code_hash_of(factory)
    assert child.codehash != factory.codehash


def test_deploy_as_blueprint_takes_only_transaction_options(tokens):
    with pytest.raises(ContractError, match="Coin.deploy_as_blueprint takes no constructor arguments, got 1; pass them to create_from_blueprint"):
        tokens.Coin.deploy_as_blueprint(1000)
    with pytest.raises(ContractError, match="a blueprint cannot be sent a value"):
        tokens.Coin.deploy_as_blueprint(value=1)


def test_sign_message_is_recovered_on_chain_by_ecrecover(tokens):
    a = tokens.accounts
    checker = tokens.Permit.deploy("Permit Token")
    for message in (b"hello", "a text message", b"\x00" * 64):
        signed = a[3].sign_message(message)
        assert signed.message_hash == eip191_hash(message)
        assert signed.v in (27, 28) and signed.signature == signed.r.to_bytes(32, "big") + signed.s.to_bytes(32, "big") + bytes([signed.v])
        assert checker.personal_signer(message if isinstance(message, bytes) else message.encode(), signed.v, signed.r, signed.s) == a[3]
        recovered = keys.Signature(signed.signature[:64] + bytes([signed.v - 27])).recover_public_key_from_msg_hash(signed.message_hash)
        assert recovered.to_canonical_address() == a[3].raw_address


def test_typed_data_signature_passes_an_eip2612_permit_on_chain(tokens):
    a = tokens.accounts
    token = tokens.Permit.deploy("Permit Token")
    domain = {"name": "Permit Token", "version": "1", "chainId": tokens.chain.id, "verifyingContract": token}
    deadline = tokens.chain.time() + 3600
    message = {"owner": a[1], "spender": a[2], "value": 10**18, "nonce": token.nonces(a[1]), "deadline": deadline}
    signed = a[1].sign_typed_data(domain, PERMIT_TYPES, message)
    token.permit(a[1], a[2], 10**18, deadline, signed.v, signed.r, signed.s, {"from": a[5]})
    assert token.allowance(a[1], a[2]) == 10**18 and token.nonces(a[1]) == 1
    # the same signature again is stale (the nonce moved on); another signer is refused
    with pytest.raises(TransactionReverted, match="invalid signature"):
        token.permit(a[1], a[2], 10**18, deadline, signed.v, signed.r, signed.s)
    message["nonce"] = 1
    forged = a[4].sign_typed_data(domain, PERMIT_TYPES, message)
    with pytest.raises(TransactionReverted, match="invalid signature"):
        token.permit(a[1], a[2], 10**18, deadline, forged.v, forged.r, forged.s)
    # r and s as bytes work as well as ints
    message["value"] = 5
    signed = a[1].sign_typed_data(domain, PERMIT_TYPES, message, primary_type="Permit")
    token.permit(a[1], a[2], 5, deadline, signed.v, signed.signature[:32], signed.signature[32:64])
    assert token.allowance(a[1], a[2]) == 5


def test_signing_mistakes_are_clear_errors(tokens):
    a = tokens.accounts
    with pytest.raises(UsageError, match="sign_message: expected bytes or a str, got int 5"):
        a[0].sign_message(5)
    with pytest.raises(UsageError, match=r"Permit has the fields owner, spender, value, nonce, deadline; missing \['deadline'\]"):
        a[0].sign_typed_data({"name": "T"}, PERMIT_TYPES, {"owner": a[1], "spender": a[2], "value": 1, "nonce": 0})
