"""evmstate.toml -> frozen dataclasses. Unknown keys get "did you mean".

In a moccasin project (moccasin.toml, or [tool.moccasin] in pyproject.toml) the contracts folder
and the compiler's search path are moccasin's; an evmstate.toml beside it sets the rest, and wins
where both say something.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from .config_checks import MAX_STEPS, RUNNING_PHASES, check_actors, check_kinds, check_together, did_you_mean, is_settings_file, read_toml, toml_value, unknown_key, unknown_section, with_default, within  # noqa: F401  (MAX_STEPS, RUNNING_PHASES: for --steps and a machine's settings)
from .config_checks import DifferentialMode, check_compiler, check_differential, parse_mode
# read by the machines' own settings (engine.settings, search.session) through this module
from .config_checks import DELAY_KEYS, MAX_DELAY, check_delay, check_interval, check_shrink_time, check_weight  # noqa: F401
from .errors import ConfigError, UnitError
from .units import to_wei

CONFIG_NAME = "evmstate.toml"
MOCCASIN_NAME = "moccasin.toml"
PYPROJECT_NAME = "pyproject.toml"
PHASES = ("explicit", "reuse", "generate", "target", "shrink", "explain")
# the environment variables the library reads, here only (cli/launch.py reads the second too: it
# runs before evmstate is imported)
FEEDBACK_VARIABLE = "EVMSTATE_FEEDBACK"
START_METHOD_VARIABLE = "EVMSTATE_START_METHOD"
NATIVE_VARIABLE = "EVMSTATE_NATIVE"
SHRINK_ON_REVM_VARIABLE = "EVMSTATE_SHRINK_ON_REVM"


@dataclass(frozen=True)
class Environment:
    """The switches the environment sets, read once with the settings; they travel with the Config to workers."""

    # EVMSTATE_FEEDBACK: the search's feedback signals, comma-separated (search/feedback.py); None: the default ones
    feedback: str | None = None
    # EVMSTATE_START_METHOD: how worker processes start (scale/parallel.py); "": the platform's best
    start_method: str = ""
    # EVMSTATE_NATIVE=0: evmstate fuzz draws every run through Hypothesis, not its own loop (engine/native.py; for
    # measuring what it pays)
    native: bool = True
    # EVMSTATE_SHRINK_ON_REVM=0: a py-evm run's shrinking replays its candidates on py-evm, not on revm
    # (engine/shrink/trials.py; for measuring)
    shrink_on_revm: bool = True

    @classmethod
    def read(cls) -> "Environment":
        native = _switch(NATIVE_VARIABLE)
        return cls(os.environ.get(FEEDBACK_VARIABLE), os.environ.get(START_METHOD_VARIABLE, "").strip().lower(), native, _switch(SHRINK_ON_REVM_VARIABLE))


def health_checks() -> tuple[str, ...]:
    """Hypothesis's health checks by name, imported only when a setting names some."""
    from hypothesis import HealthCheck

    return tuple(h.name for h in HealthCheck)


def _switch(variable: str) -> bool:
    """An on/off switch of the environment, on unless set to 0, off, false or nothing."""
    return os.environ.get(variable, "1").strip().lower() not in ("0", "off", "false", "")


@dataclass(frozen=True)
class ProjectConfig:
    contracts: str = "contracts"
    machines: str = "machines"
    # the file whose functions are the project's deployments, injected by name (see docs/machines.md)
    deployments: str = "deployments.py"
    # contracts compiled elsewhere (Foundry, ape, Brownie, combined_json, .abi + .bin; see docs/precompiled.md)
    artifacts: str = "artifacts"


