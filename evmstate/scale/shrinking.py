"""Shrinking on spare workers: a failure's candidates replayed by helper processes, the same one kept as in one process.

With -n N, a worker shrinking a failure says so to the parent ("shrinking"); once no task is
left to start (the run's last machines are running, or a campaign's time is up), the parent
lends it the slots no worker uses (Lend). For each slot the worker forks a helper: a copy of
itself, with the same deployment and the same checkpoints, that replays the candidates it is
sent from its own snapshots and answers whether each fails the same way (engine/shrink/candidates.py's
Judge). The shrinker's passes hand over their candidates in the order they would try them; a
batch goes out at once, one here and one to each helper, and the first of the batch in that
order that fails the same way is kept (with the error the helper raised, pickled; replayed here
when it does not pickle), the answers after it dropped. So the program is the one a single process reaches, byte for
byte.

The shrink budget still bounds it (the candidate replayed here checks it, once a batch), and so
does Ctrl-C: helpers ignore SIGINT, SIGTERM and SIGHUP (a terminal or `timeout` sends them to the
whole process group), the worker stops as in one process, and its helpers are ended with the
shrink, or by the kernel when the worker itself ends (lifeline.die_with_parent). A helper that
dies leaves its candidate to this process. Where Python has no os.fork (Windows), shrinking stays
in one process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import multiprocessing
import os
import pickle
import queue
import signal
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Iterator

from ..engine.shrink import candidates
from ..engine.shrink.candidates import Accept, Attempt, Judge, Program
from ..engine.events import MachineFinished
from ..hooks import Current
from ..engine.shrink.passes import Minimized
from .lifeline import STOP_SIGNALS, die_with_parent

HELPERS_AT_MOST = 7  # helper processes one shrink takes, however many slots are spare
# seconds a replay takes here (on average, lately) before helpers take part: a cheaper one costs
# less than handing it to another process and waiting for it to be scheduled
WORTH_A_HELPER = 0.02


@dataclass(frozen=True)
class Lend:
    """The parent to a shrinking worker (in its inbox): count more slots for the shrink that said token."""

    token: Any
    count: int = 1


# -- in the worker -----------------------------------------------------------------------


class Slots:
    """A shrinking worker's side of the loan: says it shrinks, counts the slots lent to it, says when it is done."""

    _made = itertools.count()

    def __init__(self, inbox: Any, send: Callable[[str, Any], None]) -> None:
        self.inbox, self.send = inbox, send
        self.token = (os.getpid(), next(self._made))
        self.granted = 0
        send("shrinking", self.token)

    def poll(self) -> int:
        """The slots lent so far (reads the inbox without waiting)."""
        while True:
            try:
                item = self.inbox.get_nowait()
            except (queue.Empty, OSError, EOFError):
                return self.granted
            if item is None:  # the pool closes: leave it for the worker's loop
                self.inbox.put(None)
                return self.granted
            if isinstance(item, Lend) and item.token == self.token:
                self.granted += item.count

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send("shrunk", self.token)


@dataclass
class Tally:
    """What helpers did for the task this worker runs: the most processes at once, the candidates they replayed."""

    workers: int = 1
    replays: int = 0


# this worker's, set anew for each task it runs (lending)
TALLY = Current(Tally())


@contextlib.contextmanager
def lending(inbox: Any, send: Callable[[str, Any], None]) -> Iterator[None]:
    """While inside (a worker running a task), a failure shrunk here may use helpers the parent lends."""
    TALLY.set(Tally())
    if not hasattr(os, "fork"):
        yield
        return
    with candidates.helpers.using(lambda judge: Helpers(judge, Slots(inbox, send))):
        yield


def told(result: MachineFinished) -> MachineFinished:
    """result, its shrink report saying what helpers did (the engine's report knows one process)."""
    failure = result.failure
    tally = TALLY.value
    if failure is None or failure.shrink is None or tally.workers == 1:
        return result
    report = dataclasses.replace(failure.shrink, workers=tally.workers, helped=tally.replays)
    return dataclasses.replace(result, failure=dataclasses.replace(failure, shrink=report))


@dataclass
class _Helper:
    pid: int
    conn: Any
    owed: int = 0  # answers to read and drop: candidates after the one kept
    alive: bool = True

    def ask(self, candidate: Program) -> bool:
        try:
            self._drop_owed()
            self.conn.send_bytes(pickle.dumps(candidate))
            return True
        except (OSError, EOFError, ValueError):
            self.alive = False
            return False

    def answer(self) -> tuple[int | None, str | None, bytes | None] | None:
        """(steps kept of the candidate when it fails the same way, else None; the note; its lines and error, pickled),
        or None when the helper died.
        """
        try:
            return pickle.loads(self.conn.recv_bytes())
        except (OSError, EOFError, ValueError):
            self.alive = False
            return None

    def _drop_owed(self) -> None:
        while self.owed:
            self.conn.recv_bytes()
            self.owed -= 1


