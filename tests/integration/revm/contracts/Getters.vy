# pragma version ~=0.4.3
# Public variables of every one-word type, behind zero, one and two HashMaps: their getters
# are read from storage by the contract layer, and must return what running them returns.

small: public(uint8)
signed: public(int128)
wide: public(int256)
switch: public(bool)
who: public(address)
tag: public(bytes4)
word: public(bytes32)
by_key: public(HashMap[bytes32, int256])
by_id: public(HashMap[uint8, HashMap[address, bool]])
by_sign: public(HashMap[int16, bytes2])
by_flag: public(HashMap[bool, uint256])
text: public(String[40])
items: public(DynArray[uint256, 4])
fixed: public(uint256[3])
LIMIT: public(constant(uint256)) = 7
owner: public(immutable(address))


@deploy
def __init__():
    owner = msg.sender


@external
def set_words(_small: uint8, _signed: int128, _wide: int256, _flag: bool, _who: address, _tag: bytes4, _word: bytes32):
    self.small = _small
    self.signed = _signed
    self.wide = _wide
    self.switch = _flag
    self.who = _who
    self.tag = _tag
    self.word = _word


@external
def set_maps(_key: bytes32, _value: int256, _id: uint8, _who: address, _on: bool, _sign: int16, _two: bytes2, _flag: bool, _n: uint256):
    self.by_key[_key] = _value
    self.by_id[_id][_who] = _on
    self.by_sign[_sign] = _two
    self.by_flag[_flag] = _n


@external
def set_rest(_text: String[40], _item: uint256):
    self.text = _text
    self.items.append(_item)
    self.fixed[1] = _item