@dataclass(frozen=True)
class CompilerConfig:
    evm_version: str = "prague"
    optimize: str = "gas"
    # extra folders to import from, relative to the project root
    search_paths: tuple[str, ...] = ()
    # build with vyper's Venom code generator (--experimental-codegen): every contract, unless its
    # own `# pragma experimental-codegen` or a [compiler.contracts] entry says otherwise
    experimental_codegen: bool = False
    # per contract (its name or module path): (name, experimental_codegen), over the source's pragma
    # and the project's setting; [compiler.contracts] Vault = { experimental_codegen = true }
    contracts: tuple[tuple[str, bool], ...] = ()


@dataclass(frozen=True)
class AccountsConfig:
    count: int = 10
    balance: int = 100 * 10**18


@dataclass(frozen=True)
class ChainConfig:
    chain_id: int = 1337
    gas_limit: int = 30_000_000
    gas_price: int = 0
    timestamp: int = 1_700_000_000


@dataclass(frozen=True)
class HypothesisConfig:
    max_examples: int = 50
    stateful_step_count: int = 50
    deadline: int | None = None
    seed: int | None = None
    derandomize: bool = False
    # "explain" re-runs every shrink attempt under sys.settrace: on slow EVM steps it
    # multiplies the time to report a failure many times over, so it is off by default.
    phases: tuple[str, ...] = ("explicit", "reuse", "generate", "target", "shrink")
    print_blob: bool = False
    # Hypothesis's health checks to turn off: evmstate runs only filter_too_much (most runs
    # thrown away by assume() or reject()), so that is the one worth naming here
    suppress_health_check: tuple[str, ...] = ()


BACKENDS = ("pyevm", "revm")
CALL_CACHE_MODES = ("on", "off", "check")


@dataclass(frozen=True)
class BackendConfig:
    name: str = "pyevm"
    # run revm and py-evm side by side and stop at the first call where they differ
    check: bool = False
    # name was chosen (in evmstate.toml or by --backend): evmstate fuzz then runs on it, else it prefers revm
    named: bool = field(default=False, repr=False, compare=False, metadata={"internal": True})


@dataclass(frozen=True)
class FuzzConfig:
    # the gas each call gets unless it passes gas= itself: EIP-7825's per-transaction cap
    # (or [chain] gas_limit when that is lower)
    call_gas_limit: int = 2**24
    # seconds of CPU time one call may run; 0 for no limit. py-evm runs a few million gas a
    # second of usual contract code and about one million on a tight loop: a second covers any
    # call a fuzzing run can afford to repeat thousands of times, and stops a runaway loop
    # long before the gas cap would (about 20 seconds for 2**24 gas). CPU time, not wall
    # time, so that a busy machine does not make calls time out.
    call_timeout: float = 1.0
    # view calls answered from a cache while nothing they read has changed: "on", "off", or
    # "check" (every answer from the cache is run as well and compared: slower, for testing)
    call_cache: str = "on"
    # the share of strategy() draws of integers, addresses and fixed-size bytes that take a value
    # the contracts know (constants, values stored, returned or logged); 0 turns it off
    dictionary_weight: float = 0.25
    # keep and extend the runs that reach code no earlier run reached
    guidance: bool = True
    # before each step's call, one step in four lets time pass: up to this many seconds and this
    # many blocks, drawn on a log scale (a minute, a day, a month and a year are each common) or
    # to a time the contract knows, and shrunk toward none. Four years: vesting runs up to four
    # years and its cliffs up to one; the blocks are four years of Ethereum's 12-second slots.
    # 0 turns either off (see docs/configuration.md, "Time between steps").
    max_time_delay: int = 4 * 365 * 86_400
    max_block_delay: int = 4 * 365 * 7_200
    # seconds shrinking may take after a failure is found; then the shortest failing program so
    # far is reported (and `evmstate shrink <id>` continues). 0: no limit
    shrink_time: float = 20.0
    # the actors evmstate deploys for every machine, which strategy("address") draws beside the
    # funded accounts: contract accounts that refuse ether, re-enter, refuse or re-enter token
    # callbacks (docs/actors.md); a machine's settings = {"actors": [...]} replaces the list
    actors: tuple[str, ...] = ()
    # the invariants are checked after every N-th step of a run and at its end; a run that fails
    # one is played again checking after every step, so that the program reported is the one
    # N = 1 gives (docs/configuration.md, "Invariants at an interval")
    invariant_interval: int = 1


