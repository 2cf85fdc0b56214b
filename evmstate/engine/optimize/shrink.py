"""The program reaching an optimize method's best value, made shorter and simpler while it still reaches it.

The shrinker's passes (shrink/passes.py) take a predicate, attempt(candidate): here a candidate
counts when, replayed from the chain after the class-level __init__, every step may run where it
stands (as Hypothesis could have run it), every invariant holds, and the method's value after
one of its steps is at least the value to keep. The program kept ends at that step. The value it
reaches may be higher than the one kept: the higher one is reported.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ...contracts.project import Project
from ...domains import domain_of
from ...spec.machine import MachineSpec
from ..program import InvalidProgram, Player, check_all_invariants, new_machine, set_up
from ..recorded import RecordedStep
from ..shrink.budget import Budget
from ..shrink.passes import Minimized, Shrinker
from ..shrink.trials import earlier_rules
from ..swarm import rule_order
from .best import read


class Reached(Exception):
    """Stands for the error of a failing program in the shrinker's results: the value a candidate reached."""

    def __init__(self, name: str, value: int) -> None:
        super().__init__(f"{name} reached {value}")
        self.name, self.value = name, value


def replay_value(
    spec: MachineSpec, project: Project, base: Any, name: str, steps: Sequence[RecordedStep],
    at_least: int | None = None,
) -> tuple[int | None, int, list[str]]:
    """Run steps from base: (the highest value of name after any step, the steps up to the first that reached
    at_least (all of them without it), each step's lines).

    Raises InvalidProgram where a step may not run, and whatever a step or an invariant raises.
    """
    project.backend.revert(base)
    player = Player(spec, project, strict=True)
    machine = new_machine(spec)
    highest: int | None = None
    with machine._evmstate_stack:
        set_up(machine)
        check_all_invariants(spec, machine)
        for index, step in enumerate(steps, 1):
            player.step(machine, index, step)
            value = read(spec, machine).get(name)
            if value is not None and (highest is None or value > highest):
                highest = value
            if at_least is not None and highest is not None and highest >= at_least:
                return highest, index, player.lines
    return highest, len(steps), player.lines


def shrink_optimum(
    spec: MachineSpec, project: Project, base: Any, name: str, value: int, steps: Sequence[RecordedStep],
    budget: Budget, progress: Callable[[int], None] = lambda steps: None,
) -> Minimized | None:
    """The shortest, simplest program found that still reaches value (its error a Reached), or None when none was
    shorter or simpler than steps."""

    def attempt(candidate: list[RecordedStep]) -> Minimized | None:
        try:
            highest, at, lines = replay_value(spec, project, base, name, candidate, value)
        except (InvalidProgram, Exception):
            return None  # not a program Hypothesis could run, or one that fails: not this optimum
        if highest is None or highest < value:
            return None
        return Minimized(list(candidate[:at]), lines[:at], Reached(name, highest))

    fixed = frozenset(r.name for r in spec.initializers) if spec.style == "decorator" else frozenset()
    domains = {
        (r.name, p.name): d
        for r in (*spec.initializers, *spec.rules) for p in r.params
        if p.strategy is not None and (d := domain_of(p.strategy)) is not None
    }
    shrinker = Shrinker(
        steps, attempt, fixed=fixed, domains=domains, earlier=earlier_rules(spec),
        rank={r.name: i for i, r in enumerate(rule_order(spec.rules))}, budget=budget, progress=progress,
    )
    try:
        return shrinker.run().found
    finally:
        project.backend.revert(base)
