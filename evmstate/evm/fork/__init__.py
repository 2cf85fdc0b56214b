"""Fork mode: the state of a deployed chain at a pinned block, read lazily by both backends through one cache.

rpc.py (JSON-RPC: batches, retries, timeouts), files.py (the cache folder's files), store.py (the
cache every backend reads through, ForkSource), start.py (the block pinned and the node checked
before anything runs), pyevm.py and revm.py (the backends over a fork), serve.py (the loopback
node pyrevm reads through, run as a process of its own). Imports the backends of evm/ and config.
"""
