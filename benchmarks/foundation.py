"""Foundation figures: contract-layer vs raw py-evm throughput, view calls, snapshot cost.

Run: python benchmarks/foundation.py   (prints one line per figure)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from eth.vm.message import Message

from evmstate import Project
from evmstate.config import Config

REPO = Path(__file__).resolve().parent.parent
N = 1000


def transfer_rates(project: Project, token, rounds: int = 7) -> tuple[float, float, float]:
    """(contract layer calls/s, raw apply_message calls/s, median per-round ratio).

    The two loops alternate, round by round, on the same state, so that machine noise and
    the state's growth weigh on both alike.
    """
    a = project.accounts
    backend = project.backend
    state = backend._state
    sender = a[0].raw_address
    code = state.get_code(token.raw_address)
    datas = [token.transfer.encode_input(a[1 + i % 9], 1) for i in range(N)]
    ctx = state.get_transaction_context_class()(gas_price=0, origin=sender)
    computation = state.computation_class

    def layer() -> float:
        t = time.perf_counter()
        for i in range(N):
            token.transfer(a[1 + i % 9], 1, {"from": a[0]})
        return N / (time.perf_counter() - t)

    def raw() -> float:
        # the same transfers as bare py-evm messages: no ABI, no receipts, no transaction bookkeeping
        t = time.perf_counter()
        for data in datas:
            msg = Message(gas=1_000_000, to=token.raw_address, sender=sender, value=0, data=data, code=code)
            computation.apply_message(state, msg, ctx)
        return N / (time.perf_counter() - t)

    ours, theirs = [], []
    for _ in range(rounds):
        theirs.append(raw())
        ours.append(layer())
    ratio = statistics.median(o / r for o, r in zip(ours, theirs))
    return statistics.median(ours), statistics.median(theirs), ratio


def view_rate(project: Project, token) -> float:
    a = project.accounts

    def run() -> float:
        t = time.perf_counter()
        for i in range(N):
            token.balanceOf(a[i % 10])
        return N / (time.perf_counter() - t)

    return statistics.median(run() for _ in range(3))


def snapshot_cost_us(project: Project, token, touched: int) -> tuple[float, float]:
    """(snapshot+revert with nothing between, revert of one transfer's changes) in microseconds."""
    backend = project.backend
    sender = project.accounts[0].raw_address
    for i in range(touched):
        target = (0x1000 + i).to_bytes(20, "big")
        backend.set_balance(target, 1)
        backend.transact(sender, token.raw_address, token.transfer.encode_input(target, 1))
    backend.snapshot()  # the first snapshot persists what came before it
    reps = 500
    t = time.perf_counter()
    for _ in range(reps):
        sid = backend.snapshot()
        backend.revert(sid)
        backend.release(sid)
    empty = (time.perf_counter() - t) / reps * 1e6
    data = token.transfer.encode_input(project.accounts[2], 1)
    clock = time.perf_counter
    reverts = []
    for _ in range(reps):
        sid = backend.snapshot()
        backend.transact(sender, token.raw_address, data)
        t0 = clock()
        backend.revert(sid)
        reverts.append((clock() - t0) * 1e6)
        backend.release(sid)
    around = statistics.median(reverts)
    return empty, around


def fresh() -> tuple[Project, object]:
    project = Project(Config(root=REPO))
    token = project.Token.deploy("T", "T", 18, 10**30)
    return project, token


def main() -> int:
    project, token = fresh()
    ours, raw, ratio = transfer_rates(project, token)
    views = view_rate(project, token)
    print(f"Token.transfer via contract layer: {ours:8.0f} calls/s")
    print(f"Token.transfer via raw apply_message: {raw:8.0f} calls/s")
    print(f"ratio contract layer / raw (median of alternating rounds): {ratio:.2f} (target >= 0.80)")
    print(f"view calls (balanceOf): {views:8.0f} calls/s")
    for touched in (10, 10_000):
        project, token = fresh()
        empty, around = snapshot_cost_us(project, token, touched)
        print(f"snapshot+revert with {touched:>6} touched accounts: {empty:7.1f} us with nothing between, {around:7.1f} us to revert one transfer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
