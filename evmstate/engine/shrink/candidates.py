"""Trying a shrinker's candidates in order: the first the shrinker would keep wins, whoever replays it.

A pass of the shrinker (shrink.py) tries candidates one after another until one still fails and
is kept; while none is, the best program stays, and so do the candidates that follow. So a pass
hands them over as an iterator, and a Tries answers with the first one kept: InOrder replays
them here one by one; evmstate.scale.shrinking replays a batch at once on helper processes and
keeps the first of the batch in this order, so the program ends the same either way.

helpers is how a worker process says it can lend helpers: a factory given the Judge of the
failure being shrunk, returning a Tries (None: in order here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol

from ...hooks import Current

if TYPE_CHECKING:
    from ..recorded import RecordedStep

Program = list["RecordedStep"]
Attempt = Callable[[Program], Any]  # the shrinker's own: a Minimized, or None (counts the run, checks the budget)
Accept = Callable[[Any], bool]  # whether an attempt's result would be kept


class Tries(Protocol):
    """Finds the first candidate kept, in the order given."""

    workers: int  # processes replaying candidates, this one included
    elsewhere: int  # candidates replayed by the others

    def first(
        self, candidates: Iterable[tuple[Any, Program]], attempt: Attempt, accept: Accept
    ) -> tuple[Any, Any] | None:
        """(tag, result) of the first (tag, candidate) whose result accept() takes, else None."""
        ...

    def close(self) -> None: ...


class InOrder:
    """One candidate after another, in this process."""

    workers = 1
    elsewhere = 0

    def first(
        self, candidates: Iterable[tuple[Any, Program]], attempt: Attempt, accept: Accept
    ) -> tuple[Any, Any] | None:
        for tag, candidate in candidates:
            result = attempt(candidate)
            if accept(result):
                return tag, result
        return None

    def close(self) -> None:
        pass


@dataclass
class Judge:
    """What a helper needs of the failure being shrunk (it runs in a copy of this process, forked)."""

    # a candidate's replay: (a Minimized when it fails the same way, else None; the note when it
    # met an error of the machine instead); no caching, no counting
    judge: Callable[[Program], tuple[Any, str | None]]
    cached: Callable[[Program], tuple[bool, Any]]  # (whether it was replayed before, its result)
    # a candidate replayed elsewhere did not fail the same way (and its note)
    rejected: Callable[[Program, str | None], None]


helpers = Current()  # Callable[[Judge], Tries | None], or None


def tries_for(judge: Judge) -> Tries:
    """The helpers this process may use for a failure's candidates, or InOrder."""
    factory = helpers.get()
    made = factory(judge) if factory is not None else None
    return made if made is not None else InOrder()


class _Ahead(Exception):
    """Raised by probe_in_batches' oracle once it has collected a batch of questions."""


def probe_in_batches(
    minimize: Callable[[Callable[..., bool]], Any],
    build: Callable[[Any], Program | None],
    first: Callable[[Iterator[tuple[Any, Program]]], Any],
    width: int,
    repaired: Callable[[Program], bool] | None = None,
) -> None:
    """Run minimize(fails) (a Domain.minimize) with fails answered a batch at a time, exactly as one at a time.

    minimize asks fails(value, repair=...) and goes on by the answer. While no value is kept, the
    next questions are those asked had every answer so far been no: minimize is run again from
    the start with the answers known, then no for the rest, up to width questions, and first()
    (the shrinker's first_shorter over the values' programs, build(value); None: no without a
    replay) finds the first kept. A question with repair=True ends a batch when repaired is given:
    unless kept, repaired(its program) decides it, as the shrinker's fails() does.
    """
    answers: list[bool] = []
    while True:
        asked: list[tuple[Any, bool]] = []

        told = iter(list(answers))

        def oracle(value: Any, repair: bool = False) -> bool:
            answer = next(told, None)
            if answer is not None:
                return answer
            asked.append((value, repair))
            if len(asked) >= width or (repair and repaired is not None):
                raise _Ahead
            return False

        try:
            minimize(oracle)
        except _Ahead:
            pass
        if not asked:
            return
        programs = [build(value) for value, _ in asked]
        kept = first((k, p) for k, p in enumerate(programs) if p is not None)
        if kept is not None:
            answers += [False] * kept + [True]
            continue
        last, repair = programs[-1], asked[-1][1]
        answers += [False] * (len(asked) - 1) + [
            bool(repair and repaired is not None and last is not None and repaired(last))
        ]
