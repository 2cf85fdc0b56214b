"""Canaries: which properties a machine checked on the state they exist to check.

A property that only ever saw zero balances passed without testing anything. Each time a rule or
invariant checks something it says whether the state made the check count (`exercised(name,
interesting)`): the property packs (evmstate.properties) do, and so may a machine's own rules. A
passing machine's result then names each property checked but never on such state, as users of
other tools plant a "canary" assertion by hand to tell a broken harness from a passing one. A rule
may also be left out on purpose (`left_out(name, why)`, a pack's rule for a function the contract
does not have), and is then not reported as never run.

The registry is the one of the machine running in this process (machine_run.py sets it); outside
a machine's run the calls do nothing. It belongs with search: it is the coverage of a machine's
properties, as coverage.py is its code's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hooks import Current


@dataclass
class Canary:
    """How often a property was checked, and how often on the state it exists to check."""

    what: str = ""  # the state that makes a check count: "a transfer of a non-zero amount between two accounts"
    checked: int = 0
    interesting: int = 0
    reverting: bool = False  # its transactions are meant to revert: not "never changed the state"


# the Registry of the machine running in this process, or None
CURRENT = Current(None)


class Registry:
    """One machine's canaries and the rules it leaves out."""

    def __init__(self) -> None:
        self.canaries: dict[str, Canary] = {}
        self.left_out: dict[str, str] = {}


def exercised(name: str, interesting: bool, what: str = "", *, reverting: bool = False) -> None:
    """Count one check of the property name (a rule's or an invariant's); interesting: on the state it exists to check.

    what says which state that is, for the report ("a transfer of a non-zero amount"); reverting
    marks a property whose transactions are meant to revert, which is then not reported as never
    changing the state.
    """
    registry = CURRENT.value
    if registry is None:
        return
    canary = registry.canaries.get(name)
    if canary is None:
        canary = registry.canaries[name] = Canary(what, reverting=reverting)
    canary.checked += 1
    if interesting:
        canary.interesting += 1


def left_out(name: str, why: str) -> None:
    """Say that the rule name does not run in this machine on purpose, and why."""
    registry = CURRENT.value
    if registry is not None:
        registry.left_out.setdefault(name, why)


def merged(parts: list[dict[str, Canary]]) -> dict[str, Canary]:
    """The canaries of several shards of one machine, added up."""
    out: dict[str, Canary] = {}
    for canaries in parts:
        for name, c in canaries.items():
            m = out.setdefault(name, Canary(c.what, reverting=c.reverting))
            m.checked += c.checked
            m.interesting += c.interesting
    return out
