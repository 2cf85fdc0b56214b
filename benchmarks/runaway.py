"""Time for `evmstate run` to settle a function that never returns, with the default limits.

The machines (tests/integration/checks) bump a counter and drain it; drain() loops for 2**63
iterations once the counter reached 3, so on chain it runs out of its 2**24 gas (about 17 s of
py-evm). py-evm stops it at [fuzz] call_timeout (1 s of CPU time) and revm runs it to its end:

- RunawayMachine does not expect it: the out-of-gas revert is reported, shrunk to 4 steps;
- RunawayMachine without pyrevm: the first runaway call stops the machine as a limit of
  evmstate (exit 2);
- OutOfGasMachine expects it inside `with reverts():`: it passes. With the default 50 examples
  of 50 steps it makes over a thousand such calls, each burning 2**24 gas as on chain: compared
  with the same run on the revm backend, which spends that gas too.

Prints wall and CPU seconds of the whole command, compile included (cold) and from the build
cache (warm), and the line that says how it ended.

Run: python benchmarks/runaway.py
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MACHINE = """
from evmstate import reverts


class RunawayMachine:
    def __init__(cls, Runaway):
        cls.c = Runaway.deploy()

    def rule_bump(self):
        self.c.bump()

    def rule_drain(self):
        self.c.drain()


class OutOfGasMachine:
    def __init__(cls, Runaway):
        cls.c = Runaway.deploy()

    def rule_bump(self):
        self.c.bump()

    def rule_drain(self):
        if self.c.count() < 3:
            self.c.drain()
            return
        with reverts():
            self.c.drain()
"""
# `evmstate run` as if pyrevm were not installed
WITHOUT_REVM = "import sys; import evmstate.evm.revm.backend as r; r.pyrevm = None; from evmstate_cli.main import main; sys.argv[0] = 'evmstate'; main()"


def timed_run(root: Path, machine: str, revm: bool = True, *options: str) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, exit code, output) of one `evmstate run` of machine in root."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    command = [sys.executable, "-m", "evmstate_cli.main"] if revm else [sys.executable, "-c", WITHOUT_REVM]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [*command, "run", "-q", "--seed", "0", *options, f"machines/runaway.py::{machine}"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    wall = time.perf_counter() - t
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return wall, cpu, proc.returncode, proc.stdout + proc.stderr


def outcome(out: str) -> str:
    """The line that says how the run ended."""
    for start in ("Falsifying example", "RunawayMachine stopped", "1 passed"):
        line = next((line for line in out.splitlines() if line.startswith(start) or start in line), None)
        if line is not None:
            return line.strip().rstrip(":")
    return "unexpected output!\n" + out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "contracts").mkdir()
        shutil.copy(REPO / "tests" / "integration" / "checks" / "contracts" / "Runaway.vy", root / "contracts")
        (root / "machines").mkdir()
        (root / "machines" / "runaway.py").write_text(MACHINE)
        (root / "evmstate.toml").write_text("")
        runs = [
            ("runaway loop reported, cold (compiles)", "RunawayMachine", True, (), "; target < 5s"),
            ("runaway loop reported, warm (build cache)", "RunawayMachine", True, (), "; target < 5s"),
            ("runaway loop without pyrevm, warm", "RunawayMachine", False, (), "; target < 5s"),
            ("out-of-gas revert expected, warm", "OutOfGasMachine", True, (), ""),
            ("the same on the revm backend", "OutOfGasMachine", True, ("--backend", "revm"), ""),
        ]
        for label, machine, revm, options, target in runs:
            wall, cpu, code, out = timed_run(root, machine, revm, *options)
            print(f"{label}: {wall:.2f}s wall, {cpu:.2f}s CPU, exit {code} ({outcome(out)}{target})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
