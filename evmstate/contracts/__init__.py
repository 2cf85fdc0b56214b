"""The contract layer of docs/contracts.md: addresses, the ABI codec, events, reverts explained,
accounts, contracts and containers, and the project that holds them.

The only package that imports eth-abi (abi.py). May import: the ground floor (errors, units,
values, config, compiler, calls) and evm. Nothing above it.
"""
