"""Hypothesis settings and seeds: from evmstate.toml, the machine's own settings and the command line."""

from __future__ import annotations

import difflib
import hashlib
import os
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis import HealthCheck, Phase
from hypothesis import settings as Settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.errors import HypothesisException

from ..config import (
    MAX_STEPS,
    RUNNING_PHASES,
    Config,
    ConfigError,
    FuzzConfig,
    HypothesisConfig,
    check_interval,
    check_shrink_time,
)
from ..errors import MachineDefinitionError
from ..search.session import SEARCH_KEYS, SearchOptions

# Of Hypothesis's health checks evmstate runs one, filter_too_much (most runs thrown away by
# assume() or reject()); the others measure what does not fit EVM machines (slow draws, large
# programs) and stay off whatever the settings say.
ALWAYS_SUPPRESSED = tuple(h for h in HealthCheck if h is not HealthCheck.filter_too_much)

# read by the engine itself, not given to Hypothesis
ENGINE_KEYS = ("shrink_time", "fork_block", "weights", "max_times", "actors", "invariant_interval")
SETTINGS_KEYS = (
    "max_examples", "stateful_step_count", "deadline", "derandomize", "phases", "seed", "print_blob",
    "report_multiple_bugs", "suppress_health_check", "verbosity",
)


@dataclass(frozen=True)
class Overrides:
    """Settings given on the command line; None leaves the configured value."""

    max_examples: int | None = None
    stateful_step_count: int | None = None
    seed: int | None = None
    # Hypothesis's phases by name, over every other setting (evmstate mutate: no shrinking)
    phases: tuple[str, ...] | None = None
    # --fresh: no example database and no guidance corpus for this run, nothing read from them or written to them
    fresh: bool = False


@dataclass(frozen=True)
class RunSetup:
    """What one machine's or property test's run needs besides its project, settings, seed and emit.

    Built once per item (engine.item) and passed whole.
    """

    path: str = ""  # the file it came from, as reported
    database: Any = None  # Hypothesis's example database (None: none)
    capture: bool = True  # keep what it prints, shown only for the reported program
    stop: Callable[[], bool] | None = None  # asked before every run until one fails: True ends it early
    trace: bool = True  # replay the reported program for its trace (False: a caller that reads only the verdict)
    # machines only
    init_args: tuple[Any, ...] | None = None  # passed to __init__ positionally (Brownie's state_machine fixture)
    corpus: Any = None  # search.corpus.Corpus: the machine's saved guidance runs, to start from and add to
    # a time.monotonic() by which shrinking ends, whatever shrink_time says (a campaign's end)
    deadline: float | None = None
    # read when the machine was loaded (discovery.Item.settings), else read again
    machine_settings: MachineSettings | None = None
    # failures known already (failures.FailureIdentity as a run raises it -> the id they are counted under): a run that
    # meets one counts it (MachineFinished.hits) and goes on past it (example.py), and so does the search (keep-going)
    known: dict[Any, str] = field(default_factory=dict)
    # a campaign's first shard of a machine (engine/native.py): Hypothesis's loop, as `evmstate run --seed` searches
    as_run: bool = False


@dataclass(frozen=True)
class MachineSettings:
    """A machine's settings = {...}, read once when the machine is loaded (its definition errors then): the
    keys Hypothesis reads, those the search reads (search.SearchOptions), and shrink_time."""

    hypothesis: dict[str, Any] = field(default_factory=dict)  # as given; build_settings() adds them to evmstate.toml's
    search: dict[str, Any] = field(default_factory=dict)  # dictionary_weight, guidance, max_time_delay, max_block_delay
    shrink_time: float | None = None  # None: [fuzz] shrink_time
    invariant_interval: int | None = None  # None: [fuzz] invariant_interval

    @classmethod
    def parse(cls, given: dict[str, Any], where: str) -> MachineSettings:
        """The settings given, checked: MachineDefinitionError for an unknown key or a value that cannot be used."""
        build_settings(HypothesisConfig(), given, Overrides(), where)  # unknown keys, values Hypothesis refuses
        SearchOptions.of(FuzzConfig(), given, where)  # the search's keys
        own = shrink_time(0.0, given, where) if "shrink_time" in given else None
        interval = None
        if "invariant_interval" in given:
            try:
                interval = check_interval(given["invariant_interval"], f"{where}.settings: invariant_interval")
            except ConfigError as e:
                raise MachineDefinitionError(str(e)) from None
        search = {k: v for k, v in given.items() if k in SEARCH_KEYS}
        hypothesis = {k: v for k, v in given.items() if k not in SEARCH_KEYS and k not in ENGINE_KEYS}
        return cls(hypothesis, search, own, interval)

    def interval(self, default: int) -> int:
        """Steps between two checks of the machine's invariants: its own invariant_interval, else default
        ([fuzz] invariant_interval)."""
        return default if self.invariant_interval is None else self.invariant_interval

    def shrink_seconds(self, default: float) -> float:
        """The seconds the machine's shrinking may take: its own shrink_time, else default ([fuzz] shrink_time); 0 for
        no limit.
        """
        return default if self.shrink_time is None else self.shrink_time


