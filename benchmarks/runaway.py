"""Time for `evmstate run` to report a function that never returns, with the default limits.

The machine (tests/integration/checks) bumps a counter and drains it; drain() loops for 2**63
iterations once the counter reached 3. Without a time limit each such call would burn the whole
gas cap (about 20 s in py-evm). Prints wall and CPU seconds of the whole command, compile
included (cold) and from the build cache (warm).

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
class RunawayMachine:
    def __init__(cls, Runaway):
        cls.c = Runaway.deploy()

    def rule_bump(self):
        self.c.bump()

    def rule_drain(self):
        self.c.drain()
"""


def timed_run(root: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, output) of one `evmstate run` in root."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "evmstate_cli.main", "run", "-q"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    wall = time.perf_counter() - t
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return wall, cpu, proc.stdout + proc.stderr


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "contracts").mkdir()
        shutil.copy(REPO / "tests" / "integration" / "checks" / "contracts" / "Runaway.vy", root / "contracts")
        (root / "machines").mkdir()
        (root / "machines" / "runaway.py").write_text(MACHINE)
        (root / "evmstate.toml").write_text("")
        for label in ("cold (compiles)", "warm (build cache)"):
            wall, cpu, out = timed_run(root)
            steps = next((line for line in out.splitlines() if line.startswith("Falsifying example")), "no failure reported!")
            print(f"runaway loop reported, {label}: {wall:.2f}s wall, {cpu:.2f}s CPU ({steps.rstrip(':')}; target < 5s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
