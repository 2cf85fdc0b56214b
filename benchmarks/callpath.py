"""evmstate's call path against bare pyrevm: the same calls, in the same process, from the same state.

A workload (the bundled ERC20 model, the snekmate ERC20 machine, the vault-class machine) runs on revm in
evmstate's own loop (as `evmstate fuzz` runs it, the search's feedback on) for a fixed number of runs. Every
call evmstate sends to pyrevm after the machine's __init__ is recorded (caller, to, calldata, value, gas, gas
price, static, the block it ran in), with the snapshots and reverts between runs; then the calls are replayed
through a bare pyrevm.EVM, loaded with the state the runs started from, each run reverted to it as evmstate's are.

Printed per workload:
- evmstate's CPU per call: from the machine's `contract.f(...)` to its decoded value or receipt (encoding,
  the backend, the journal, the search's feedback, decoding), over the calls that reached pyrevm; and apart, the
  calls answered without it (public getters read from storage, the call cache);
- bare pyrevm's CPU per call, message_call alone, and whether each replayed call ended as evmstate's did;
- the ratio (aim: <= 2x on the ERC20 workloads, <= 3x on the vault); and the same bare replay with a little plain
  Python run between calls: revm's own cost rises by several times once anything runs between its calls (its
  code and data no longer in the CPU's caches), which the tight loop never pays and no Python harness avoids;
- pyrevm's own floor by the size of the code a call runs: a bare message_call into code of 100 bytes to 24 KB.
  pyrevm 0.3.7 inserts code into revm's database unanalysed (AccountInfo takes raw bytes), and revm 8 analyses a
  frame's code (its jump table, padded) each time a frame starts: every call pays about 2 ns a byte of every frame's
  code, and no call through pyrevm's interface pays less. Printed with the bytes of code each workload's calls start.
- where evmstate's call path goes (a second pass, timers at each seam): encoding, revm itself (message_call, as
  it runs inside the run: Python running between calls leaves it colder caches than the replay's tight loop),
  pyrevm printing its journal, pyrevm's checkpoints and writes, the journal read and applied, the sight (feedback),
  decoding, the rest of the contract layer; and the share of the run in invariants and in the call path.

CPU is thread CPU time, read around every call on both sides alike (the clock's own cost, measured, taken off).

Run: python benchmarks/callpath.py [--quick] [erc20|snek|vault ...]
"""

from __future__ import annotations

import collections
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from eth_utils import keccak

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import speed  # noqa: E402  (the workloads' projects)

from evmstate import config as config_mod  # noqa: E402
from evmstate.config import BackendConfig  # noqa: E402
from evmstate.contracts import codec as codec_mod  # noqa: E402
from evmstate.contracts.contract import ContractFunction  # noqa: E402
from evmstate.engine import example as example_mod  # noqa: E402
from evmstate.engine.machine_run import MachineRun  # noqa: E402
from evmstate.evm.revm import backend as revm_mod  # noqa: E402
from evmstate.evm.revm import sight as sight_mod  # noqa: E402
from evmstate.runner import Overrides  # noqa: E402

clock = time.thread_time_ns
WORKLOADS = {
    # name: (machine file, project, runs, aim)
    "erc20": ("erc20.py", "root", 50, 2.0),
    "snek": ("snek_erc20.py", "root", 50, 2.0),
    "vault": ("vault.py", "vault", 10, 3.0),
}
LABELS = {"erc20": "ERC20 model (bundled)", "snek": "snekmate ERC20", "vault": "vault-class machine"}


def clock_cost() -> float:
    """Nanoseconds one reading pair of the clock adds to what it times (the median of many empty pairs)."""
    rounds = []
    for _ in range(20):
        t0 = clock()
        for _ in range(1000):
            clock()
            clock()
        rounds.append((clock() - t0) / 2000)
    rounds.sort()
    return rounds[len(rounds) // 2]  # of a span's two readings, about one reading's cost falls inside it


class Patches:
    """Methods swapped while inside, put back after."""

    def __init__(self) -> None:
        self.saved: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        original = getattr(owner, name)
        self.saved.append((owner, name, original))
        setattr(owner, name, make(original))

    def __enter__(self) -> "Patches":
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)


