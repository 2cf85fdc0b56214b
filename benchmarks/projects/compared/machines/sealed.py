"""A guess committed in one call and judged in a later one: `guesses[player] == 5 * key + 1`.

The number compared is stored by the first call and read back by the second, whose own calldata
holds no argument: the search records the other side of a comparison with a value some earlier
call of the run was given, as it does with the call's own arguments.
"""

from evmstate import strategy


class SealedMachine:
    number = strategy("uint256")
    player = strategy("address", length=2)

    def __init__(cls, accounts, Sealed):
        cls.players = list(accounts[:2])
        cls.game = Sealed.deploy({"from": accounts[0]})

    def rule_guess(self, number, player):
        self.game.guess(number, {"from": player})

    def rule_settle(self, player):
        self.game.settle({"from": player})

    def invariant_a_guess_wins_once(self):
        for player in self.players:
            assert self.game.wins(player) <= 1
