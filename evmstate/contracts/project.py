"""A loaded project: config, compiled contracts, a backend, accounts, chain and containers."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterable, Iterator

from .. import config as config_mod
from ..compiler.build import build as build_project
from ..compiler.sources import Artifact, Build, Module, module_path
from ..config import BackendConfig, Config
from ..config_checks import ACTOR_KINDS, check_actors
from ..errors import CompileError, EvmStateError, NoSuchContract, UsageError
from ..evm.base import Backend
from ..evm.factory import make_backend
from .accounts import Accounts, Actor
from .actors import deploy as deploy_actors
from .api import Handle, current_project
from .chain import Chain
from .contract import ContractContainer
from .differential import check_layouts, codes, lockstep, unmatched
from .events import EventDecoder


class Unavailable:
    """Stands in a project's namespace for a name that has no container; asking for it raises its error."""

    def __init__(self, name: str, error: EvmStateError) -> None:
        self.name = name
        self.error = error

    def __repr__(self) -> str:
        return f"<{self.name}: unavailable>"


class OnDemand:
    """Stands in a project's namespace for a library module not compiled on its own yet: Project.provide compiles it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}: compiled when asked for>"


class Project(Handle):
    """Everything a machine's __init__ can ask for by name: accounts, chain, one container per contract."""

    def __init__(
        self, config: Config, *, activate: bool = True, build: Build | None = None, want: Iterable[str] = ()
    ) -> None:
        """The project of config, compiled (through the build cache), or from build when given (one compiled for this
        config).

        want: names asked for (by machines, tests, deployments); a library module among them is compiled on its own too.
        """
        self.config = config
        if build is None:
            build = build_project(config, include=tuple(sorted(set(want))))
        self.build: Build = build
        # public getters (vyper's public variables of word type) are read from storage, not run; a differential
        # run's are run, on both builds
        self.fast_getters = build.counterpart is None
        self.artifacts: dict[str, Artifact] = self.build.artifacts
        # a contract that does not compile, or a library module, is an error only for whoever asks for it
        self.unavailable: dict[str, Unavailable] = {}
        for name, error in self.build.errors.items():
            self.unavailable[name] = Unavailable(
                name,
                CompileError(f"contract {name!r} does not compile:\n{error}", path=error.path, lineno=error.lineno),
            )
        if build.counterpart is not None:
            for name, usage in unmatched(build).items():
                self.unavailable[name] = Unavailable(name, usage)
            if config.differential.storage:
                check_layouts(build, str(config.path or "evmstate.toml"))
        # library modules under the contracts folder that no one has asked for: compiled when someone does
        self.on_demand: dict[str, OnDemand] = {}
        for m in self.build.modules:
            if m.in_project and m.name not in self.artifacts and m.name not in self.unavailable:
                if m.on_demand:
                    self.on_demand[m.name] = OnDemand(m.name)
                else:
                    self.unavailable[m.name] = Unavailable(m.name, UsageError(_library_message(m)))
        # contracts by module path too ("a/token"), as sources with colliding stems are named a_token
        self.module_paths = {module_path(path, config.contracts_dir): name for name, path in self.build.sources.items()}
        for m in self.build.modules:
            if m.name in self.on_demand:
                self.module_paths[module_path(Path(m.path), config.contracts_dir)] = m.name
        self.renew_chain()
        self.event_decoder = EventDecoder(self.artifact_at)
        self.containers: dict[str, ContractContainer] = {}
        for name, artifact in self.artifacts.items():
            self.event_decoder.add_abi(artifact.abi)
            if name in self.unavailable:
                continue
            self.containers[name] = ContractContainer(self, artifact)
        self._reference: Project | None = None
        self._watching: list[set[str]] = []  # see watching()
        if activate:
            current_project.set(self)

    def provide(self, name: str) -> Any:
        """What the namespace holds under name (None when nothing), a library module asked for compiled on its own
        first."""
        if name in self.on_demand:
            self._compile_module(name)
        return self.namespace().get(name)

    def _compile_module(self, name: str) -> None:
        """Compile a library module under the contracts folder on its own: a container when it compiles, else why
        not."""
        del self.on_demand[name]
        build = build_project(self.config, include=(*self.build.included, name))
        self.build.included = build.included
        artifact = build.artifacts.get(name)
        if artifact is not None and build.counterpart is not None and self.build.counterpart is not None:
            theirs = build.counterpart.artifacts.get(name)
            if theirs is None:
                self.unavailable[name] = Unavailable(name, unmatched(build)[name])
                return
            self.build.counterpart.artifacts[name] = theirs
            self.backend.codes = codes(build)  # type: ignore[attr-defined]
        if artifact is not None:
            self.artifacts[name] = artifact  # the build's own dict: whoever holds it sees the new contract
            self.build.sources[name] = build.sources[name]
            self.build.inputs_of[name] = build.inputs_of.get(name, {})
            self.event_decoder.add_abi(artifact.abi)
            self.containers[name] = ContractContainer(self, artifact)
            return
        module = next((m for m in build.modules if m.name == name), None)
        error = build.errors.get(name)
        if module is not None:
            self.unavailable[name] = Unavailable(name, UsageError(_library_message(module)))
        elif error is not None:
            self.unavailable[name] = Unavailable(
                name,
                CompileError(f"contract {name!r} does not compile:\n{error}", path=error.path, lineno=error.lineno),
            )

    def renew_chain(self) -> None:
        """Start again from a new chain (a new backend, its funded accounts, nothing deployed)."""
        self.backend = make_backend(self.config)
        if self.build.counterpart is not None:  # a differential run: a second chain, for side B's build
            self.backend = lockstep(self, self.backend, make_backend(self.config))
        self.accounts = Accounts(self.backend, [addr for _, addr in self.backend.account_keys])
        self.chain = Chain(self.backend)
        self._by_address: dict[bytes, Artifact] = {}
        self._labels: dict[bytes, str] = {}

    @contextlib.contextmanager
    def stand_in(self, backend: Backend) -> Iterator[None]:
        """While inside, the project's contracts, accounts and chain run on backend, a chain holding the same state (the
        shrinker replays a py-evm run's programs on revm); then on the project's own backend again."""
        own = self.backend
        # the funded accounts, the actors (whose re-entry call is written into their storage on this chain) and the
        # accounts accounts.at() makes
        accounts = [*self.accounts, *self.accounts.actors.values()]
        self.backend = self.chain._backend = self.accounts._backend = backend
        for account in accounts:
            account._backend = backend
        try:
            yield
        finally:
            self.backend = self.chain._backend = self.accounts._backend = own
            for account in accounts:
                account._backend = own

    def activate(self) -> "Project":
        """Make this the project whose accounts strategies draw from (the last one loaded, until then)."""
        current_project.set(self)
        return self

    @classmethod
    def load(cls, start: Path | str | None = None, **overrides: Any) -> "Project":
        """Find evmstate.toml at or above start (default: the current folder) and load the project."""
        cfg = config_mod.load(Path(start) if start is not None else None)
        if overrides:
            cfg = cfg.replace(**overrides)
        return cls(cfg)

    def reference(self) -> "Project":
        """The same project on a py-evm chain, where failures are explained to the source line; built once."""
        if self._reference is None:
            self._reference = Project(
                self.config.replace(backend=BackendConfig()), activate=False, want=self.build.included
            )
        return self._reference

    def deploy_actors(self, kinds: Iterable[str] = ACTOR_KINDS) -> dict[str, Actor]:
        """Deploy evmstate's actors of these kinds on this chain, as a machine that asks for them gets them before its
        __init__ (docs/actors.md); they are accounts.actors from then on, and strategy("address", actors=True)
        draws them."""
        kinds = tuple(kinds)
        return deploy_actors(self, check_actors(list(kinds), "deploy_actors", UsageError), kinds)

    def register(self, raw_address: bytes, artifact: Artifact, label: str | None = None) -> None:
        self._by_address[raw_address] = artifact
        for used in self._watching:
            used.add(artifact.name)
        if label is not None:
            self._labels[raw_address] = label
        else:
            self._labels.pop(raw_address, None)

    @contextlib.contextmanager
    def watching(self) -> Iterator[set[str]]:
        """While inside, the set it gives fills with the names of the contracts deployed or attached (.at) on this
        project."""
        used: set[str] = set()
        self._watching.append(used)
        try:
            yield used
        finally:
            self._watching.remove(used)

    def artifact_at(self, raw_address: bytes) -> Artifact | None:
        return self._by_address.get(raw_address)

    def deployment_at(self, raw_address: bytes) -> tuple[str, Artifact] | None:
        """(its label, else its contract's name; its contract) of what the project deployed or attached at an
        address."""
        artifact = self._by_address.get(raw_address)
        return (self._labels.get(raw_address, artifact.name), artifact) if artifact is not None else None

    def deployments(self) -> dict[bytes, str]:
        """Every address the project deployed or attached, with what traces call it (its label, else its contract's
        name)."""
        return {address: self._labels.get(address, artifact.name) for address, artifact in self._by_address.items()}

    def name_at(self, raw_address: bytes) -> str | None:
        """What traces call the contract at an address: its deployment's label, else its contract's name; None when
        unknown."""
        artifact = self._by_address.get(raw_address)
        return self._labels.get(raw_address, artifact.name) if artifact is not None else None

    def namespace(self) -> dict[str, Any]:
        """The names a machine's __init__ or a property test may ask for (OnDemand for a library module not compiled
        yet: see provide)."""
        return {"accounts": self.accounts, "chain": self.chain, **self.on_demand, **self.unavailable, **self.containers}

    def __getitem__(self, key: str) -> ContractContainer:
        """A container by name ("a_token") or by module path under the contracts folder ("a/token", "a/token.vy")."""
        path = key[:-3] if key.endswith(".vy") else key
        name = self.module_paths.get(path.replace(".", "/"), self.module_paths.get(path, key))
        if name in self.on_demand:
            self._compile_module(name)
        if name in self.containers:
            return self.containers[name]
        if name in self.unavailable:
            raise self.unavailable[name].error
        known = (
            ", ".join(
                f"{n} ({p})" if p != n else n for p, n in sorted(self.module_paths.items()) if n in self.containers
            )
            or "none"
        )
        raise NoSuchContract(f"project has no contract {key!r}; contracts: {known}")

    def __getattr__(self, name: str) -> Any:
        if name in self.__dict__.get("on_demand", {}):
            self._compile_module(name)
        containers = self.__dict__.get("containers", {})
        if name in containers:
            return containers[name]
        unavailable = self.__dict__.get("unavailable", {})
        if name in unavailable:
            raise unavailable[name].error
        raise AttributeError(f"project has no contract {name!r}; contracts: {', '.join(sorted(containers)) or 'none'}")


def _library_message(m: Module) -> str:
    instead = (
        f"deploy {', '.join(m.importers)} instead"
        if m.importers
        else "import it from a contract (which `initializes:` what it `uses:`) and deploy that contract"
    )
    return (
        f"{m.name!r} ({m.shown}) is a library module ({m.reason}): it is compiled as part of the contracts that import "
        f"it and has no container; {instead}."
    )
