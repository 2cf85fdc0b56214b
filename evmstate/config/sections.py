"""The settings as frozen dataclasses: one per section of evmstate.toml, Config holding them all, and the
switches the environment sets."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config_checks import DifferentialMode, parse_mode
from ..errors import ConfigError

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
    # EVMSTATE_NATIVE=run: evmstate run on revm draws through that loop too (engine.native.own_loop; for measuring: it
    # is faster there, and found less at run's budget, docs/configuration.md)
    run_native: bool = False
    # EVMSTATE_SHRINK_ON_REVM=0: a py-evm run's shrinking replays its candidates on py-evm, not on revm
    # (engine/shrink/trials.py; for measuring)
    shrink_on_revm: bool = True

    @classmethod
    def read(cls) -> "Environment":
        native = _switch(NATIVE_VARIABLE)
        return cls(
            os.environ.get(FEEDBACK_VARIABLE), os.environ.get(START_METHOD_VARIABLE, "").strip().lower(), native,
            run_native=os.environ.get(NATIVE_VARIABLE, "").strip().lower() == "run",
            shrink_on_revm=_switch(SHRINK_ON_REVM_VARIABLE),
        )


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
        fork = (
            f", forked from chain {self.fork.chain_id} at block {self.fork.block}"
            if isinstance(self.fork.block, int) and self.fork.chain_id
            else ""
        )
        return (
            f"{self._files() or f'defaults, no {CONFIG_NAME} or {MOCCASIN_NAME} found'} (contracts in "
            f"{shown(self.contracts_dir)}/{fork})"
        )

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
        """Raise a ConfigError when the contracts folder holds no .vy source: it names the folders looked at and what to
        write."""
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
            origin = (
                f"the default: no {CONFIG_NAME}, {MOCCASIN_NAME} or [tool.moccasin] in {PYPROJECT_NAME} in {self.root} "
                "or above it"
            )
        lines = [f"no contracts to test: {where}, the contracts folder ({origin}), {state}."]
        elsewhere = [f for f in _folders_with_sources(self.root) if f != folder]
        if elsewhere:
            lines.append(f"  .vy sources were found in {', '.join(shown(f) + '/' for f in elsewhere)}.")
        # as the settings file takes it
        target = elsewhere[0].relative_to(self.root).as_posix() if elsewhere else "<folder>"
        if self.path is None and self.sources:
            lines.append(
                f'  Put the contracts in {where}, or set src = "{target}" under [project] in {shown(self.sources[0])} '
                '(moccasin\'s contracts folder).'
            )
        else:
            lines.append(
                f'  Put the contracts in {where}, or set contracts = "{target}" under [project] in '
                f'{shown(self.path) if self.path else CONFIG_NAME}.'
            )
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
                raise ConfigError(
                    f"{where}: [compiler] search_paths: {name!r} is not a folder ({folder}). Create it, or remove it "
                    "from search_paths."
                )
            folders.append(folder)
        return tuple(folders)

    @property
    def artifacts_dir(self) -> Path | None:
        """The folder of precompiled artifacts; None when the default one does not exist. A folder the settings name
        that does not exist is a ConfigError."""
        folder = self.root / self.project.artifacts
        if folder.is_dir():
            return folder
        if self.project.artifacts != ProjectConfig.artifacts:
            where = str(self.path) if self.path else CONFIG_NAME
            raise ConfigError(
                f"{where}: [project] artifacts: {self.project.artifacts!r} is not a folder ({folder}). Create it, or "
                "remove the key."
            )
        return None

    @property
    def state_dir(self) -> Path:
        return self.root / ".evmstate"

    def compile_inputs(self) -> tuple[tuple[Path, Path], dict[str, Any]]:
        """What compiling the project takes: (contracts folder, build cache folder) and the compiler's settings."""
        settings = {
            "evm_version": self.compiler.evm_version, "optimize": self.compiler.optimize,
            "search_paths": self.search_paths, "root": self.root,
        }
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
        if (
            folder.name.startswith((".", "_"))
            or folder.name in ("lib", "node_modules")
            or (folder / "pyvenv.cfg").exists()
        ):
            continue
        if next(folder.rglob("*.vy"), None) is not None:
            found.append(folder)
    return found
