# pragma version ~=0.4.3


@external
@pure
def echo(input_number: uint256) -> uint256:
    if input_number == 2:
        return 0
    return input_number
