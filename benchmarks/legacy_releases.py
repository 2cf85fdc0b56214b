"""Which vyper 0.2.x and 0.3.x releases evmstate installs and compiles with, and what each gives.

For each release: install it from the package index into a cache folder, compile one contract
pinned to it (a HashMap getter, a reasonless underflow, an assert in the constructor), deploy it
on py-evm and print what came back: the revert line and kind, the constructor's line, whether
the getter is read from storage and agrees with the call. The table docs/vyper-0.3.md gives is
this script's output.

Run: python benchmarks/legacy_releases.py [CACHE_FOLDER] [RELEASE ...]
(the cache folder defaults to a temporary one; the releases to 0.2.8 ... 0.3.10)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from evmstate import Project
from evmstate.compiler import releases
from evmstate.config import Config, ProjectConfig
from evmstate.errors import CompileError, TransactionReverted

RELEASES = ["0.2.8", "0.2.12", "0.2.16", "0.3.0", "0.3.1", "0.3.2", "0.3.3", "0.3.4", "0.3.6", "0.3.7", "0.3.8", "0.3.9", "0.3.10"]

SOURCE = """# @version {version}
owner: public(address)
balances: public(HashMap[address, uint256])


@external
def __init__(start: uint256):
    assert start < 100, "too much"
    self.owner = msg.sender
    self.balances[msg.sender] = start


@external
def take(amount: uint256):
    self.balances[msg.sender] -= amount
"""


def check(version: str, root: Path) -> str:
    contracts = root / version / "contracts"
    contracts.mkdir(parents=True)
    (contracts / "Probe.vy").write_text(SOURCE.format(version=version))
    started = time.perf_counter()
    try:
        releases.install(releases.pin_of(f"# @version {version}\n"), contracts / "Probe.vy")
    except CompileError as e:
        return f"{version:8s} not installed: {str(e).splitlines()[1].strip() if len(str(e).splitlines()) > 1 else e}"
    installed = time.perf_counter() - started
    p = Project(Config(root=contracts.parent, project=ProjectConfig(contracts="contracts")))
    if "Probe" in p.build.errors:
        return f"{version:8s} does not compile: {str(p.build.errors['Probe']).splitlines()[0]}"
    artifact = p.artifacts["Probe"]
    try:
        p.Probe.deploy(500)
        ctor = "no revert?"
    except TransactionReverted as e:
        ctor = "line" if e.source_line and "assert start < 100" in e.source_line else "reason only"
    probe = p.Probe.deploy(7)
    try:
        probe.take(8)
        runtime = "no revert?"
    except TransactionReverted as e:
        runtime = ("line" if e.source_line and "-= amount" in e.source_line else "no line") + (f", {e.check}" if e.check else ", no kind")
    getter = probe.balances._getter is not None
    stored = probe.balances(p.accounts[0])
    p.fast_getters = False
    agrees = p.Probe.at(probe).balances(p.accounts[0]) == stored == 7
    return (
        f"{version:8s} installed in {installed:4.1f}s  runtime revert: {runtime:18s}  constructor revert: {ctor:11s}"
        f"  getter from storage: {'yes' if getter else 'no (no layout)':15s}  agrees with the call: {agrees}  error map: {len(artifact.error_map)} checks"
    )


def main() -> None:
    args = sys.argv[1:]
    cache = Path(args.pop(0)) if args and not args[0][0].isdigit() else Path(tempfile.mkdtemp(prefix="evmstate-releases-"))
    os.environ["EVMSTATE_CACHE_DIR"] = str(cache)
    work = Path(tempfile.mkdtemp(prefix="evmstate-legacy-"))
    print(f"python {sys.version.split()[0]}, releases in {cache}")
    for version in args or RELEASES:
        print(check(version, work), flush=True)


if __name__ == "__main__":
    main()
