"""Search power: coverage from the EVM's jumps, the dictionary of values a run met, coverage
guidance as a Hypothesis provider, the corpus of kept runs that campaigns save and load, and the
per-machine search session that ties them together.

May import: the ground floor, evm and contracts. Nothing above it.
"""
