"""The py-evm backend: backend.py (execution, snapshots, hooks), accounts.py (state access), opcodes.py (hooked jumps, comparisons), state.py (the state class)."""
