# pragma version ~=0.4.3
# A sealed guess: a player commits a number in one call and settles it in a later one, where it is
# compared with a winning number the contract computes from a stored key (5 * key + 1), never
# stored, returned or logged. Planted bug: a winning guess may be settled twice, paying twice.

key: public(uint256)
guesses: public(HashMap[address, uint256])
wins: public(HashMap[address, uint256])


@deploy
def __init__():
    self.key = 987654321


@external
def guess(_number: uint256):
    self.guesses[msg.sender] = _number


@external
def settle():
    if self.guesses[msg.sender] == self.key * 5 + 1:
        self.wins[msg.sender] += 1  # the bug: the guess is not cleared