FORK_TAGS = ("latest", "safe", "finalized")


@dataclass(frozen=True)
class ForkConfig:
    # the node of the chain to fork (docs/fork.md); "" runs on a fresh chain, or from the fork cache alone
    url: str = ""
    # the block whose state the run starts from: a number, or "latest" / "safe" / "finalized",
    # asked of the node once at the start (a number makes every later run the same, and free)
    block: int | str = "latest"
    # the chain the node must be on (0: whichever it is); set from a failure record on replay
    chain_id: int = 0
    # seconds to wait for each answer of the node (a request that times out is tried again)
    timeout: float = 20.0


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


@dataclass(frozen=True)
class DatabaseConfig:
    # where Hypothesis's example database lives: a folder (relative to the project root), or a
    # Redis server ("redis://host:6379/0", "rediss://...", "unix:///path/to/redis.sock") that
    # processes on several machines share
    url: str = ".evmstate/examples"

    @property
    def is_redis(self) -> bool:
        return self.url.startswith(REDIS_SCHEMES)


@dataclass(frozen=True)
class DifferentialConfig:
    # "" (no differential run), "codegen", "compiler:0.4.0,0.4.3" or "sources:OLD:NEW" (docs/differential.md)
    mode: str = ""
    # also compare the storage slots either build wrote (the builds must share their storage layout)
    storage: bool = False
    # report the gas of both builds per function (gas is never a difference)
    gas: bool = False
    # a different revert reason when both builds revert is a finding, not a compiler difference listed apart
    revert_reasons: bool = False
    # differences meant to be there: (Contract.function, aspect), aspect one of ASPECTS
    expected: tuple[tuple[str, str], ...] = ()

    @property
    def on(self) -> bool:
        return bool(self.mode)

    def parsed(self) -> DifferentialMode:
        return parse_mode(self.mode, "[differential] mode")


