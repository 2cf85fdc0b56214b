"""What each result `evmstate mutate` keeps depends on: the keys its entries are filed under (cache.py), so that a
change to any input (a source, a machine's module, the budget, evmstate's own code) makes a new key."""

from __future__ import annotations

import functools
import hashlib
import pkgutil
from pathlib import Path

import hypothesis

from ..compiler.sources import VYPER_VERSION
from ..config import Config
from ..contracts.project import Project
from ..engine.discovery import Item
from ..files import code_digest
from ..search import corpus as corpus_mod
from . import plan
from .operators import Mutant
from .plan import Source
from .tasks import Budget, Judge


# besides this package's own modules: what compiles a mutant and what runs a machine on it
JUDGING = ("evmstate.compiler.sources", "evmstate.compiler.vyper_outputs", "evmstate.engine.machine_run")


@functools.lru_cache(maxsize=1)
def evmstate_code() -> str:
    """What decides a kept result besides its inputs: the code of evmstate's compiler, of this package and of the
    machine runner, and what decides a run's draws.
    """
    return plan.digest(corpus_mod.evmstate_code(), [code_digest([name]) for name in (*mutate_modules(), *JUDGING)])


def mutate_modules() -> list[str]:
    """The modules of this package, by name."""
    return sorted(f"{__package__}.{m.name}" for m in pkgutil.iter_modules([str(Path(__file__).parent)]))


def _sha(path: Path) -> str:
    """A user's file's sha256, "-" when it is not there (a project without deployments.py)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "-"


def python_files(config: Config, items: list[Item]) -> str:
    """A digest of the Python the machines run besides their own module: deployments.py and the machines folder's
    helpers.
    """
    own = {(config.root / i.path).resolve() for i in items}
    helpers = (
        sorted(p for p in config.machines_dir.rglob("*.py") if p.resolve() not in own)
        if config.machines_dir.is_dir()
        else []
    )
    return plan.digest(_sha(config.deployments_file), [(p.name, _sha(p)) for p in helpers])


def judge_key(
    config: Config, project: Project, item: Item, judge: Judge, deploys: list[str], budget: Budget, python: str
) -> str:
    inputs = sorted((name, sorted(project.build.inputs_of.get(name, {}).items())) for name in deploys)
    return plan.digest(
        "judge", item.id, _sha(config.root / item.path), python, inputs, budget, [r.get("id") for r in judge.records],
        hashlib.sha256(b"".join(sorted(judge.corpus))).hexdigest(), evmstate_code(), hypothesis.__version__,
        repr(config.accounts), repr(config.chain), repr(config.fuzz), repr(config.backend), repr(config.compiler),
    )


def compile_key(config: Config, project: Project, source: Source, mutant: Mutant) -> str:
    inputs = sorted((name, sorted(project.build.inputs_of.get(name, {}).items())) for name in source.contracts)
    vyper = sorted({project.build.artifacts[n].vyper for n in source.contracts if n in project.build.artifacts})
    return plan.digest(
        "compiled", source.portable, source.sha, mutant.start, mutant.length, mutant.replacement, inputs,
        repr(config.compiler), VYPER_VERSION, vyper, evmstate_code(),
    )
