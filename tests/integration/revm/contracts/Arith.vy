# pragma version ~=0.4.3
# Signed and unsigned arithmetic, bytes and comparisons, for the tracer to run as revm does.

last: public(int256)
word: public(uint256)


@external
def signed(_a: int256, _b: int256) -> int256:
    r: int256 = 0
    if _b != 0:
        r = _a // _b + _a % _b
    if _a < _b:
        r = unsafe_sub(r, _b >> 3)
    if -5 <= _a and _a <= 5:
        r = unsafe_add(r, _a ** 2)
    self.last = r
    return r


@external
def unsigned(_a: uint256, _b: uint256, _c: uint8) -> uint256:
    r: uint256 = unsafe_mul(_a, _b) ^ (_a << convert(_c, uint256)) | (_b >> 7)
    r = uint256_addmod(_a, _b, 1000003) + uint256_mulmod(_a, _b, 999983)
    if convert(slice(convert(_a, bytes32), 3, 1), uint256) == convert(_c, uint256):
        r += 1
    if _a == _b * 2 + 1:
        r = 0
    self.word = r
    return r


@external
def narrow(_x: int8, _y: int128) -> int128:
    assert _y != 42, "the answer"
    return convert(_x, int128) * 3 + _y // 7
