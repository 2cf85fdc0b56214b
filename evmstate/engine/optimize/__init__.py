"""Optimization: a machine's optimize_<name> methods (or @optimize), the values a campaign maximizes.

best (each value read after every step, the best one kept with the program reaching it, and the
search steered toward higher values) and shrink (that program made shorter and simpler while it
still reaches the value). May import what the engine's modules import, and the engine's own
modules below the run loop (program, recorded, events, shrink); never the run loop itself.
"""
