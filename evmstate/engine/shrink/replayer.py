"""Recorded programs replayed from checkpoints: a program pays only for the steps it does not share with one run before.

The shrinker tries many programs that differ from the best one in a few steps: a step deleted,
an argument made smaller. Each is replayed from a checkpoint taken after the steps it shares
with a program already run: the chain's snapshot there, and a deep copy of the machine's own
Python state (its attributes and the bundle values; evmstate's handles on the chain, such as
contracts and accounts, are shared, not copied: contracts.base.Handle). A machine whose state
cannot be copied, or that keeps a context manager open (self.enter()), is replayed from the
start every time, as before.

A focused replay checks only some of the invariants (shrink/trials.py: the one the failure names,
or none for a rule's failure), which is most of a replay's cost on a machine with several: a
candidate that does not fail so is not the failure either way. It checks them after the candidate's
last step only: an invariant a step broke mostly stays broken (a balance the books lost, a share
priced wrong), and a candidate that fails so is replayed in full after it, checking every invariant
after every step, which finds the step it fails at. A candidate whose invariant breaks at one step
and holds again by its last is not taken (its shorter program, cut where it failed, may be by
another move). A checkpoint says whether every
step before it was checked in full (exact); a replay in full resumes only from an exact one, so
what it finds does not rest on a focused replay's state, whatever the invariants do. A focused
replay checks no invariant after a step when an earlier replay checked them after the same steps
from the start and they held (Replayer.held): a candidate that changed an early step takes the
checkpoints past it, and the next candidate replays the best program's steps up to its own change
again, from an earlier checkpoint.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass
from typing import Any, Callable, cast

from ...contracts.project import Project
from ...evm.base import Snapshots
from ...spec.machine import MachineSpec
from ..program import InvalidProgram, Player, ProgramOutcome, check_all_invariants, new_machine, set_up, tear_down
from ..recorded import RecordedStep


# programs remembered to have held their invariants, for each set of invariants checked, at most
MAX_HELD = 50_000


@dataclass
class _Checkpoint:
    keys: tuple[str, ...]  # the steps run before it
    snapshot: int
    state: tuple[dict[str, Any], dict[str, Any], list[str]]  # the machine's attributes, the bundle values, the lines
    exact: bool  # every step before it checked every invariant
    kept: Any = None  # the chain's state here as the backend keeps it (evm.base.Kept), restorable after any revert


def _shared(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many steps a and b start with alike."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class Replayer:
    """Runs recorded programs of one machine (strictly, as the shrinker needs) from the deepest checkpoint each shares.

    base is the chain after the class-level __init__. runs counts the programs run (a focused one
    confirmed in full counts once), steps the steps actually executed (those shared with a
    checkpoint are not).
    """

    def __init__(self, spec: MachineSpec, project: Project, base: Any) -> None:
        self.spec = spec
        self.project = project
        self.backend = project.backend
        self.base = base
        self.checkpoints: list[_Checkpoint] = []  # along the last program run, shallowest first
        # the checkpoints along the best program (along()), by their steps, kept as the backend keeps states: a
        # candidate resumes from the deepest it shares even after one that changed an earlier step reverted below it
        self.keeps = self.backend.capabilities.keeps
        self.keeper = cast(Snapshots, self.backend)  # keep() and restore(), while keeps
        self.kept: dict[tuple[str, ...], _Checkpoint] = {}
        self.best: tuple[str, ...] = ()
        self.use_kept = True  # False while a replay must run its steps from a stack checkpoint (forget_after())
        self.on_step: Callable[[int], None] | None = None  # told each step's index before it runs (Trials.accesses)
        self.restored = 0  # replays resumed from a kept checkpoint
        self.copyable = True
        self.runs = 0
        self.steps = 0
        # the invariants checked (None: all) -> the programs (steps from the start) after whose last step a replay
        # checked them and they held: a focused replay checks them there no more (the same steps from the start, the
        # same state), mostly a prefix of the best program replayed again after a candidate that changed an earlier
        # step took the checkpoints past it
        self.held: dict[frozenset[str] | None, set[tuple[str, ...]]] = {}

    def run(
        self, steps: list[RecordedStep], only: frozenset[str] | None = None, *, counted: bool = True
    ) -> ProgramOutcome:
        """The program's outcome, as run_program(strict=True) gives it; raises InvalidProgram where a step may not run.

        only: the invariants checked (None: all, as a run checks them). counted=False: a replay that confirms one
        counted before.
        """
        self.runs += counted
        keys = tuple(s.key for s in steps)
        player, machine, start, error, exact = self._resume(keys, only)
        if error is not None:
            return ProgramOutcome(error, 0, [])
        held = self.held.setdefault(only, set())
        if len(held) > MAX_HELD:
            held.clear()
        known = self.held.get(None, set()) if only is not None else set()
        # a focused replay takes no checkpoint past where it leaves the best program: the next candidates change the
        # best program too, and one that fails as the target does is replayed in full, which takes them
        shared = len(keys) if only is None else _shared(keys, self.best)
        last = len(steps) - 1
        with machine._evmstate_stack:
            for index in range(start, len(steps)):
                if index <= shared:
                    self._checkpoint(keys[:index], player, machine, exact)
                self.steps += 1
                upto = keys[: index + 1]
                # focused: checked after the last step alone, and not where an earlier replay found them holding
                checked = only is None or (index == last and upto not in held and upto not in known)
                player.only = only if checked else frozenset()
                if self.on_step is not None:
                    self.on_step(index)
                try:
                    player.step(machine, index + 1, steps[index])
                except InvalidProgram:
                    raise
                except Exception as exc:
                    return ProgramOutcome(exc, index + 1, player.lines)
                if checked:
                    held.add(upto)
            try:
                tear_down(machine)
            except Exception as exc:
                return ProgramOutcome(exc, len(steps) + 1, player.lines)
        return ProgramOutcome(None, len(steps) + 1, player.lines)

    def along(self, keys: tuple[str, ...]) -> None:
        """The best program is now keys (its steps'): keep the checkpoints along it, those of the last replay among
        them."""
        self.best = keys
        if not self.keeps:
            return
        points = [*self.kept.values(), *self.checkpoints]
        self.kept = {}
        for point in points:
            n = len(point.keys)
            if point.kept is not None and keys[:n] == point.keys:
                known = self.kept.get(point.keys)
                if known is None or point.exact and not known.exact:
                    self.kept[point.keys] = point

    def forget_after(self, n: int) -> None:
        """Forget the checkpoints after more than n steps: the next replay runs every step from the n-th on (use_kept
        off: no kept checkpoint past it either)."""
        while self.checkpoints and len(self.checkpoints[-1].keys) > n:
            self.checkpoints.pop()

    def close(self) -> None:
        """Forget the checkpoints and put the chain back at base."""
        self.checkpoints.clear()
        self.kept.clear()
        self.backend.revert(self.base)

    def _resume(
        self, keys: tuple[str, ...], only: frozenset[str] | None
    ) -> tuple[Player, Any, int, BaseException | None, bool]:
        """(player, machine, steps already run, None, exact) from the deepest checkpoint that is a prefix of keys (an
        exact one for a replay in full), else from base; exact: the checkpoints this replay takes are.

        The fourth item is the error of the first invariant check, when it fails (nothing to resume then).
        """
        player = Player(self.spec, self.project, strict=True, only=only)
        point = self._kept_for(keys, only)
        if point is not None:
            # deeper than any checkpoint on the stack: the chain as kept there (the stack's snapshots are gone)
            self.keeper.restore(point.kept)
            self.checkpoints = [_Checkpoint(point.keys, self.backend.snapshot(), point.state, point.exact, point.kept)]
            self.restored += 1
        while self.checkpoints:
            point = self.checkpoints[-1]
            n = len(point.keys)
            usable = point.exact or only is not None
            if usable and n <= len(keys) and keys[:n] == point.keys and self.backend.has_snapshot(point.snapshot):
                self.backend.revert(point.snapshot)  # later snapshots (and their checkpoints) are gone
                attributes, refs, lines = copy.deepcopy(point.state)
                machine = new_machine(self.spec)
                machine.__dict__.update(attributes)
                player.refs, player.lines = refs, lines
                return player, machine, n, None, point.exact and only is None
            self.checkpoints.pop()
        self.backend.revert(self.base)
        machine = new_machine(self.spec)
        set_up(machine)
        try:
            check_all_invariants(self.spec, machine, only=only)
        except Exception as exc:
            with contextlib.suppress(Exception):
                machine._evmstate_stack.close()
            return player, machine, 0, exc, only is None
        return player, machine, 0, None, only is None

    def _kept_for(self, keys: tuple[str, ...], only: frozenset[str] | None) -> _Checkpoint | None:
        """The deepest kept checkpoint keys start with (an exact one for a replay in full), when it is deeper than the
        deepest usable one on the stack."""
        if not self.kept or not self.use_kept:
            return None
        stack = 0
        for point in reversed(self.checkpoints):
            n = len(point.keys)
            if (point.exact or only is not None) and keys[:n] == point.keys:
                stack = n
                break
        for n in range(min(len(keys), len(self.best)), stack, -1):
            point = self.kept.get(keys[:n])  # type: ignore[assignment]
            if point is not None and (point.exact or only is not None):
                return point
        return None

    def _checkpoint(self, keys: tuple[str, ...], player: Player, machine: Any, exact: bool) -> None:
        """Keep the state after keys, unless it is kept already or cannot be copied."""
        if not self.copyable:
            return
        if self.checkpoints and self.checkpoints[-1].keys == keys:
            return
        if getattr(machine, "_evmstate_entered", False):
            self.copyable = False  # a context manager is open: its state is outside the machine
            self.checkpoints.clear()
            return
        attributes = {k: v for k, v in vars(machine).items() if k not in ("_evmstate_stack", "enter")}
        try:
            state = copy.deepcopy((attributes, player.refs, player.lines))
        except Exception:
            self.copyable = False
            self.checkpoints.clear()
            return
        below = self.checkpoints[-1].kept if self.checkpoints else None
        snapshot = self.backend.snapshot()
        # kept as the backend keeps states: along() keeps it when this program becomes the best
        kept = self.keeper.keep(self.base, after=below) if self.keeps else None
        self.checkpoints.append(_Checkpoint(keys, snapshot, state, exact, kept))
