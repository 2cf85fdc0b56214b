from moccasin.boa_tools import VyperContract
from moccasin.config import get_active_network

from src import dsc_engine


def deploy_dsc_engine(dsc: VyperContract) -> VyperContract:
    active_network = get_active_network()
    weth = active_network.manifest_named("weth")
    wbtc = active_network.manifest_named("wbtc")
    eth_usd = active_network.manifest_named("eth_usd_price_feed")
    btc_usd = active_network.manifest_named("btc_usd_price_feed")

    engine = dsc_engine.deploy([weth, wbtc], [eth_usd, btc_usd], dsc)
    dsc.set_minter(engine.address, True)
    dsc.transfer_ownership(engine.address)
    return engine


def moccasin_main() -> VyperContract:
    dsc = get_active_network().manifest_named("decentralized_stable_coin")
    return deploy_dsc_engine(dsc)
