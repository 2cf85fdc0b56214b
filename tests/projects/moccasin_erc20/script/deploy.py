from moccasin.boa_tools import VyperContract

from src import snek_token

INITIAL_SUPPLY = 1000 * 10**18


def deploy() -> VyperContract:
    return snek_token.deploy(INITIAL_SUPPLY)


def moccasin_main() -> VyperContract:
    return deploy()
