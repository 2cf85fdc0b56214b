"""Shrinking a failing program: trials (the entry: a program's candidates replayed and judged), passes (the Shrinker's
passes), coupled (values that move together), edits (programs rewritten), candidates (tries in order and in batches),
replayer.
"""
