"""The py-evm backend: backend.py (execution, hooks), accounts.py (state access, snapshots, kept states), opcodes.py
(hooked jumps, comparisons), solving.py (values derived from an argument, solved back to it), state.py (the state
class), failed.py (the calls inside a failed computation), deferred.py (the BLS12-381 precompiles, imported on first
call)."""

from .deferred import defer

# before py-evm is first imported: its BLS12-381 precompiles load on their first call (deferred.py)
defer()
