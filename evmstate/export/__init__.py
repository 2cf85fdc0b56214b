"""Saved failures written as tests of other frameworks (`evmstate export`).

python.py writes a pytest test that runs the failure's program through the pytest plugin's
`evmstate_machine` fixture (driver.py: the machine, its rules and its invariants, run without
Hypothesis); solidity.py writes a Foundry test from the calls a replay of the program made
(recording.py). May import: the engine and everything below it. Never scale, runner, the pytest
plugin or the CLI.
"""
