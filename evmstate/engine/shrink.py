"""The last shrinking pass: delete steps from a failing program while it still fails the same way.

Hypothesis shrinks the choices that generated a program; a deletion that shifts which bundle
value a later step draws can defeat it, leaving steps that do nothing (a value produced and
used only by steps that could all go). This pass works on the recorded program itself, where
a step names the values it uses, and replays each candidate without Hypothesis. It stops when
no single deletion still fails: the program it returns is 1-minimal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..contracts.project import Project
from ..machine import MachineSpec
from . import delays
from .describe import FailureSignature
from .program import run_program


@dataclass
class Minimized:
    """The program after the deletion pass and the error its last replay raised."""

    steps: list[dict[str, Any]]
    lines: list[str]
    error: BaseException
    interrupted: bool = False


def _refs(step: dict[str, Any]) -> set[str]:
    return {v["ref"] for v in step["arguments"].values() if isinstance(v, dict) and "ref" in v}


def with_users(steps: list[dict[str, Any]], index: int) -> set[int]:
    """The step at index and every later step that uses a value it produced, directly or not."""
    drop = {index}
    produced = set(steps[index].get("results") or [])
    for j in range(index + 1, len(steps)):
        if _refs(steps[j]) & produced:
            drop.add(j)
            produced |= set(steps[j].get("results") or [])
    return drop


def without(steps: list[dict[str, Any]], drop: set[int]) -> list[dict[str, Any]]:
    """The program without the steps in drop; the time each dropped step waited passes before the next step kept."""
    out: list[dict[str, Any]] = []
    carried = delays.NO_DELAY
    for j, step in enumerate(steps):
        if j in drop:
            carried = delays.add(carried, delays.of_record(step))
            continue
        if carried != delays.NO_DELAY:
            step = with_delay(step, delays.add(carried, delays.of_record(step)))
            carried = delays.NO_DELAY
        out.append(step)
    return out


def with_delay(step: dict[str, Any], delay: delays.Delay) -> dict[str, Any]:
    """The recorded step waiting delay before its call."""
    kept = {k: v for k, v in step.items() if k not in ("sleep", "mine")}
    return {**kept, **delays.to_data(delay)}


def shorten_waits(steps: list[dict[str, Any]], attempt: Callable[[list[dict[str, Any]]], "Minimized | None"]) -> "Minimized | None":
    """Each wait of the program made as short as it can be while the program still fails, by bisection.

    Hypothesis shrinks each wait it drew, but a wait the deletion pass added up from several,
    or one left when shrinking ran out of time, may be longer than the failure needs.
    """
    found = None
    best = steps
    for index in range(len(best)):
        for which in (0, 1):  # seconds, then blocks
            delay = delays.of_record(best[index])
            low, high = 0, delay[which]
            while low < high:
                middle = (low + high) // 2
                shorter = (middle, delay[1]) if which == 0 else (delay[0], middle)
                result = attempt([with_delay(s, shorter) if j == index else s for j, s in enumerate(best)])
                if result is not None and len(result.steps) == len(best):
                    found, best, high = result, result.steps, middle
                else:
                    low = middle + 1
    return found


# how many times longer every wait is made when looking for steps a longer wait makes unneeded
LONGER_WAITS = (2, 16)


def relabel(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number each bundle's values from 0 again, in the order the program produces them."""
    counters: dict[str, int] = {}
    names: dict[str, str] = {}
    out = []
    for step in steps:
        arguments = {k: {"ref": names.get(v["ref"], v["ref"])} if isinstance(v, dict) and "ref" in v else v for k, v in step["arguments"].items()}
        results = []
        for label in step.get("results") or []:
            bundle = label.rsplit("_", 1)[0]
            new = f"{bundle}_{counters.get(bundle, 0)}"
            counters[bundle] = counters.get(bundle, 0) + 1
            names[label] = new
            results.append(new)
        out.append({**step, "arguments": arguments, "results": results})
    return out


