"""The EVMs: the only package that imports py-evm (pyevm/) or pyrevm (revm/).

Holds the backends that run calls and transactions against one long-lived state with
snapshots: py-evm, revm, and the checked pair that runs both in lockstep (check.py).
May import: the ground floor (errors, units, values, config). Nothing above it.
"""
