"""The raffle's promise: once a winner is asked for, the coordinator's callback picks one and pays
the pot (a coordinator calls back once: a callback that reverts leaves the raffle stuck)."""

from evmstate import reverts, strategy

FEE = 10**16


class RaffleMachine:
    player = strategy("address")
    random_word = strategy("uint256")

    def __init__(cls, Raffle, accounts):
        cls.owner, cls.coordinator = accounts[0], accounts[9]
        cls.raffle = Raffle.deploy(accounts[9], FEE, {"from": accounts[0]})

    def setup(self):
        self.players = []
        self.asked = False

    def rule_enter(self, player):
        if self.asked:
            with reverts("the raffle is calculating"):
                self.raffle.enter({"from": player, "value": FEE})
            return
        self.raffle.enter({"from": player, "value": FEE})
        self.players.append(player)

    def rule_request_winner(self):
        if self.asked or not self.players:
            with reverts():
                self.raffle.request_winner({"from": self.owner})
            return
        self.raffle.request_winner({"from": self.owner})
        self.asked = True

    def rule_fulfill(self, random_word):
        if not self.asked:
            return
        winner = self.players[random_word % len(self.players)]
        before = winner.balance()
        self.raffle.fulfill_random_words(self.raffle.request_id(), random_word, {"from": self.coordinator})
        assert winner.balance() - before == FEE * len(self.players)
        self.players, self.asked = [], False

    def invariant_holds_the_pot(self):
        assert self.raffle.balance() == FEE * len(self.players)