class Recorder:
    """The calls a workload sends to pyrevm, and evmstate's CPU per machine call."""

    def __init__(self) -> None:
        self.armed = False  # off during the machine's __init__: the replay starts from the state it left
        self.start: tuple[Any, int, int, int] | None = None  # (state, timestamp, number, snapshot id) of the runs' base
        self.events: list[tuple[Any, ...]] = []
        self.backend: Any = None
        self.executes = 0
        self.depth = 0
        self.reached: list[int] = []  # CPU ns of each machine call that reached pyrevm
        self.answered: list[int] = []  # ... of each answered without it
        self.invariants = 0

    def patches(self) -> Patches:
        p = Patches()
        rec = self

        def init_class(original: Any) -> Any:
            def run(self: Any) -> None:
                rec.armed = False
                try:
                    original(self)
                finally:
                    rec.armed = True

            return run

        def snapshot(original: Any) -> Any:
            def run(self: Any) -> int:
                sid = original(self)
                if rec.armed:
                    if rec.start is None:
                        rec.backend = self
                        rec.start = (self.state(), self._timestamp, self._number, sid)
                    elif self is rec.backend:
                        rec.events.append(("snap", sid))
                return sid

            return run

        def revert(original: Any) -> Any:
            def run(self: Any, sid: int) -> None:
                original(self, sid)
                if rec.start is not None and self is rec.backend:
                    rec.events.append(("revert", sid))

            return run

        def execute(original: Any) -> Any:
            def run(self: Any, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int, static: bool, gas_price: int | None, bump: int = 0) -> Any:
                out = original(self, sender, to, data, value, gas, static, gas_price, bump)
                if rec.start is not None and self is rec.backend:
                    rec.executes += 1
                    rec.events.append(("call", sender, to, data, value, gas, static, gas_price, self._timestamp, self._number, out[0], out[1]))
                return out

            return run

        def timed(original: Any) -> Any:
            def run(*args: Any, **kwargs: Any) -> Any:
                if rec.depth or not rec.armed or rec.start is None:
                    return original(*args, **kwargs)
                rec.depth = 1
                before = rec.executes
                t0 = clock()
                try:
                    return original(*args, **kwargs)
                finally:
                    spent = clock() - t0
                    rec.depth = 0
                    (rec.reached if rec.executes > before else rec.answered).append(spent)

            return run

        p.wrap(MachineRun, "init_class", init_class)
        p.wrap(revm_mod.RevmBackend, "snapshot", snapshot)
        p.wrap(revm_mod.RevmBackend, "revert", revert)
        p.wrap(revm_mod.RevmBackend, "_execute", execute)
        for name in ("__call__", "call", "transact"):
            p.wrap(ContractFunction, name, timed)
        return p


def run_workload(root: Path, machine: str, runs: int) -> tuple[float, Any]:
    """The machine in evmstate's own loop on revm, runs x 50 steps from seed 0: (CPU seconds, the result)."""
    from evmstate.contracts.project import Project
    from evmstate.engine.discovery import discover
    from evmstate.engine.item import RunRequest, run_item
    import dataclasses

    cfg = config_mod.load(root)
    cfg = dataclasses.replace(cfg, backend=BackendConfig(name="revm"))
    project = Project(cfg)
    project.activate()
    (item,) = discover(cfg, (str(root / "machines" / machine),)).items
    for kept in ("examples", "corpus"):
        shutil.rmtree(root / ".evmstate" / kept, ignore_errors=True)
    request = RunRequest(overrides=Overrides(seed=0, max_examples=runs, stateful_step_count=50), seed=0, native=True, corpus=True, save_failures=False)
    started = time.process_time()
    result = run_item(cfg, project, item, request, lambda e: None)
    cpu = time.process_time() - started
    assert result.status == "passed", result.failure or result.error
    assert not result.statistics["evmstate's own loop"].startswith("off"), result.statistics["evmstate's own loop"]
    return cpu, result


