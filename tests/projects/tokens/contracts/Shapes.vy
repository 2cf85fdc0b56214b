# pragma version ~=0.4.3
# A struct as the last, optional, argument: its dict form must not be taken for transaction options.

struct Point:
    x: int128
    y: int128


@external
@view
def shift(by: int128, p: Point = Point(x=0, y=0)) -> Point:
    return Point(x=p.x + by, y=p.y + by)


@external
@view
def caller() -> address:
    return msg.sender
