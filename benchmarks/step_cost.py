"""Where a step's time goes outside the draws: µs per step by part, and steps/s, on both backends.

Two machines, as benchmarks/speed.py runs them: the bundled ERC20 machine (machines/erc20.py) and
the snekmate ERC20 machine with invariants over every account (speed.SNEKMATE_MACHINE); 50-step
runs from seed 0, call cache on, the search's default signals.

Each figure is measured with evmstate's hand-written fast paths on (as shipped) and off
(hooks.FAST_PATHS: every getter read through the codec), in one run, so that the difference is
on the same machine at the same load. Run it on an older checkout (PYTHONPATH=that checkout) for
the figures before the other changes; there only "on" is printed.

Rows (µs per step, each part's own time, the timed parts it calls counted apart):
- draws: choosing the step's rule and arguments (Program.draw_step: Hypothesis's strategy layer);
- encode / decode: arguments to calldata, return data to values (Codec);
- EVM call: the backend running the call (less the sight, below);
- sight: revm only, the same call run again where the search can see its path (evm/revm/sight.py);
- receipt and events: building the Receipt, decoding its events when read;
- contract layer: the rest of ContractFunction.call/transact (options, sender, failure check);
- getter reads: public getters answered from storage (encode and decode apart);
- machine code: the machine's own rules and invariants, less the calls they make;
- search: the search session's book-keeping around each step (coverage, feedback, guidance);
- engine and Hypothesis: the rest (the run loop, Hypothesis around the draws, snapshots).
Each timed call adds a little time to the part that makes it (the calibrated figure is printed);
steps/s are from separate runs without timers.

Run: python benchmarks/step_cost.py [--quick]    (revm figures need pip install "evmstate[revm]")
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from evmstate import config as config_mod
from evmstate import hooks
from evmstate.config import BackendConfig
from evmstate.contracts import codec, contract, events, receipt
from evmstate.engine import example
from evmstate.evm.revm import backend as revm, sight
from evmstate.evm.pyevm.backend import PyEVMBackend
from evmstate.runner import Overrides, RunOptions, run
from evmstate.search import session

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import speed  # noqa: E402  (the project with the snekmate machine)

MACHINES = (("bundled ERC20", "erc20.py"), ("snekmate ERC20", "snek_erc20.py"))
SWITCH = getattr(hooks, "FAST_PATHS", None)  # absent before the fast paths it switches


class Timers:
    """Exclusive time per (phase, part): a timed function's time less that of the timed functions it calls."""

    def __init__(self) -> None:
        self.own: collections.Counter[tuple[str, str]] = collections.Counter()
        self.calls = 0
        self.stack: list[list[float]] = []  # per open timer: [time spent in timed callees]
        self.phase = "rule"

    def wrap(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        stack, clock, own = self.stack, time.perf_counter, self.own

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [0.0]
            stack.append(frame)
            started = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - started
                stack.pop()
                own[(self.phase, part)] += spent - frame[0]
                self.calls += 1
                if stack:
                    stack[-1][0] += spent

        return timed

    def in_phase(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def phased(*args: Any, **kwargs: Any) -> Any:
            before, self.phase = self.phase, phase
            try:
                return fn(*args, **kwargs)
            finally:
                self.phase = before

        return phased


def overhead() -> float:
    """µs one timed call adds, measured on a function that does nothing."""
    timers = Timers()
    timed, bare = timers.wrap("x", lambda: None), lambda: None
    best = {}
    for fn in (timed, bare) * 5:
        started = time.perf_counter()
        for _ in range(20_000):
            fn()
        best[fn] = min(best.get(fn, 1.0), (time.perf_counter() - started) / 20_000)
    return (best[timed] - best[bare]) * 1e6


def _timed_getters(timers: Timers) -> list[tuple[Any, str, Any]]:
    """The getter reads, timed: each reader as it is made (contracts/getters.py), or Contract._read before it."""
    if hasattr(contract, "reader"):
        make = contract.reader

        def timed_reader(*args: Any, **kwargs: Any) -> Any:
            return timers.wrap("getter reads", make(*args, **kwargs))

        return [(contract, "reader", timed_reader)]
    return [(contract.Contract, "_read", timers.wrap("getter reads", contract.Contract._read))]


def _patches(timers: Timers) -> list[tuple[Any, str, Any]]:
    """(owner, attribute, replacement) of every timed function."""
    w = timers.wrap
    found = [
        (example.Example, "draw_step", w("draws", example.Example.draw_step)),
        (example.Example, "execute", w("machine code", example.Example.execute)),
        (example.Example, "check_invariants", timers.in_phase("invariants", w("machine code", example.Example.check_invariants))),
        (codec.Codec, "encode", w("encode", codec.Codec.encode)),
        (codec.Codec, "decode", w("decode", codec.Codec.decode)),
        (contract.ContractFunction, "call", w("contract layer", contract.ContractFunction.call)),
        (contract.ContractFunction, "transact", w("contract layer", contract.ContractFunction.transact)),
        (contract, "Receipt", w("receipt and events", contract.Receipt)),
        (events.EventDecoder, "decode", w("receipt and events", events.EventDecoder.decode)),
        (receipt.Receipt, "events", property(w("receipt and events", receipt.Receipt.events.fget))),
        (PyEVMBackend, "transact", w("EVM call", PyEVMBackend.transact)),
        (PyEVMBackend, "call", w("EVM call", PyEVMBackend.call)),
        (sight.Sight, "see", w("sight", sight.Sight.see)),
        (session.Search, "step_finished", w("search", session.Search.step_finished)),
        (session.Search, "step_started", w("search", session.Search.step_started)),
        *_timed_getters(timers),
    ]
    if revm.available():
        found += [(revm.RevmBackend, "transact", w("EVM call", revm.RevmBackend.transact)), (revm.RevmBackend, "call", w("EVM call", revm.RevmBackend.call))]
    return found


@contextlib.contextmanager
def fast_paths(on: bool) -> Iterator[None]:
    if SWITCH is None:
        yield
    else:
        with SWITCH.using(on):
            yield


def measure(root: Path, machine: str, backend: str, examples: int, timers: Timers | None) -> tuple[float, int]:
    """(seconds, steps) of one run of the machine: seed 0, 50-step runs, a fresh example database."""
    cfg = config_mod.load(root)
    cfg = dataclasses.replace(cfg, backend=BackendConfig(name=backend))
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    options = RunOptions((str(root / "machines" / machine),), overrides=Overrides(seed=0, max_examples=examples, stateful_step_count=50), save_failures=False)
    patches = _patches(timers) if timers is not None else []
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    for owner, name, new in patches:
        setattr(owner, name, new)
    try:
        (result,) = run(cfg, options, lambda e: None).results
    finally:
        for owner, name, old in saved:
            setattr(owner, name, old)
    assert result.status == "passed", result.failure or result.error
    return result.elapsed, result.steps


ROWS = (
    ("draws", "rule", "draws"),
    ("rule: encode", "rule", "encode"),
    ("rule: EVM call", "rule", "EVM call"),
    ("rule: sight (the search's re-run)", "rule", "sight"),
    ("rule: decode", "rule", "decode"),
    ("rule: receipt and events", "rule", "receipt and events"),
    ("rule: contract layer", "rule", "contract layer"),
    ("rule: machine code", "rule", "machine code"),
    ("invariants: getter reads", "invariants", "getter reads"),
    ("invariants: encode", "invariants", "encode"),
    ("invariants: EVM call", "invariants", "EVM call"),
    ("invariants: decode", "invariants", "decode"),
    ("invariants: contract layer", "invariants", "contract layer"),
    ("invariants: machine code", "invariants", "machine code"),
    ("search book-keeping", "rule", "search"),
)


def breakdown(root: Path, machine: str, backend: str, examples: int, timers: Timers) -> dict[str, float]:
    """µs per step by row for one timed run, with the timed calls, 'engine and Hypothesis' and 'total'."""
    listed = {(phase, part) for _, phase, part in ROWS}
    elapsed, steps = measure(root, machine, backend, examples, timers)
    per = 1e6 / steps
    table = {label: timers.own[(phase, part)] * per for label, phase, part in ROWS}
    table["(other timed parts)"] = sum(s for key, s in timers.own.items() if key not in listed) * per
    table["engine and Hypothesis"] = (elapsed - sum(timers.own.values())) * per
    table["total"] = elapsed * per
    table["timed calls per step"] = timers.calls / steps
    return table


def compare(root: Path, machine: str, backend: str, examples: int, repeats: int, modes: tuple[bool, ...]) -> tuple[dict[bool, dict[str, float]], dict[bool, float]]:
    """Per mode (fast paths on, off): the breakdown and steps/s without timers, medians of repeats.

    The modes take turns run by run, so that the machine's load weighs on both alike.
    """
    tables: dict[bool, list[dict[str, float]]] = {on: [] for on in modes}
    rates: dict[bool, list[float]] = {on: [] for on in modes}
    for _ in range(repeats):
        for on in modes:
            with fast_paths(on):
                tables[on].append(breakdown(root, machine, backend, examples, Timers()))
                elapsed, steps = measure(root, machine, backend, examples, None)
                rates[on].append(steps / elapsed)
    medians = {on: {label: statistics.median(t[label] for t in tables[on]) for label in tables[on][0]} for on in modes}
    return medians, {on: statistics.median(rates[on]) for on in modes}


def main() -> int:
    quick = "--quick" in sys.argv
    repeats, examples = (2, 10) if quick else (5, 50)
    backends = ("pyevm", "revm") if revm.available() else ("pyevm",)
    if not revm.available():
        print(f"pyrevm is not installed ({revm.INSTALL_HINT}): revm figures are left out")
    modes = (True, False) if SWITCH is not None else (True,)
    print(f"a timed call adds about {overhead():.2f} µs to the part that makes it; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root = speed.project(Path(tmp))
        os.chdir(root)
        measure(root, "erc20.py", backends[-1], 1, None)  # compile once
        for title, machine in MACHINES:
            for backend in backends:
                before = os.getloadavg()[0]
                tables, rates = compare(root, machine, backend, examples, repeats, modes)
                loads = (before, os.getloadavg()[0])
                heading = "fast paths on" + ("      off" if len(modes) > 1 else "")
                print(f"\n{title} on {backend}: {examples} runs x 50 steps, medians of {repeats}, load {min(loads):.1f}-{max(loads):.1f}")
                print(f"  {'µs per step':36} {heading}")
                for label in tables[True]:
                    print(f"  {label:36} " + "".join(f"{tables[on][label]:9.1f}" for on in modes))
                print(f"  {'steps/s (no timers)':36} " + "".join(f"{rates[on]:9.0f}" for on in modes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
