"""Edits of a recorded program the shrinker makes: a step deleted with every step that uses what it
produced (its wait carried over), waits shortened, bundle values numbered again."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

from ...domains import IntDomain
from .. import delays
from ..recorded import RecordedStep, ref_of


@dataclass
class Minimized:
    """The program after the deletion pass and the error its last replay raised."""

    steps: list[RecordedStep]
    lines: list[str]  # each step as the replay printed it: its wait's lines and its call, joined by newlines
    error: BaseException
    interrupted: bool = False

    def program_lines(self) -> list[str]:
        """The program's lines, one each, without the instance line."""
        return [line for step in self.lines for line in step.splitlines()]


def with_users(steps: list[RecordedStep], index: int) -> set[int]:
    """The step at index and every later step that uses a value it produced, directly or not."""
    drop = {index}
    produced = set(steps[index].results)
    for j in range(index + 1, len(steps)):
        if steps[j].refs() & produced:
            drop.add(j)
            produced |= set(steps[j].results)
    return drop


def deletions(steps: list[RecordedStep], fixed: frozenset[str]) -> Iterator[tuple[int, list[RecordedStep], list[int]]]:
    """Each step whose rule is not fixed deleted with its users (with_users): (its index, the program without them, the
    indices in steps of the steps left)."""
    for index, step in enumerate(steps):
        if step.rule not in fixed:
            yield index, *deletion(steps, index)


def deletion(steps: list[RecordedStep], index: int) -> tuple[list[RecordedStep], list[int]]:
    """The step at index deleted with its users: the program without them, and the indices in steps of the steps
    left."""
    gone = with_users(steps, index)
    return without(steps, gone), [j for j in range(len(steps)) if j not in gone]


def without(steps: list[RecordedStep], drop: set[int]) -> list[RecordedStep]:
    """The program without the steps in drop; the time each dropped step waited passes before the next step kept."""
    out: list[RecordedStep] = []
    carried = delays.NO_DELAY
    for j, step in enumerate(steps):
        if j in drop:
            carried = delays.add(carried, step.delay)
            continue
        if carried != delays.NO_DELAY:
            step = step.with_delay(delays.add(carried, step.delay))
            carried = delays.NO_DELAY
        out.append(step)
    return out


def shorten_waits(
    steps: list[RecordedStep], attempt: Callable[[list[RecordedStep]], "Minimized | None"],
    indices: tuple[int, ...] | None = None, parts: tuple[int, ...] = (0, 1),
) -> "Minimized | None":
    """Each wait of the program made as short as it can be while the program still fails: none at all, else by
    bisection.

    Hypothesis shrinks each wait it drew, but a wait the deletion pass added up from several,
    or one left when shrinking ran out of time, may be longer than the failure needs. Most such
    waits are not needed at all: no wait is tried first, one replay where bisection takes one per bit.
    indices: the steps whose waits are shortened (default: every step's); parts: 0 their seconds, 1 their blocks.
    """
    found = None
    best = steps
    for index in range(len(best)) if indices is None else indices:
        for which in parts:  # seconds, then blocks
            delay = best[index].delay
            low, high = 0, delay[which]
            first = True
            while low < high:
                middle = 0 if first else (low + high) // 2
                first = False
                shorter = (middle, delay[1]) if which == 0 else (delay[0], middle)
                result = attempt([s.with_delay(shorter) if j == index else s for j, s in enumerate(best)])
                if result is not None and len(result.steps) == len(best):
                    found, best, high = result, result.steps, middle
                else:
                    low = middle + 1
    return found


def relabel(steps: list[RecordedStep]) -> list[RecordedStep]:
    """Number each bundle's values from 0 again, in the order the program produces them."""
    counters: dict[str, int] = {}
    names: dict[str, str] = {}
    out = []
    for step in steps:
        arguments = {
            k: {"ref": names.get(label, label)} if (label := ref_of(v)) is not None else v
            for k, v in step.arguments.items()
        }
        results = []
        for label in step.results:
            bundle = label.rsplit("_", 1)[0]
            new = f"{bundle}_{counters.get(bundle, 0)}"
            counters[bundle] = counters.get(bundle, 0) + 1
            names[label] = new
            results.append(new)
        out.append(dataclasses.replace(step, arguments=arguments, results=tuple(results)))
    return out


def fits(domains: Mapping[tuple[str, str], Any], candidate: list[RecordedStep]) -> bool:
    """Whether each number a strategy drew is one it could draw: a pass that moves numbers (merge, together) never
    reports one its bounds rule out.
    """
    return all(
        not isinstance(d := domains.get((s.rule, k)), IntDomain) or type(v) is not int or d.contains(v)
        for s in candidate
        for k, v in s.arguments.items()
    )