def plain_python() -> int:
    """A fixed piece of plain Python between two calls of the bare replay (arithmetic: nothing allocated): enough to
    leave revm's code and data colder, as anything a harness runs between calls does."""
    x = 0
    for i in range(1000):
        x = (x * 31 + i) & 0xFFFF
    return x


def code_floor(cost: float) -> tuple[float, float]:
    """(µs, ns a byte): a bare pyrevm message_call's fixed cost, and what each byte of the called code adds (a straight
    line through calls into code of 100 bytes to 24 KB that stops at once)."""
    pyrevm = revm_mod.pyrevm
    evm = pyrevm.EVM(env=pyrevm.Env(cfg=pyrevm.CfgEnv(chain_id=1)), spec_id="CANCUN")
    caller = "0x" + "11" * 20
    evm.insert_account_info(caller, pyrevm.AccountInfo(balance=10**20))  # type: ignore[call-arg]
    points = []
    for size in (100, 6_000, 12_000, 18_000, 24_000):
        to = f"0x{0x1000 + size:040x}"
        evm.insert_account_info(to, pyrevm.AccountInfo(code=b"\0" + b"\x5b" * size))  # STOP, then JUMPDESTs
        checkpoint = evm.snapshot()
        times = []
        for _ in range(2000):
            t0 = clock()
            evm.message_call(caller, to, b"", 0, 100_000, None, True)
            times.append(clock() - t0 - cost)
        evm.revert(checkpoint)
        times.sort()
        points.append((size, times[len(times) // 2]))
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    return (my - slope * mx) / 1000, slope


def bare_replay(rec: Recorder, cost: float, between: Callable[[], Any] | None = None) -> tuple[list[int], int, int]:
    """The recorded calls through a bare pyrevm.EVM: (CPU ns of each message_call, calls that ended as evmstate's did, calls).

    between: run before each call, outside its timing."""
    pyrevm = revm_mod.pyrevm
    backend = rec.backend
    assert rec.start is not None
    state, timestamp, number, base = rec.start
    evm = pyrevm.EVM(env=pyrevm.Env(cfg=pyrevm.CfgEnv(chain_id=backend.chain_id)), gas_limit=backend.gas_limit, spec_id=revm_mod.SPECS[backend.evm_version])
    h = {a: "0x" + a.hex() for a in state}
    for address, (balance, nonce, code, storage) in state.items():
        code_hash = keccak(code) if code else revm_mod.EMPTY_CODE_HASH
        evm.insert_account_info(h[address], pyrevm.AccountInfo(balance=balance, nonce=nonce, code_hash=code_hash, code=code or None))
        for slot, value in storage.items():
            evm.insert_account_storage(h[address], slot, value)
    block = None
    checkpoints = {base: evm.snapshot()}
    times: list[int] = []
    same = 0
    coinbase = "0x" + "00" * 20
    for event in rec.events:
        kind = event[0]
        if kind == "snap":
            checkpoints[event[1]] = evm.snapshot()
        elif kind == "revert":  # the snapshot stays usable, those after it are gone
            sid = event[1]
            if sid not in checkpoints:
                break  # back to before the machine's __init__: the item is over
            evm.revert(checkpoints[sid])
            checkpoints = {k: v for k, v in checkpoints.items() if k < sid}
            checkpoints[sid] = evm.snapshot()
        else:
            _, sender, to, data, value, gas, static, gas_price, ts, num, success, output = event
            if block != (ts, num):
                block = (ts, num)
                evm.set_block_env(pyrevm.BlockEnv(number=num, timestamp=ts, coinbase=coinbase, difficulty=0, prevrandao=b"\0" * 32, basefee=0, gas_limit=backend.gas_limit))
            caller = h.get(sender) or h.setdefault(sender, "0x" + sender.hex())
            target = h.get(to) or h.setdefault(to, "0x" + to.hex())
            if between is not None:
                between()
            t0 = clock()
            try:
                out = evm.message_call(caller, target, data, value, gas, gas_price, static)
                ok = True
            except RuntimeError:
                out, ok = None, False
            times.append(clock() - t0)
            same += ok == success and (not ok or bytes(out) == output)
    return [t - cost for t in times], same, len(times)


class Seams:
    """CPU time spent at each seam of the call path, each seam's own (the seams inside it counted apart)."""

    def __init__(self, cost: float) -> None:
        self.cost = cost
        self.spent: dict[str, float] = collections.Counter()
        self.stack: list[list[Any]] = []

    def timed(self, name: str, run: Callable[[], Any]) -> Any:
        stack = self.stack
        frame = [name, clock(), 0]
        stack.append(frame)
        try:
            return run()
        finally:
            stack.pop()
            total = clock() - frame[1] - self.cost
            # the invariants' whole time, their calls included
            self.spent[name] += total if name == "invariants" else total - frame[2]
            if stack:
                stack[-1][2] += total

    def seam(self, name: str) -> Callable[[Any], Any]:
        def make(original: Any) -> Any:
            def run(*args: Any, **kwargs: Any) -> Any:
                return self.timed(name, lambda: original(*args, **kwargs))

            return run

        return make


class TimedEVM:
    """A pyrevm.EVM whose every use is timed: the binding's own cost inside evmstate's run."""

    def __init__(self, evm: Any, seams: Seams) -> None:
        self._evm, self._seams = evm, seams

    def message_call(self, *args: Any) -> Any:
        return self._seams.timed("pyrevm: message_call", lambda: self._evm.message_call(*args))

    def deploy(self, *args: Any) -> Any:
        return self._seams.timed("pyrevm: message_call", lambda: self._evm.deploy(*args))

    @property
    def journal_str(self) -> str:
        return self._seams.timed("pyrevm: journal text", lambda: self._evm.journal_str)

    @property
    def result(self) -> Any:
        return self._seams.timed("pyrevm: the rest", lambda: self._evm.result)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._evm, name)
        return lambda *args: self._seams.timed("pyrevm: the rest", lambda: method(*args))


# the breakdown's seams, in the order printed: what each holds
SEAMS = {
    "encode": "arguments to calldata (Codec.encode)",
    "pyrevm: message_call": "revm running the call",
    "pyrevm: journal text": "pyrevm printing its journal, read for what a transaction changed",
    "pyrevm: the rest": "checkpoints, reverts, writes into revm's database, the result",
    "journal: read": "the journal's text parsed (read_changes, loaded)",
    "journal: apply": "the changes written back, the undo log (_apply, _go_back)",
    "sight (feedback)": "calls run again for the search's signals (sight.py)",
    "decode": "return data to values (Codec.decode)",
    "contract layer": "the rest: options, the sender, the backend's own Python, results, receipts, reverts",
}


def breakdown(root: Path, machine: str, runs: int, cost: float) -> tuple[dict[str, float], float]:
    """CPU seconds at each seam of the call path over the same runs (a second pass: its timers cost time, the clock's own
    cost taken off), and the run's CPU."""
    seams = Seams(cost)

    def init(original: Any) -> Any:
        def run(self: Any, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            self._evm = TimedEVM(self._evm, seams)

        return run

    with Patches() as p:
        p.wrap(revm_mod.RevmBackend, "__init__", init)
        for name in ("__call__", "call", "transact"):
            p.wrap(ContractFunction, name, seams.seam("contract layer"))
        p.wrap(codec_mod.Codec, "encode", seams.seam("encode"))
        p.wrap(codec_mod.Codec, "decode", seams.seam("decode"))
        p.wrap(revm_mod, "read_changes", seams.seam("journal: read"))
        p.wrap(revm_mod, "loaded", seams.seam("journal: read"))
        p.wrap(revm_mod.RevmBackend, "_apply", seams.seam("journal: apply"))
        p.wrap(revm_mod.RevmBackend, "_go_back", seams.seam("journal: apply"))
        for name in ("see", "record", "show"):
            p.wrap(sight_mod.Sight, name, seams.seam("sight (feedback)"))
        p.wrap(example_mod, "check_all_invariants", seams.seam("invariants"))
        cpu, _ = run_workload(root, machine, runs)
    return dict(seams.spent), cpu


def main() -> int:
    quick = "--quick" in sys.argv
    chosen = [a for a in sys.argv[1:] if not a.startswith("--")] or list(WORKLOADS)
    if not revm_mod.available():
        print(f"pyrevm is not installed ({revm_mod.INSTALL_HINT})")
        return 2
    cost = clock_cost()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; thread CPU time, {cost:.0f} ns a clock reading taken off each call")
    fixed, per_byte = code_floor(cost)
    print(f"bare pyrevm message_call: {fixed:.1f} µs, and {per_byte:.2f} ns for each byte of code a frame runs (revm analyses it per frame)")
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"root": speed.project(Path(tmp)), "vault": speed.vault_project(Path(tmp))}
        os.chdir(roots["root"])
        for name in chosen:
            machine, where, runs, aim = WORKLOADS[name]
            runs = max(2, runs // 5) if quick else runs
            root = roots[where]
            run_workload(root, machine, 1)  # compiled, warmed
            rec = Recorder()
            with rec.patches():
                cpu, result = run_workload(root, machine, runs)
            reached = [t - cost for t in rec.reached]
            ours = sum(reached) / len(reached) / 1000
            bare_ns, same, n = bare_replay(rec, cost)
            bare = sum(bare_ns) / n / 1000
            answered = sum(rec.answered) / max(1, len(rec.answered)) / 1000
            print(f"\n{LABELS[name]} ({runs} runs x 50 steps, {result.steps} steps, {cpu:.1f} s CPU; load {os.getloadavg()[0]:.2f}):")
            print(f"  calls that reached pyrevm: {len(reached)} ({n} pyrevm calls); evmstate {ours:6.1f} µs a call, bare pyrevm {bare:5.1f} µs: {ours / bare:.2f}x  (aim <= {aim:.0f}x)")
            print(f"  the bare replay ended {same} of {n} calls as evmstate's did")
            at_start = rec.start[0] if rec.start is not None else {}
            started = sum(len(at_start[e[2]][2]) if e[2] in at_start else 0 for e in rec.events if e[0] == "call") / n
            print(f"  the code each call starts: {started / 1000:.1f} KB on average, {started * per_byte / 1000:.1f} µs of analysis in its first frame alone")
            colder, _, _ = bare_replay(rec, cost, plain_python)
            colder_us = sum(colder) / n / 1000
            print(f"  bare pyrevm with a little plain Python between calls (plain_python()): {colder_us:.1f} µs a call; evmstate {ours / colder_us:.2f}x that")
            print(f"  calls answered without pyrevm (getters read from storage, the call cache): {len(rec.answered)}, {answered:.1f} µs each")
            spent, cpu2 = breakdown(root, machine, runs, cost)
            path = sum(v for k, v in spent.items() if k != "invariants") / 1e9
            in_situ = spent.get("pyrevm: message_call", 0) / 1e9 / n * 1e6
            print(f"  where the call path goes (a second pass, {cpu2:.1f} s CPU, timers at each seam; µs per call that reached pyrevm):")
            for seam_name, holds in SEAMS.items():
                share = spent.get(seam_name, 0) / 1e9
                print(f"    {seam_name:22} {share / len(reached) * 1e6:6.1f}  {100 * share / path:3.0f}%  {holds}")
            print(f"  revm's message_call inside the run: {in_situ:.1f} µs a call, {in_situ / bare:.1f}x the same call in the replay's tight loop")
            invariants = spent.get("invariants", 0) / 1e9
            print(f"  invariants (their calls included): {invariants:.1f} s, {100 * invariants / cpu2:.0f}% of the run; the call path {100 * path / cpu2:.0f}% of it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
