"""State machines in two styles, collected into one specification.

Brownie style: a plain class whose methods are named rule/rule_*, initialize/initialize_*,
invariant/invariant_*, with strategies as class attributes picked by argument name.
Decorator style: a StateMachine subclass using rule(), initialize(), invariant(),
precondition(), Bundle, consumes() and multiple(). Decorators only attach markers;
collect() reads them when the machine is loaded, and raises definition errors then.
"""

from __future__ import annotations

# docs/errors.md and docs/optimization.md load a machine with `from evmstate.spec import collect`
from .machine import collect

__all__ = ["collect"]
