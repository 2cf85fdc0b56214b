"""The token as script/deploy.py deploys it, injected by name into the machines and property tests."""

INITIAL_SUPPLY = 1000 * 10**18


def token(accounts, snek_token):
    return snek_token.deploy(INITIAL_SUPPLY, {"from": accounts[0]})
