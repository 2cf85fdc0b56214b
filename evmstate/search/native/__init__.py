"""evmstate's own search loop: runs drawn by plain Python generators, each choice recorded as Hypothesis draws it.

choices.py draws the strategies evmstate builds (strategy() for scalar ABI types, accounts, the
rule of a step, waits, bundle entries, the swarm) without Hypothesis's engine, recording every
choice as (kind, constraints, value) exactly as Hypothesis's own strategies would make it, so
that a run replays through Hypothesis unchanged (guidance.GuidedProvider returns recorded
choices). mutations.py makes new runs from kept ones. engine/native.py drives the machine.
May import: the search package, hypothesis (strategies only).
"""