@dataclass(frozen=True)
class Config:
    root: Path = field(default_factory=Path.cwd)
    path: Path | None = None
    project: ProjectConfig = field(default_factory=ProjectConfig)
    compiler: CompilerConfig = field(default_factory=CompilerConfig)
    accounts: AccountsConfig = field(default_factory=AccountsConfig)
    chain: ChainConfig = field(default_factory=ChainConfig)
    hypothesis: HypothesisConfig = field(default_factory=HypothesisConfig)
    backend: BackendConfig = field(default_factory=BackendConfig)
    fuzz: FuzzConfig = field(default_factory=FuzzConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    fork: ForkConfig = field(default_factory=ForkConfig)
    differential: DifferentialConfig = field(default_factory=DifferentialConfig)
    # every file the settings were read from: evmstate.toml first, then moccasin's
    sources: tuple[Path, ...] = ()
    environment: Environment = field(default_factory=Environment.read)

    @property
    def origin(self) -> str:
        """Where the settings came from, as a run's first line says it: "moccasin.toml (contracts in src/)"."""
        fork = f", forked from chain {self.fork.chain_id} at block {self.fork.block}" if isinstance(self.fork.block, int) and self.fork.chain_id else ""
        return f"{self._files() or f'defaults, no {CONFIG_NAME} or {MOCCASIN_NAME} found'} (contracts in {shown(self.contracts_dir)}/{fork})"

    def _files(self) -> str:
        files = self.sources or ((self.path,) if self.path is not None else ())
        names = [shown(f) + (" [tool.moccasin]" if f.name == PYPROJECT_NAME else "") for f in files]
        if len(names) > 1 and files[0].name == CONFIG_NAME:
            return f"{names[0]} over {' and '.join(names[1:])}"
        return " and ".join(names)

    @property
    def contracts_dir(self) -> Path:
        return self.root / self.project.contracts

    def check_sources(self) -> None:
        """Raise a ConfigError when the contracts folder holds no .vy source: it names the folders looked at and what to write."""
        folder = self.contracts_dir
        if folder.is_dir() and any(".evmstate" not in p.parts for p in folder.rglob("*.vy")):
            return
        artifacts = self.artifacts_dir
        if artifacts is not None and any(p.suffix in (".json", ".abi") for p in artifacts.rglob("*")):
            return  # precompiled contracts alone
        state = "holds no .vy sources" if folder.is_dir() else "does not exist"
        where = shown(folder) + "/"
        if self._files():
            origin = f"settings: {self._files()}"
        else:
            origin = f"the default: no {CONFIG_NAME}, {MOCCASIN_NAME} or [tool.moccasin] in {PYPROJECT_NAME} in {self.root} or above it"
        lines = [f"no contracts to test: {where}, the contracts folder ({origin}), {state}."]
        elsewhere = [f for f in _folders_with_sources(self.root) if f != folder]
        if elsewhere:
            lines.append(f"  .vy sources were found in {', '.join(shown(f) + '/' for f in elsewhere)}.")
        target = elsewhere[0].relative_to(self.root).as_posix() if elsewhere else "<folder>"  # as the settings file takes it
        if self.path is None and self.sources:
            lines.append(f"  Put the contracts in {where}, or set src = \"{target}\" under [project] in {shown(self.sources[0])} (moccasin's contracts folder).")
        else:
            lines.append(f"  Put the contracts in {where}, or set contracts = \"{target}\" under [project] in {shown(self.path) if self.path else CONFIG_NAME}.")
        raise ConfigError("\n".join(lines))

    @property
    def deployments_file(self) -> Path:
        return self.root / self.project.deployments

    @property
    def machines_dir(self) -> Path:
        return self.root / self.project.machines

    @property
    def search_paths(self) -> tuple[Path, ...]:
        """The [compiler] search_paths folders, absolute; a missing one is a ConfigError."""
        where = str(self.path) if self.path else CONFIG_NAME
        folders = []
        for name in self.compiler.search_paths:
            folder = self.root / name
            if not folder.is_dir():
                raise ConfigError(f"{where}: [compiler] search_paths: {name!r} is not a folder ({folder}). Create it, or remove it from search_paths.")
            folders.append(folder)
        return tuple(folders)

    @property
    def artifacts_dir(self) -> Path | None:
        """The folder of precompiled artifacts; None when the default one does not exist. A folder the settings name that does not exist is a ConfigError."""
        folder = self.root / self.project.artifacts
        if folder.is_dir():
            return folder
        if self.project.artifacts != ProjectConfig.artifacts:
            where = str(self.path) if self.path else CONFIG_NAME
            raise ConfigError(f"{where}: [project] artifacts: {self.project.artifacts!r} is not a folder ({folder}). Create it, or remove the key.")
        return None

    @property
    def state_dir(self) -> Path:
        return self.root / ".evmstate"

    def compile_inputs(self) -> tuple[tuple[Path, Path], dict[str, Any]]:
        """What compiling the project takes: (contracts folder, build cache folder) and the compiler's settings."""
        settings = {"evm_version": self.compiler.evm_version, "optimize": self.compiler.optimize, "search_paths": self.search_paths, "root": self.root}
        if self.compiler.experimental_codegen or self.compiler.contracts:
            settings.update(experimental_codegen=self.compiler.experimental_codegen, codegen=self.compiler.contracts)
        return (self.contracts_dir, self.state_dir / "build"), settings

    @property
    def examples_dir(self) -> Path | None:
        """The folder of the example database; None when it is on a Redis server."""
        return None if self.database.is_redis else self.root / self.database.url

    def replace(self, **changes: Any) -> "Config":
        return dataclasses.replace(self, **changes)


SECTIONS: dict[str, type] = {
    "project": ProjectConfig,
    "compiler": CompilerConfig,
    "accounts": AccountsConfig,
    "chain": ChainConfig,
    "hypothesis": HypothesisConfig,
    "backend": BackendConfig,
    "fuzz": FuzzConfig,
    "database": DatabaseConfig,
    "fork": ForkConfig,
    "differential": DifferentialConfig,
}
WEI_KEYS = {("accounts", "balance"), ("chain", "gas_price")}
GAS_KEYS = {("chain", "gas_limit"), ("fuzz", "call_gas_limit")}
# what the message of a value of the wrong type asks for
KIND_NAMES = {int: "a whole number", bool: "true or false", str: "a string in quotes"}
# every transaction pays 21,000 gas before its first instruction
MIN_GAS = 21_000


def shown(path: Path) -> str:
    """A path as a run shows it: relative to the current folder when it is below it, else as it is."""
    try:
        return path.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(path)


def _folders_with_sources(root: Path) -> list[Path]:
    """The root's top folders that hold .vy files, leaving out dependencies, virtual environments and hidden folders."""
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else ():
        if folder.name.startswith((".", "_")) or folder.name in ("lib", "node_modules") or (folder / "pyvenv.cfg").exists():
            continue
        if next(folder.rglob("*.vy"), None) is not None:
            found.append(folder)
    return found


def check_fork(where: str, key: str, value: Any) -> Any:
    """A [fork] value checked: url a http(s) URL, block a number or a tag, chain_id a number."""
    if key == "url" and not (isinstance(value, str) and value.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}: [fork] url must be the http:// or https:// URL of a node (JSON-RPC); got {value!r}.")
    if key == "block" and not (value in FORK_TAGS or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)):
        raise ConfigError(f"{where}: [fork] block must be a block number or one of {', '.join(map(repr, FORK_TAGS))}; got {value!r}.")
    if key == "chain_id" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ConfigError(f"{where}: [fork] chain_id must be a chain id such as 1; got {value!r}.")
    if key == "timeout":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ConfigError(f"{where}: [fork] timeout must be a number of seconds above 0; got {value!r}.")
        return float(value)
    return value