def build_settings(
    base: HypothesisConfig, machine: dict[str, Any], overrides: Overrides, where: str
) -> tuple[Settings, int | None]:
    """Hypothesis settings from evmstate.toml, then the machine's own, then the command line.

    The seed returned is the machine's own seed setting, else --seed, else evmstate.toml's;
    None when none is given. A machine that pins its seed keeps it whatever --seed says, so
    the seed a run prints reproduces every machine in it.
    """
    values: dict[str, Any] = {
        "max_examples": base.max_examples,
        "stateful_step_count": base.stateful_step_count,
        "deadline": base.deadline,
        "derandomize": base.derandomize,
        "phases": [Phase[p] for p in base.phases],
        "print_blob": base.print_blob,
        "database": None,
        "report_multiple_bugs": False,
        "suppress_health_check": [*ALWAYS_SUPPRESSED, *(HealthCheck[name] for name in base.suppress_health_check)],
    }
    seed = overrides.seed if overrides.seed is not None else base.seed
    for key, value in machine.items():
        if key in SEARCH_KEYS or key in ENGINE_KEYS:
            continue  # read by search.SearchOptions, and by shrink_time()
        if key not in SETTINGS_KEYS:
            known = SETTINGS_KEYS + SEARCH_KEYS + ENGINE_KEYS
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else f" Known keys: {', '.join(known)}."
            raise MachineDefinitionError(f"{where}.settings: unknown key {key!r}.{hint}")
        if key == "seed":
            seed = value
        elif key == "phases":
            values["phases"] = members(Phase, value, f"{where}.settings: phases", "phase", '["generate", "shrink"]')
        elif key == "suppress_health_check":
            values[key] = list(dict.fromkeys([*values[key], *health_checks(value, where)]))
        else:
            values[key] = value
    if overrides.max_examples is not None:
        values["max_examples"] = overrides.max_examples
    if overrides.stateful_step_count is not None:
        values["stateful_step_count"] = overrides.stateful_step_count
    if overrides.phases is not None:
        values["phases"] = [Phase[p] for p in overrides.phases]
    try:
        built = Settings(**values)
    except (HypothesisException, TypeError, KeyError) as e:
        raise MachineDefinitionError(f"{where}.settings: {e}") from None
    if built.stateful_step_count > MAX_STEPS:
        raise MachineDefinitionError(
            f"{where}.settings: stateful_step_count = {built.stateful_step_count} is more than {MAX_STEPS}: "
            "Hypothesis keeps at most 8192 choices of one run, "
            f"a few per step, so a longer run does not fit and the search never ends. Use at most {MAX_STEPS}."
        )
    if not {p.name for p in built.phases} & set(RUNNING_PHASES):
        raise MachineDefinitionError(
            f"{where}.settings: phases = {[p.name for p in built.phases]} runs no example, "
            f"and the machine would pass: list one of {', '.join(RUNNING_PHASES)}."
        )
    return built, seed


def shrink_time(default: float, machine: dict[str, Any], where: str) -> float:
    """The seconds a machine's shrinking may take: its settings' shrink_time, else [fuzz] shrink_time; 0 for no limit.
    """
    if "shrink_time" not in machine:
        return default
    try:
        return check_shrink_time(machine["shrink_time"], f"{where}.settings: shrink_time")
    except ConfigError as e:
        raise MachineDefinitionError(str(e)) from None


def health_checks(value: Any, where: str) -> list[HealthCheck]:
    """A machine's suppress_health_check: HealthCheck members or their names."""
    return members(
        HealthCheck, value, f"{where}.settings: suppress_health_check", "health check",
        '[HealthCheck.filter_too_much] or ["filter_too_much"]',
    )


def members(kind: Any, value: Any, where: str, what: str, example: str) -> list[Any]:
    """A machine's list of kind's members (Phase, HealthCheck), or their names; a MachineDefinitionError that says what
    to write otherwise.
    """
    if isinstance(value, (str, kind)) or not hasattr(value, "__iter__"):
        value = [value]
    found = []
    for item in value:
        if isinstance(item, kind):
            found.append(item)
        elif isinstance(item, str) and item in kind.__members__:
            found.append(kind[item])
        else:
            names = list(kind.__members__)
            close = difflib.get_close_matches(str(item), names, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else f" Known {what}s: {', '.join(names)}."
            raise MachineDefinitionError(f"{where}: {item!r} is not a {what}.{hint} Write {example}.")
    return found


def run_seed(base: HypothesisConfig, overrides: Overrides) -> int:
    """The run's seed: --seed, else evmstate.toml's, else a random one (printed, so it can be given back)."""
    if overrides.seed is not None:
        return overrides.seed
    if base.seed is not None:
        return base.seed
    return secrets.randbelow(2**32)


def machine_seed(seed: int, machine_id: str) -> int:
    """The Hypothesis seed of one machine or test: from the run's seed and its id (path::name).

    It depends on nothing else, so a machine runs the same whatever else is selected.
    """
    digest = hashlib.sha256(f"{seed}\0{machine_id.replace(chr(92), '/')}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def keep_hypothesis_storage(config: Config) -> None:
    """Keep Hypothesis's own caches under .evmstate/hypothesis, not in a .hypothesis/ folder of the current one.

    HYPOTHESIS_STORAGE_DIRECTORY, when set, still decides.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    set_hypothesis_home_dir(config.state_dir / "hypothesis")


def shard_seed(seed: int, machine_id: str, shard: int | None = None) -> int:
    """The Hypothesis seed of one shard of a machine's examples: machine_seed() of the machine alone when shard is None.
    """
    return machine_seed(seed, machine_id if shard is None else f"{machine_id}#{shard}")


def shard_examples(max_examples: int, shard: int, shards: int) -> int:
    """How many of max_examples shard number shard (of shards) runs: an even split, the first ones one more."""
    return max_examples // shards + (1 if shard < max_examples % shards else 0)

