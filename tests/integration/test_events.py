"""Events are decoded by the ABI of the contract that emitted them; what no ABI explains is shown raw."""

from __future__ import annotations

from eth_utils import keccak

from evmstate.contracts.events import Event

TRANSFER = keccak(text="Transfer(address,address,uint256)")


def test_erc20_and_erc721_transfers_each_decode_by_their_own_abi(tokens):
    a = tokens.accounts
    coin = tokens.Coin.deploy(1000)
    nft = tokens.Collectible.deploy()
    tx = coin.transfer(a[1], 25, {"from": a[0]})
    assert tx.events["Transfer"] == {"sender": a[0].address, "receiver": a[1].address, "value": 25}
    assert tx.events[0].address == coin.address
    tx = nft.mint(a[2], 7)
    assert tx.events["Transfer"] == {"sender": "0x" + "00" * 20, "receiver": a[2].address, "token_id": 7}
    tx = nft.transferFrom(a[2], a[3], 7, {"from": a[2]})
    assert tx.events["Transfer"]["token_id"] == 7 and tx.events["Transfer"]["receiver"] == a[3]
    # the deploying transaction's events are the ERC20's too
    assert repr(tokens.event_decoder.decode(tokens.backend.logs[0])) == f"Transfer(sender='0x{'00' * 20}', receiver='{a[0].address}', value=1000)"


def test_unattached_contracts_fall_back_to_the_one_project_abi_that_fits(tokens):
    blueprint = tokens.Coin.deploy_as_blueprint()
    factory = tokens.Factory.deploy()
    tx = factory.make(blueprint, 500)
    # the new coin was never attached: of the project's Transfer events, only Coin's has its shape
    # (Collectible's needs four topics, Points' has other names but the same shape, so it is ambiguous)
    (event,) = list(tx.events)
    assert event.name == "(unknown)" and event.address == tx.return_value
    assert event["topics"][0] == "0x" + TRANSFER.hex() and event["data"] == "0x" + (500).to_bytes(32, "big").hex()
    # once attached, its ABI decodes it
    coin = tokens.Coin.at(tx.return_value)
    assert tokens.event_decoder.decode(tx.logs[0]) == {"sender": "0x" + "00" * 20, "receiver": factory.address, "value": 500}
    assert coin.balanceOf(factory) == 500


def test_an_erc721_transfer_from_an_unknown_address_decodes_by_its_shape(tokens):
    a = tokens.accounts
    points = tokens.Points.deploy()
    # Points' ABI has no four-topic Transfer: the project's Collectible is the only one that fits
    topics = [TRANSFER, b"\0" * 12 + a[1].raw_address, b"\0" * 12 + a[2].raw_address, (9).to_bytes(32, "big")]
    tx = points.emit_raw(topics, b"")
    assert tx.events["Transfer"] == {"sender": a[1].address, "receiver": a[2].address, "token_id": 9}


def test_ambiguous_and_undecodable_logs_are_raw_never_an_exception(tokens):
    a = tokens.accounts
    points = tokens.Points.deploy()
    tx = points.emit_transfer(a[1], 3, {"from": a[0]})
    assert tx.events["Transfer"] == {"owner": a[0].address, "to": a[1].address, "amount": 3}
    cases = [
        ([], b"anonymous"),  # no topic at all
        ([keccak(text="Nobody(uint256)")], b""),  # a topic no ABI knows
        ([TRANSFER, b"\0" * 12 + a[1].raw_address], b""),  # a Transfer with too few topics
        ([TRANSFER, b"\xff" * 32, b"\0" * 12 + a[1].raw_address], (1).to_bytes(32, "big")),  # not an address
        ([TRANSFER, b"\0" * 12 + a[1].raw_address, b"\0" * 12 + a[2].raw_address], b"\1"),  # data cut short
    ]
    for topics, data in cases:
        tx = points.emit_raw(topics, data)
        (event,) = list(tx.events)
        assert isinstance(event, Event) and event.name == "(unknown)", (topics, data, event)
        assert event == {"topics": ["0x" + t.hex() for t in topics], "data": "0x" + data.hex()}
        assert "(unknown)" in repr(tx.events)


def test_traces_name_accounts_and_deployed_contracts_in_event_arguments(tokens):
    from evmstate.engine.trace import Names, event_text

    a = tokens.accounts
    coin = tokens.Coin.deploy(1000)
    other = tokens.Coin.deploy(5)
    tx = coin.transfer(other, 25, {"from": a[0]})
    names = Names(tokens)
    shown = event_text(tokens, tx.logs[0], names)
    # two Coins deployed: the emitter is named with its address, as values are
    assert shown == f"<Coin {coin.address}>.Transfer(sender=accounts[0], receiver=<Coin {other.address}>, value=25)"
    assert names.show("0x" + "zz" * 20) == repr("0x" + "zz" * 20), "a string that only looks like an address stays a string"