def find_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above start that holds an evmstate.toml or a moccasin project's settings, or None."""
    here = (start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        if is_settings_file(folder / CONFIG_NAME) or moccasin_files(folder):
            return folder
    return None


def moccasin_files(folder: Path) -> tuple[Path, ...]:
    """moccasin.toml, and pyproject.toml when it has a [tool.moccasin] table, in folder."""
    found = []
    if (folder / MOCCASIN_NAME).is_file():
        found.append(folder / MOCCASIN_NAME)
    pyproject = folder / PYPROJECT_NAME
    if pyproject.is_file():
        try:
            has_table = isinstance(tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("moccasin"), dict)
        except (ValueError, OSError, AttributeError):  # not TOML, not UTF-8, unreadable
            has_table = False  # not moccasin's to read: moccasin itself would fail on it
        if has_table:
            found.append(pyproject)
    return tuple(found)


def _moccasin_folder(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: [project] {key} must be a folder, relative to the project root; got {value!r}.")
    folder = os.path.expandvars(value)  # as moccasin reads it
    if Path(folder).is_absolute():
        raise ConfigError(f"{where}: [project] {key} = {value!r}: evmstate takes it relative to the project root; give a relative folder.")
    return Path(folder).as_posix()


def moccasin_config(root: Path, files: tuple[Path, ...]) -> Config:
    """The settings of a moccasin project: its contracts folder and moccasin's compiler search path.

    moccasin.toml's [project] keys win over [tool.moccasin.project] in pyproject.toml, as moccasin
    merges them. The search path is moccasin's, the first listed winning: the root, the contracts
    folder (src), lib/github, lib/pypi and lib (where `mox install` puts dependencies); those
    that do not exist are left out.
    """
    project: dict[str, Any] = {}
    for path in reversed(files):  # moccasin.toml last, so that its keys win
        data = read_toml(path)
        table = data.get("tool", {}).get("moccasin", {}) if path.name == PYPROJECT_NAME else data
        where = f"{path} [tool.moccasin]" if path.name == PYPROJECT_NAME else str(path)
        section = table.get("project", {})
        if not isinstance(section, dict):
            raise ConfigError(f"{where}: project must be a [project] table.")
        for key in ("src", "lib"):
            if key in section:
                project[key] = _moccasin_folder(section[key], key, where)
    src, lib = project.get("src", "src"), project.get("lib", "lib")
    order = [".", src, f"{lib}/github", f"{lib}/pypi", lib]
    search = tuple(dict.fromkeys(p for p in order if (root / p).is_dir()))
    return Config(root=root, project=ProjectConfig(contracts=src), compiler=CompilerConfig(search_paths=search), sources=files)



def _names(value: Any, allowed: Any, where: str, what: str, example: str) -> tuple[str, ...]:
    """A list of names, each one of allowed."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of {what} names, e.g. {example}.")
    for name in value:
        if name not in allowed:
            raise ConfigError(f"{where}: unknown {what} {name!r}.{did_you_mean(name, allowed)}")
    return tuple(value)


# [fuzz] keys checked by a function of their own: (value, where) -> the value read
FUZZ_CHECKS: dict[str, Any] = {
    "shrink_time": lambda value, where: check_shrink_time(value, where),
    "dictionary_weight": lambda value, where: check_weight(value, where),
    "invariant_interval": lambda value, where: check_interval(value, where),
    "actors": lambda value, where: check_actors(value, where, ConfigError),
}


def _check(where: str, section: str, key: str, value: Any, expected: Any) -> Any:
    if (section, key) in WEI_KEYS:
        try:
            return to_wei(value, what=f"{where}: [{section}] {key}")
        except UnitError as e:
            raise ConfigError(str(e)) from None
    if section == "compiler" and key in ("evm_version", "optimize", "search_paths", "contracts"):
        return check_compiler(where, key, value)
    if section == "backend" and key == "name":
        if value not in BACKENDS:
            close = difflib.get_close_matches(str(value), BACKENDS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"{where}: [backend] name = {value!r} is not a backend; use \"pyevm\" (the default) or \"revm\".{hint}")
        return value
    if section == "hypothesis" and key == "suppress_health_check":
        return _names(value, health_checks(), f"{where}: [hypothesis] suppress_health_check", "health check", '["filter_too_much"]')
    if section == "hypothesis" and key == "phases":
        return _names(value, PHASES, f"{where}: [hypothesis] phases", "phase", '["generate", "shrink"]')
    if section == "hypothesis" and key == "deadline":
        if value is False or value == 0:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{where}: [hypothesis] deadline must be a number of milliseconds, or 0 for none; got {value!r}.")
        return value
    if (section, key) in GAS_KEYS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: [{section}] {key} must be a whole amount of gas, got {type(value).__name__} {value!r}.")
        if value < MIN_GAS:
            raise ConfigError(
                f"{where}: [{section}] {key} = {value} is below {MIN_GAS}, the gas every transaction pays before it runs: "
                f"nothing could run. Use at least {MIN_GAS} (the default is {expected})."
            )
        return value
    if section == "fuzz" and key == "call_timeout":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value or value == float("inf"):
            raise ConfigError(f"{where}: [fuzz] call_timeout must be a number of seconds, or 0 for no limit; got {value!r}.")
        return float(value)
    if section == "fuzz" and key in FUZZ_CHECKS:
        return FUZZ_CHECKS[key](value, f"{where}: [fuzz] {key}")
    if section == "fuzz" and key == "call_cache":
        if value not in CALL_CACHE_MODES:
            raise ConfigError(f"{where}: [fuzz] call_cache must be \"on\", \"off\" or \"check\"; got {value!r}.")
        return value
    if section == "fuzz" and key in DELAY_KEYS:
        return check_delay(value, f"{where}: [fuzz] {key}")
    if section == "database" and key == "url":
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: [database] url must be a folder or a Redis URL such as \"redis://localhost:6379/0\"; got {value!r}.")
        scheme = value.split("://", 1)[0] + "://" if "://" in value else None
        if scheme is not None and scheme not in REDIS_SCHEMES:
            raise ConfigError(
                f"{where}: [database] url = {value!r}: {scheme} is not a database evmstate can use. "
                "Give a folder (\".evmstate/examples\") or a Redis URL (redis://, rediss:// or unix://)."
            )
        return value
    if section == "hypothesis" and key == "seed":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: [hypothesis] seed must be an integer; got {value!r}.")
        return value
    kind = {int: int, bool: bool, str: str}.get(type(expected), type(expected))
    ok = isinstance(value, kind) and (kind is not int or not isinstance(value, bool))
    if not ok:
        raise ConfigError(f"{where}: [{section}] {key} must be {KIND_NAMES.get(kind, kind.__name__)}, such as {toml_value(expected)} (the default); got {type(value).__name__} {value!r}.")
    if kind is int and value < 0:
        raise ConfigError(f"{where}: [{section}] {key} must not be negative, got {value!r}.")
    if (section, key) in {("hypothesis", "max_examples"), ("accounts", "count")} and value < 1:
        raise ConfigError(f"{where}: [{section}] {key} must be at least 1, got {value!r}.")
    return value


def from_dict(data: dict[str, Any], *, root: Path, path: Path | None = None, base: Config | None = None) -> Config:
    """Build a Config from parsed TOML, checking every section and key; what it leaves out comes from base (else the defaults)."""
    where = str(path) if path else CONFIG_NAME
    base = base if base is not None else Config(root=root)
    sections: dict[str, Any] = {}
    keys = {name: {f.name for f in fields(cls) if not f.metadata.get("internal")} for name, cls in SECTIONS.items()}
    for name, body in data.items():
        if name not in SECTIONS:
            raise unknown_section(where, name, body, keys)
        if not isinstance(body, dict):
            raise ConfigError(f"{where}: {name} must be a [{name}] table: write [{name}] on a line of its own, its keys on the lines below it.")
        defaults = SECTIONS[name]()
        values = {}
        for key, value in body.items():
            if key not in keys[name]:
                raise unknown_key(where, name, key, keys)
            try:
                checked = (
                    check_fork(where, key, value)
                    if name == "fork"
                    else check_differential(where, key, value)
                    if name == "differential"
                    else _check(where, name, key, value, getattr(defaults, key))
                )
            except ConfigError as e:
                raise with_default(e, name, key, getattr(defaults, key)) from None
            values[key] = within(where, name, key, checked, getattr(defaults, key))
        if name == "backend" and "name" in body:
            values["named"] = True
        sections[name] = dataclasses.replace(getattr(base, name), **values)
    check_together(where, data, sections.get("accounts", base.accounts), sections.get("chain", base.chain), sections.get("fuzz", base.fuzz))
    sources = ((path,) if path is not None else ()) + base.sources
    config = base.replace(root=root, path=path, sources=sources, **sections)
    _ = config.search_paths, config.artifacts_dir  # a missing folder is reported when the file is loaded
    check_kinds(where, root, config.project.deployments, None if config.database.is_redis else config.database.url)
    return config


def load(start: Path | None = None) -> Config:
    """Find the project at or above start and load its settings: evmstate.toml over moccasin's; defaults when there are none."""
    root = find_root(start)
    if root is None:
        here = (start or Path.cwd()).resolve()
        return Config(root=here.parent if here.is_file() else here)
    mox = moccasin_files(root)
    base = moccasin_config(root, mox) if mox else None
    path = root / CONFIG_NAME
    if not path.is_file():
        assert base is not None
        return base
    return from_dict(read_toml(path), root=root, path=path, base=base)