def _serve(conn: Any, judge: Callable[[Program], tuple[Any, str | None]]) -> None:
    """A helper's life: replay each candidate sent, answer, until the worker closes its end."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)  # the worker decides what a Ctrl-C stops
    code = 0
    try:
        while True:
            try:
                candidate = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                break
            result, note = judge(candidate)
            found = None
            if result is not None:
                with contextlib.suppress(Exception):  # an error that does not pickle: the worker replays it
                    found = pickle.dumps((result.lines, result.error))
            conn.send_bytes(pickle.dumps((None if result is None else len(result.steps), note, found)))
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _found(candidate: Program, kept: int, found: bytes | None) -> Minimized | None:
    """A helper's find as the shrinker's result, its error as the helper raised it (without its traceback:
    shrink_program replays the program it ends with).
    """
    if found is None:
        return None
    try:
        lines, error = pickle.loads(found)
    except Exception:
        return None
    return Minimized(candidate[:kept], lines, error)


@dataclass
class _Entry:
    tag: Any
    candidate: Program
    where: str  # "here", "cached" or "away"
    helper: _Helper | None = None


class Helpers:
    """A candidates.Tries over this process and the helpers forked for the slots lent to it."""

    def __init__(self, judge: Judge, slots: Slots) -> None:
        self.judge = judge
        self.slots = slots
        self.helpers: list[_Helper] = []
        self.workers = 1  # the most processes that replayed candidates at once, this one included
        self.elsewhere = 0
        self.replay_time: float | None = None  # seconds a replay took here, averaged over the last few

    def _grow(self) -> None:
        while len(self.helpers) < min(self.slots.poll(), HELPERS_AT_MOST):
            ours, theirs = multiprocessing.Pipe()
            worker = os.getpid()
            pid = os.fork()
            if pid == 0:  # the helper: a copy of this process, the same chain and checkpoints
                die_with_parent(worker)
                ours.close()
                for h in self.helpers:
                    h.conn.close()
                _serve(theirs, self.judge.judge)
            theirs.close()
            self.helpers.append(_Helper(pid, ours))
        self.workers = max(self.workers, 1 + sum(h.alive for h in self.helpers))

    def first(
        self, candidates: Iterable[tuple[Any, Program]], attempt: Attempt, accept: Accept
    ) -> tuple[Any, Any] | None:
        if self.replay_time is not None and self.replay_time >= WORTH_A_HELPER:
            self._grow()
        pending = iter(candidates)
        while True:
            batch, found = self._batch(pending, attempt, accept)
            if found is not None:
                return found
            if not batch:
                return None
            found = self._settle(batch, attempt, accept)
            if found is not None:
                return found

    def _batch(
        self, pending: Iterator[tuple[Any, Program]], attempt: Attempt, accept: Accept
    ) -> tuple[list[_Entry], tuple[Any, Any] | None]:
        """The next candidates: one to replay here, one for each live helper (sent now), and those replayed before.

        Those replayed before the one here are answered at once, (tag, result) when one is kept.
        """
        worth = self.replay_time is not None and self.replay_time >= WORTH_A_HELPER
        free = [h for h in self.helpers if h.alive] if worth else []
        batch: list[_Entry] = []
        while not batch or free:
            try:
                tag, candidate = next(pending)
            except StopIteration:
                break
            if self.judge.cached(candidate)[0]:
                if not batch:  # before any replay: answered now, in order
                    result = attempt(candidate)
                    if accept(result):
                        return [], (tag, result)
                    continue
                batch.append(_Entry(tag, candidate, "cached"))
            elif not batch:
                batch.append(_Entry(tag, candidate, "here"))
            else:
                helper = free.pop(0)
                sent = helper.ask(candidate)
                batch.append(_Entry(tag, candidate, "away" if sent else "cached", helper if sent else None))
        return batch, None

    def _settle(self, batch: list[_Entry], attempt: Attempt, accept: Accept) -> tuple[Any, Any] | None:
        """The first entry of the batch kept, in order; the answers after it are dropped."""
        started = time.perf_counter()
        here = attempt(batch[0].candidate)  # while the helpers replay theirs
        took = time.perf_counter() - started
        self.replay_time = took if self.replay_time is None else 0.8 * self.replay_time + 0.2 * took
        for k, entry in enumerate(batch):
            if entry.where == "away":
                assert entry.helper is not None
                answer = entry.helper.answer()
                if answer is None:  # the helper died: its candidate is replayed here
                    result = attempt(entry.candidate)
                else:
                    self.elsewhere += 1
                    kept, note, found = answer
                    if kept is None or not accept(SimpleNamespace(steps=entry.candidate[:kept])):
                        self.judge.rejected(entry.candidate, note)
                        continue
                    result = _found(entry.candidate, kept, found) or attempt(entry.candidate)
            else:
                result = here if k == 0 else attempt(entry.candidate)
            if accept(result):
                for later in batch[k + 1 :]:
                    if later.where == "away" and later.helper is not None and later.helper.alive:
                        later.helper.owed += 1
                return entry.tag, result
        return None

    def close(self) -> None:
        for h in self.helpers:
            with contextlib.suppress(OSError):
                h.conn.close()
            with contextlib.suppress(OSError):
                os.kill(h.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(h.pid, 0)
        self.helpers.clear()
        self.slots.close()
        tally = TALLY.value
        tally.workers = max(tally.workers, self.workers)
        tally.replays += self.elsewhere


# -- in the parent -----------------------------------------------------------------------


@dataclass
class Loans:
    """The parent's book of shrinking workers and the slots lent to each."""

    asking: dict[int, Any] = field(default_factory=dict)  # worker -> token of the shrink it said
    lent: dict[int, int] = field(default_factory=dict)

    def heard(self, worker: int, kind: str, token: Any) -> None:
        if kind == "shrinking":
            self.asking[worker], self.lent[worker] = token, 0
        elif self.asking.get(worker) == token:
            self.ended(worker)

    def ended(self, worker: int) -> None:
        self.asking.pop(worker, None)
        self.lent.pop(worker, None)

    def lend(self, spare: int, give: Callable[[int, Lend], None]) -> None:
        """spare slots (less those lent) to the shrinking workers, one at a time in turn."""
        spare -= sum(self.lent.values())
        while spare > 0:
            takers = [w for w in self.asking if self.lent[w] < HELPERS_AT_MOST]
            if not takers:
                return
            for worker in takers[:spare]:
                give(worker, Lend(self.asking[worker]))
                self.lent[worker] += 1
                spare -= 1
