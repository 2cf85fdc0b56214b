# pragma version ~=0.4.0
"""
@title A raffle whose randomness callback pays the winner
@notice Players enter for a fee. The owner asks the randomness coordinator for a number; the
        coordinator's callback picks the winner and pays the whole pot to it in the same call.
        A coordinator does not call back twice: a callback that reverts leaves the raffle stuck.
"""

OPEN: constant(uint8) = 0
CALCULATING: constant(uint8) = 1
MAX_PLAYERS: constant(uint256) = 256

owner: public(address)
coordinator: public(address)
entrance_fee: public(uint256)
players: public(DynArray[address, MAX_PLAYERS])
state: public(uint8)
request_id: public(uint256)
recent_winner: public(address)


event WinnerPicked:
    winner: indexed(address)
    prize: uint256


@deploy
def __init__(coordinator: address, entrance_fee: uint256):
    self.owner = msg.sender
    self.coordinator = coordinator
    self.entrance_fee = entrance_fee


@external
@payable
def enter():
    assert self.state == OPEN, "the raffle is calculating"
    assert msg.value == self.entrance_fee, "send the entrance fee"
    self.players.append(msg.sender)


@external
def request_winner() -> uint256:
    assert msg.sender == self.owner, "only the owner"
    assert self.state == OPEN, "the raffle is calculating"
    assert len(self.players) > 0, "no players"
    self.state = CALCULATING
    self.request_id += 1
    return self.request_id


@external
def fulfill_random_words(request_id: uint256, random_word: uint256):
    assert msg.sender == self.coordinator, "only the coordinator"
    assert self.state == CALCULATING and request_id == self.request_id, "no such request"
    winner: address = self.players[random_word % len(self.players)]
    prize: uint256 = self.balance
    self.players = []
    self.state = OPEN
    self.recent_winner = winner
    raw_call(winner, b"", value=prize)
    log WinnerPicked(winner=winner, prize=prize)
