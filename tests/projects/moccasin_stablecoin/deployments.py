"""The project's deployments, as moccasin's named contracts (moccasin.toml's [networks.contracts])
and its deploy scripts make them: each function is injected by its name into the machines."""

STARTING_DECIMALS = 8
ETH_USD_PRICE = 2000 * 10**8
BTC_USD_PRICE = 1000 * 10**8


def weth(accounts, mock_token):
    return mock_token.deploy({"from": accounts[0]})


def wbtc(accounts, mock_token):
    return mock_token.deploy({"from": accounts[0]})


def eth_usd_price_feed(accounts, mock_v3_aggregator):
    return mock_v3_aggregator.deploy(STARTING_DECIMALS, ETH_USD_PRICE, {"from": accounts[0]})


def btc_usd_price_feed(accounts, mock_v3_aggregator):
    return mock_v3_aggregator.deploy(STARTING_DECIMALS, BTC_USD_PRICE, {"from": accounts[0]})


def dsc(accounts, decentralized_stable_coin):
    return decentralized_stable_coin.deploy({"from": accounts[0]})


def dsce(accounts, dsc_engine, dsc, weth, wbtc, eth_usd_price_feed, btc_usd_price_feed):
    engine = dsc_engine.deploy([weth, wbtc], [eth_usd_price_feed, btc_usd_price_feed], dsc, {"from": accounts[0]})
    dsc.set_minter(engine, True, {"from": accounts[0]})
    dsc.transfer_ownership(engine, {"from": accounts[0]})
    return engine
