"""The sight's cost alone: the revm backend's calls run again by the tracer (evm/revm/tracer.py), replayed without the rest.

The two ERC20 machines of speed.py (the bundled one and the snekmate one) run 50 x 50 steps on revm
in evmstate's own loop, as speed.py --native runs them; every call the tracer ran is kept with the
state values it read, then run again by a fresh Tracer over exactly those values, several times:
µs per call (best and median of the repeats) and a digest of every Trace and
of the operands recorded, to compare two versions of the interpreter (same digest: same records).
Printed with it: how many calls the sight traced, answered from its memo, or left to py-evm.

Run: python benchmarks/sight.py [--quick]    (needs pip install "evmstate[revm]")
Compare two checkouts: run it with each one installed; the digests must agree.
"""

from __future__ import annotations

import collections
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evmstate.evm.revm import backend as revm, sight, tracer
from evmstate.evm.base import Feedback
from evmstate.evm.revm.frames import Env, Unsupported, World

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import speed  # noqa: E402  (the project with the snekmate machine)

MACHINES = (("bundled ERC20", "erc20.py"), ("snekmate ERC20", "snek_erc20.py"))


class Captured:
    """One traced call: its Env, arguments, whether it recorded operands, and every state value it read."""

    def __init__(self, t: tracer.Tracer, args: tuple[Any, ...]) -> None:
        e = t.env
        self.env = (e.timestamp, e.number, e.chain_id, e.gas_limit, e.gas_price, e.origin)
        self.args = args
        self.recording = t.feedback is not None
        self.storage, self.balances = dict(t.read_storage), dict(t.read_balances)
        self.code, self.nonces = dict(t.read_code), dict(t.read_nonces)

    def tracer(self) -> tracer.Tracer:
        storage, balances, code, nonces = self.storage, self.balances, self.code, self.nonces
        world = World(lambda a, s: storage.get((a, s), 0), lambda a: balances.get(a, 0), lambda a: nonces.get(a, 0), lambda a: code.get(a, b""))
        return tracer.Tracer(world, Env(*self.env), Feedback() if self.recording else None)


def capture(root: Path, machine: str) -> tuple[list[Captured], collections.Counter[str]]:
    """The calls the tracer ran in a 50 x 50-step run of the machine, and the sight's statistics."""
    calls: list[Captured] = []
    counts: collections.Counter[str] = collections.Counter()
    run, init = tracer.Tracer.run, sight.Sight.__init__
    sights: list[sight.Sight] = []

    def kept_run(self: tracer.Tracer, *args: Any) -> Any:
        try:
            return run(self, *args)
        finally:
            calls.append(Captured(self, args))

    def kept_init(self: sight.Sight, *args: Any) -> None:
        init(self, *args)
        sights.append(self)

    tracer.Tracer.run, sight.Sight.__init__ = kept_run, kept_init  # type: ignore[method-assign]
    try:
        speed.native_rate(root, machine, "revm", 1)
    finally:
        tracer.Tracer.run, sight.Sight.__init__ = run, init  # type: ignore[method-assign]
    for s in sights:
        found = s.statistics()
        counts["traced"] += found["traced"]
        counts["remembered"] += found["remembered"]
        for why, n in found["witnessed"].items():
            counts[f"py-evm ({why})"] += n
    return calls, counts


def digest(calls: list[Captured]) -> str:
    """A hash of every call's Trace, operands and reads: the same for two interpreters that record alike."""
    h = hashlib.sha256()
    for call in calls:
        t = call.tracer()
        try:
            tr = t.run(*call.args)
        except Unsupported as e:
            h.update(repr(("unsupported", str(e))).encode())
            continue
        fb = t.feedback
        hits = sorted((k, sorted(v)) for k, v in tr.hits.items())
        counts = sorted((k, sorted(v.items())) for k, v in tr.counts.items())
        found = fb and (fb.operands, fb.equalities, fb.times, fb.blocks)
        reads = (sorted(t.read_storage.items()), sorted(t.read_balances.items()), sorted(t.read_code), sorted(t.read_nonces), t.block_read)
        h.update(repr((tr.success, tr.reverted, tr.output, tuple(tr.logs), sorted(tr.written.items()), hits, counts, tr.reads, tr.writes, found, reads)).encode())
    return h.hexdigest()[:16]


def replay(calls: list[Captured], repeats: int) -> list[float]:
    """µs per call of each of repeats runs over every call."""
    rates = []
    for _ in range(repeats):
        tracers = [(call.tracer(), call.args) for call in calls]
        started = time.perf_counter()
        for t, args in tracers:
            try:
                t.run(*args)
            except Unsupported:
                pass
        rates.append(1e6 * (time.perf_counter() - started) / len(calls))
    return rates


def main() -> int:
    if not revm.available():
        print(f"pyrevm is not installed ({revm.INSTALL_HINT})")
        return 1
    repeats = 3 if "--quick" in sys.argv else 9
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; the tracer's run of each captured call, {repeats} repeats")
    with tempfile.TemporaryDirectory() as tmp:
        root = speed.project(Path(tmp))
        os.chdir(root)
        for label, machine in MACHINES:
            calls, counts = capture(root, machine)
            rates = replay(calls, repeats)
            shown = ", ".join(f"{k} {v}" for k, v in counts.items())
            print(f"  {label:15}: {len(calls)} calls, best {min(rates):.1f} µs/call, median {statistics.median(rates):.1f}; digest {digest(calls)}")
            print(f"  {'':15}  sight: {shown}; load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
