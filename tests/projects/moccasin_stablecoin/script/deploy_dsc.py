from moccasin.boa_tools import VyperContract

from src import decentralized_stable_coin


def deploy_dsc() -> VyperContract:
    return decentralized_stable_coin.deploy()


def moccasin_main() -> VyperContract:
    return deploy_dsc()
