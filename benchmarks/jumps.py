"""Cost of the backend's JUMP/JUMPI hooks (last jump per frame, the per-call clock).

Each figure alternates rounds with the hooks in place and with py-evm's own JUMP and JUMPI put
back, on the same chain, and prints the median ratio: machine noise weighs on both alike.
A tight loop is the worst case (a jump every few instructions); a token transfer is typical.

Run: python benchmarks/jumps.py
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from eth.vm import opcode_values

from evmstate import Project
from evmstate.config import Config, FuzzConfig, ProjectConfig

REPO = Path(__file__).resolve().parent.parent
ROUNDS = 7


def compare(project: Project, work) -> tuple[float, float, float]:
    """(rate with hooks, rate without, median per-round ratio) of work()'s units per second."""
    table = project.backend._computation_class.opcodes
    hooked = {op: table[op] for op in (opcode_values.JUMP, opcode_values.JUMPI)}
    plain = {op: project.backend._computation_class.__mro__[1].opcodes[op] for op in hooked}
    on, off, ratios = [], [], []
    for _ in range(ROUNDS):
        table.update(hooked)
        a = work()
        table.update(plain)
        b = work()
        on.append(a)
        off.append(b)
        ratios.append(a / b)
    table.update(hooked)
    return statistics.median(on), statistics.median(off), statistics.median(ratios)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(REPO / "tests" / "contracts", root / "contracts")
        # no time limit: the loop below runs longer than a call may by default
        project = Project(Config(root=root, project=ProjectConfig(contracts="contracts"), fuzz=FuzzConfig(call_timeout=0)))
        a = project.accounts
        vault = project.Vault.deploy()
        token = project.Token.deploy("T", "T", 18, 10**24)

        def loop() -> float:
            t = time.perf_counter()
            gas = vault.spin(5_000).gas_used
            return gas / (time.perf_counter() - t)

        def transfers() -> float:
            t = time.perf_counter()
            for i in range(200):
                token.transfer(a[1 + i % 9], 1, {"from": a[0]})
            return 200 / (time.perf_counter() - t)

        on, off, ratio = compare(project, loop)
        print(f"tight loop:  {on / 1e6:5.2f} M gas/s hooked, {off / 1e6:5.2f} M gas/s plain: {ratio:.3f}x")
        on, off, ratio = compare(project, transfers)
        print(f"transfers:   {on:5.0f} /s hooked, {off:5.0f} /s plain: {ratio:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