def remove_steps(
    spec: MachineSpec,
    project: Project,
    base: Any,
    steps: list[dict[str, Any]],
    error: BaseException,
    progress: Callable[[int, int], None] = lambda steps, replays: None,
) -> tuple[Minimized | None, int]:
    """Delete steps while the program still fails with error's signature, and count the replays.

    The program is None when no step could go.

    Each candidate drops one step, or a step that produced bundle values together with every
    step that uses them, and is replayed from base (the chain after the class-level __init__).
    A candidate counts only if every step's preconditions and bundle filters hold where it
    stands, as they did when Hypothesis ran it. The time a dropped step waited still passes,
    before the next step kept (a step may be needed for its wait alone); a step that keeps its
    call may lose its wait. Decorator-style initializers always stay: a
    Hypothesis machine runs each of them once. progress(steps, replays) follows the pass.
    """
    backend = project.backend
    target = FailureSignature.of(error)
    fixed = frozenset(r.name for r in spec.initializers) if spec.style == "decorator" else frozenset()
    replays = 0

    def attempt(candidate: list[dict[str, Any]]) -> Minimized | None:
        nonlocal replays
        backend.revert(base)
        replays += 1
        try:
            ran = run_program(spec, project, candidate, strict=True)
        except Exception:
            # InvalidProgram, a value that cannot be rebuilt, or an error outside any step
            # (leaving a context manager): not a program that fails the same way
            return None
        if ran.error is None or FailureSignature.of(ran.error) != target:
            return None
        # it may now fail before its last step: what follows is not needed
        return Minimized(candidate[: ran.at], ran.lines[: ran.at], ran.error)

    return minimize(steps, attempt, fixed, lambda steps: progress(steps, replays)), replays


def minimize(
    steps: list[dict[str, Any]],
    attempt: Callable[[list[dict[str, Any]]], Minimized | None],
    fixed: frozenset[str] = frozenset(),
    progress: Callable[[int], None] = lambda steps: None,
) -> Minimized | None:
    """The deletion pass over steps, given attempt(candidate): its replay when it fails the same way, else None.

    Steps whose rule is in fixed always stay. None when no step could go and no wait be shortened.
    """
    best = list(steps)
    found: Minimized | None = None

    def delete(program: list[dict[str, Any]], first: bool) -> None:
        """Single deletions from program until none still fails; best and found follow it (after the first pass: when shorter)."""
        nonlocal best, found
        improved = True
        while improved:
            improved = False
            index = len(program) - 1
            while index >= 0:
                if program[index]["rule"] not in fixed:
                    result = attempt(without(program, with_users(program, index)))
                    if result is None and delays.of_record(program[index]) != delays.NO_DELAY:
                        result = attempt([with_delay(s, delays.NO_DELAY) if j == index else s for j, s in enumerate(program)])
                    if result is not None:
                        program, improved = result.steps, True
                        if first or len(program) < len(best):
                            best, found = program, result
                    progress(len(best))
                index = min(index - 1, len(program) - 1)

    try:
        delete(best, first=True)
        # Hypothesis shrinks each wait toward the least that fails with the steps around it,
        # which can leave steps needed only because the wait is short (ten rewards funded where
        # one would do, had the clock run longer). With every wait longer, the same deletions
        # are tried again; shorten_waits below takes the waits back down.
        for factor in LONGER_WAITS:
            if all(delays.of_record(s) == delays.NO_DELAY for s in best):
                break
            longer = attempt([with_delay(s, delays.scale(delays.of_record(s), factor)) for s in best])
            if longer is not None:
                if len(longer.steps) < len(best):  # it fails sooner
                    best, found = longer.steps, longer
                delete(longer.steps, first=False)
        shorter = shorten_waits(best, attempt)
        if shorter is not None:
            best, found = shorter.steps, shorter
        if found is None:
            return None
        # the same program with its bundle values numbered from 0, replayed for its lines
        final = attempt(relabel(best))
        if final is not None and len(final.steps) == len(best):
            found = final
        return found
    except KeyboardInterrupt:
        if found is None:
            raise
        found.interrupted = True
        return found
