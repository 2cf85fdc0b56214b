from moccasin.boa_tools import VyperContract

from src.mocks import mock_token


def deploy_collateral() -> VyperContract:
    return mock_token.deploy()


def moccasin_main() -> VyperContract:
    return deploy_collateral()
