"""A seed gives the same programs from a wheel install (a user's) as from this checkout (CI's).

Hypothesis draws some values from the literals of local modules; evmstate's own are local only
in an editable install, and are kept out of the pool (evmstate/search/constants.py). Before
that, seed 1 gave SaleMachine `rule_set_price(price=1000000)` from a checkout and
`rule_set_price(price=3368148)` from a wheel (and StakingMachine other programs too).
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from .. import zygote
from ..conftest import REPO, copy_example

pytestmark = pytest.mark.processes

# the command as the console script runs it; at exit, the files evmstate and evmstate_cli were loaded from (to stderr:
# what the command prints is left as it is; and nothing more is imported than the command imports)
RUN = (
    "import atexit, sys; "
    "atexit.register(lambda: print('loaded from:', *(sys.modules[m].__file__ for m in ('evmstate', 'evmstate_cli')), sep='\\t', file=sys.stderr)); "
    "from evmstate_cli.launch import main; sys.argv[0] = 'evmstate'; main()"
)
MACHINES = ("machines/sale.py",)


def wheel_python(tmp_path: Path) -> Path:
    """A venv whose evmstate is a wheel built from this checkout; every other package is this venv's."""
    dist = tmp_path / "dist"
    # built offline by this venv's setuptools through its PEP 517 hook, as `pip wheel --no-build-isolation`
    # calls it (without pip's own start, half the CPU): nothing comes from the package index
    build = [sys.executable, "-c", "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])", str(dist)]
    subprocess.run(build, cwd=REPO, check=True, capture_output=True)
    (wheel,) = dist.glob("evmstate-*.whl")
    venv.create(tmp_path / "venv", with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True, text=True)
    # a path in a .pth file: this venv's packages, without its own .pth files (the editable evmstate's)
    (Path(purelib.stdout.strip()) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)]
    subprocess.run(install, check=True, capture_output=True)
    return python


def programs(python: Path, root: Path) -> tuple[dict[str, tuple[str, list[str] | None]], list[str]]:
    """Each machine's status and failing program, run with seed 8 (one that finds the sale's bug in 20 runs) from python's evmstate; the files evmstate and evmstate_cli were loaded from.

    A process of its own: this checkout's forked from the test zygote (tests/zygote.py: its modules local to Hypothesis
    are a new process's), the wheel's started anew (another Python).
    """
    command = [str(python), "-c", RUN, "run", *MACHINES, "--seed", "8", "--max-examples", "20", "-q", "--json", "out.json"]
    done = zygote.run(command, cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads((root / "out.json").read_text())
    (loaded,) = [line.split("\t")[1:] for line in done.stderr.splitlines() if line.startswith("loaded from:\t")]
    return {r["name"]: (r["status"], (r.get("failure") or {}).get("program")) for r in report["results"]}, loaded


def test_a_seed_gives_the_same_programs_from_a_wheel_as_from_a_checkout(tmp_path: Path):
    python = wheel_python(tmp_path)
    from_wheel, where = programs(python, copy_example(tmp_path / "wheel"))
    assert len(where) == 2 and all(path.startswith(str(tmp_path / "venv")) for path in where), where
    from_checkout, here = programs(Path(sys.executable), copy_example(tmp_path / "checkout"))
    assert len(here) == 2 and all(Path(path).resolve().is_relative_to(REPO.resolve()) for path in here), here
    assert from_checkout["SaleMachine"][0] == "failed" and from_checkout["SaleMachine"][1]
    assert from_wheel == from_checkout
