# pragma version ~=0.4.3
# grind() needs about 100 gas a round and then changes state, pays and logs: with enough rounds it
# finishes on chain long after py-evm's time limit.

total: public(uint256)
rounds: public(uint256)
marker: public(uint256)


event Ground:
    n: uint256
    total: uint256


@deploy
def __init__():
    self.marker = 7


@external
@payable
def grind(_n: uint256, _to: address) -> uint256:
    t: uint256 = 0
    for i: uint256 in range(_n, bound=2**63):
        t += i
    self.total += t
    self.rounds += 1
    self.marker = 0
    send(_to, msg.value)
    log Ground(n=_n, total=t)
    return t


@view
@external
def sum_to(_n: uint256) -> uint256:
    t: uint256 = 0
    for i: uint256 in range(_n, bound=2**63):
        t += i
    return t
