"""Resolves imports as vyper does, chooses the vyper release each source compiles with, compiles, caches on disk.

The compile itself is vyper_outputs': in this process with the installed vyper, or in a python of
its own for a source pinned to another release (see releases).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

from vyper.compiler.settings import OptimizationLevel

from . import cache as build_cache, codegen as venom, legacy_outputs, releases, vyper_outputs
from .cache import CACHE_FORMAT, portable
from .vyper_warnings import CompileWarning, compile_warnings, shower, shown
from .artifacts import Artifact, error_signatures
from ..errors import CompileError, ResourceError
from .releases import Pin
from .scan import scan
from .search import not_found_hint, search_paths
from ..files import Undecodable, decode

VYPER_VERSION: str = vyper_outputs.VERSION


@dataclass(frozen=True)
class Module:
    """A library module: compiled as part of the contracts that import it, not on its own unless asked for by name."""

    name: str
    path: str  # where vyper found it
    shown: str  # relative to the project root, or to the search path (e.g. site-packages) holding it
    importers: tuple[str, ...]  # the sources under the contracts folder that import it, directly or not
    in_project: bool  # under the contracts folder
    reason: str = ""  # why a module under the contracts folder has no container
    # under the contracts folder and not compiled on its own: it is, once a machine or test asks for it by name
    on_demand: bool = False


@dataclass
class Build:
    """A compiled project: deployable contracts, the contracts that do not compile, library modules."""

    artifacts: dict[str, Artifact] = field(default_factory=dict)
    errors: dict[str, CompileError] = field(default_factory=dict)
    modules: list[Module] = field(default_factory=list)
    # contract name -> its source, for the deployable contracts and those that do not compile
    sources: dict[str, Path] = field(default_factory=dict)
    # every file every source compiles from: shown path -> sha256
    inputs: dict[str, str] = field(default_factory=dict)
    # the same per source: contract (or module) name -> {shown path: sha256} of what it compiles from
    inputs_of: dict[str, dict[str, str]] = field(default_factory=dict)
    compiled: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    # the names of library modules under the contracts folder compiled on their own because they were asked for
    included: tuple[str, ...] = ()
    # what vyper warned of in the contracts' sources and the modules they import, once per file and warning
    warnings: list[CompileWarning] = field(default_factory=list)
    # why the build cache could not be written (a full or read-only disk), None when it could: the build is
    # whole all the same, and the next run compiles again what was not kept
    cache_error: str | None = None
    counterpart: "Build | None" = None  # a differential run's side B build, compared with this one (side A)
    sides: tuple[str, str] = ("A", "B")  # what each side is in a differential run: ("legacy", "venom")


_all_search_paths = search_paths  # for functions whose search_paths parameter hides it


def _settings_key(evm_version: str, optimize: str, folders: Sequence[Path], root: Path) -> str:
    where = ",".join(portable(str(p.resolve()), root) for p in folders)
    return f"evm={evm_version};opt={optimize};paths={where};format={CACHE_FORMAT}"


@dataclass
class _Source:
    """A source under the contracts folder with its imports resolved (nothing compiled yet)."""

    path: Path
    source_hash: str
    inputs: dict[Path, str]  # every file it compiles from, resolved: itself first, then its imports
    search: list[Path]
    evm_version: str
    optimize: str
    error: CompileError | None = None  # the imports could not be resolved
    pin: Pin | None = None  # a version pin the installed vyper does not satisfy
    release: str = VYPER_VERSION  # the vyper release it compiles with; "" while a pin waits for an install
    rescan: bool = False  # its imports are not known yet: the pinned release will say what they are
    name: str = ""  # its container's name: the file stem, or its module path when stems collide (see _name_sources)
    exposes: bool = True  # it has something to deploy: an external function, an `exports:` or a public variable
    overlay: dict[str, str] = field(default_factory=dict)  # resolved path -> text read instead of the file (a mutant)
    # built with Venom (experimental codegen): the project's setting, the source's pragma, or its own entry
    venom: bool = False
    pragma_venom: bool = False  # the source's own pragma asks for Venom

    @cached_property
    def real(self) -> Path:
        """path resolved, once per build (the key of its outcome, its library entry and its importers)."""
        return self.path.resolve()


def _request(s: _Source) -> dict[str, Any]:
    request: dict[str, Any] = {"path": str(s.path), "search": [str(p) for p in s.search]}
    request.update(evm_version=s.evm_version, optimize=s.optimize)
    if s.venom or s.pragma_venom:
        request["experimental_codegen"] = s.venom
    return {**request, "overlay": s.overlay} if s.overlay else request


def _resolve(
    path: Path, search: list[Path], evm_version: str, optimize: str, hint: str, release: str | None = None
) -> _Source:
    try:
        text = path.read_bytes()
    except OSError as e:
        return _Source(
            path, "", {}, search, evm_version, optimize,
            CompileError(f"{path}: cannot read: {e.strerror}. Make it readable.", path=str(path)), name=path.stem,
        )
    source = _Source(
        path, hashlib.sha256(text).hexdigest(), {path.resolve(): hashlib.sha256(text).hexdigest()}, search, evm_version,
        optimize, name=path.stem,
    )
    try:
        decode(text)
    except Undecodable as e:  # said before vyper, which names neither the line nor what to do
        source.error = CompileError(
            f"{path}{f':{e.line}' if e.line else ''}: cannot read: {e.problem}.", path=str(path), lineno=e.line or None
        )
        return source
    source.pragma_venom = venom.PRAGMA.search(text.decode("utf-8", errors="replace")) is not None
    pin = releases.pin_of(text.decode("utf-8", errors="replace"))
    if release is not None:  # every source with this release (a differential run's side)
        if pin is not None and not pin.admits(release):
            refused = f"{path}: its version pin ({pin.text}) refuses vyper {release}: {releases.REFUSED}"
            source.error = CompileError(refused, path=str(path))
            return source
        pin = None if release == VYPER_VERSION else releases.pin_of(f"# pragma version {release}\n")
    if pin is not None and not pin.admits(VYPER_VERSION):
        found = releases.newest_cached(pin)
        source.pin, source.release = pin, found[0] if found else ""
    try:
        source.inputs, source.exposes = (
            (legacy_outputs.inputs_of(path, search), True)
            if source.pin and releases.legacy_pin(source.pin, source.release)
            else scan(path, search)
        )
        return source
    except Exception:
        pass  # let vyper's own pass say what is wrong, in its words
    if source.pin is not None:
        source.rescan = True  # the pinned release says it when it compiles
        return source
    result = vyper_outputs.resolve(_request(source))
    source.inputs = {Path(p): h for p, h in result["inputs"].items()} or source.inputs
    if result["error"] is not None:
        source.error = _error(result["error"], hint if result["error"]["type"] == "ModuleNotFound" else "")
    return source


def _error(found: dict[str, Any], hint: str = "") -> CompileError:
    message = found["message"]
    # vyper panics on an imported file that is not UTF-8
    if found["type"] == "CompilerPanic" and "codec can't decode" in message:
        head, _, rest = message.partition("\n")
        where = f"{found['path']}:{found['lineno']}" if found["lineno"] else str(found["path"])
        message = (
            f"{where}: a file this one imports is not UTF-8 text ({head.rsplit('unhandled exception ', 1)[-1]}); save "
            f"it as UTF-8\n{rest.split('This is an unhandled internal compiler error')[0].rstrip()}"
        )
    return CompileError(message + hint, path=found["path"], lineno=found["lineno"])


@dataclass
class _Plan:
    """A project's sources resolved, with what the cache already knows of each."""

    root: Path
    search: list[Path]
    build_dir: Path | None
    settings_key: str
    sources: list[_Source]
    hint: str  # what to do about an import that is not found
    # resolved path of a source -> the names of the other sources that import it
    importers: dict[Path, list[str]]
    # resolved path of a source -> (artifact, error, failed only for being a module) from the cache
    outcomes: dict[Path, tuple[Artifact | None, CompileError | None, bool]] = field(default_factory=dict)
    # resolved path of a source not compiled on its own (a library module nothing asked for) -> why
    library: dict[Path, str] = field(default_factory=dict)

    def cache_file(self, s: _Source) -> Path:
        """The cache entry of s: named after its path and every input's path and hash, below the root by their place in
        it."""
        assert self.build_dir is not None
        tag = hashlib.sha256(portable(str(s.real), self.root).encode()).hexdigest()[:8]
        body = "\n".join(sorted(f"{portable(str(p), self.root)}\0{h}" for p, h in s.inputs.items()))
        codegen = "venom" if s.venom else "legacy"
        keyed = f"vyper={s.release};codegen={codegen};{self.settings_key}\n{body}"
        key = hashlib.sha256(keyed.encode()).hexdigest()[:24]
        return self.build_dir / f"{s.name}-{tag}-{key}.json"


def _plan(
    contracts_dir: Path,
    build_dir: Path | None,
    evm_version: str,
    optimize: str,
    extra: Sequence[Path],
    root: Path | None,
    include: Sequence[str] = (),
    codegen: tuple[bool, Sequence[tuple[str, bool]]] = (False, ()),
    release: str | None = None,
) -> _Plan:
    contracts_dir = contracts_dir.resolve()
    root = root.resolve() if root is not None else contracts_dir.parent
    extra = [Path(p) if Path(p).is_absolute() else root / p for p in extra]
    search = search_paths(contracts_dir, root, extra)
    hint = not_found_hint(contracts_dir, root, extra)
    OptimizationLevel.from_string(optimize)  # a bad level is refused before any compile
    sources = []
    for p in find_sources(contracts_dir):
        sources.append(_resolve(p, search, evm_version, optimize, hint, release))
    _name_sources(sources, contracts_dir)
    for s in sources:
        _choose_codegen(s, codegen, contracts_dir)
    by_path = {s.real: s for s in sources}
    importers: dict[Path, list[str]] = {}
    for s in sources:
        for dep in list(s.inputs)[1:]:
            if dep in by_path and dep != s.real:
                importers.setdefault(dep, []).append(s.name)
    plan = _Plan(
        root, search, build_dir, _settings_key(evm_version, optimize, [contracts_dir, root, *extra], root), sources,
        hint, importers,
    )
    for s in sources:
        if s.name in include:
            continue
        if importers.get(s.real):
            plan.library[s.real] = f"imported by {', '.join(importers[s.real])}"
        elif not s.exposes:
            plan.library[s.real] = "it has no external function, `exports:` or public variable"
    for s in sources if build_dir is not None else ():
        if s.error is None and s.release and not s.rescan:
            outcome = build_cache.read(plan.cache_file(s), s.path, s.name, root)
            if outcome is not None:
                plan.outcomes[s.real] = outcome
    return plan


def _choose_codegen(s: _Source, codegen: tuple[bool, Sequence[tuple[str, bool]]], contracts_dir: Path) -> None:
    """Which code generator builds s (codegen.chosen), and the error of a Venom build it cannot have."""
    legacy = s.pin is not None and releases.legacy_pin(s.pin, s.release)
    module = _module_path(s.path, s.real, contracts_dir)  # contracts_dir: resolved by _plan
    s.venom, error = venom.chosen(s.name, module, s.path, s.pragma_venom, s.release if legacy else None, codegen)
    if s.error is None:
        s.error = error


def module_path(path: Path, contracts_dir: Path) -> str:
    """A source's module path under the contracts folder, as imports write it with slashes: "a/token"."""
    return _module_path(path, path.resolve(), contracts_dir.resolve())


def _module_path(path: Path, real: Path, contracts_real: Path) -> str:
    """module_path() given the source's path resolved (real) and the contracts folder's."""
    try:
        return real.relative_to(contracts_real).with_suffix("").as_posix()
    except ValueError:
        return path.stem


def _name_sources(sources: list[_Source], contracts_dir: Path) -> None:
    """Name each source after its file stem, or after its module path where stems collide (contracts_dir resolved).

    a/token.vy and b/token.vy are a_token and b_token (an identifier, so that a machine can ask
    for it by parameter name); a token.vy beside them stays token. A name left shared (a_token.vy
    beside a/token.vy) is an error of that name when the project is built.
    """
    stems: dict[str, int] = {}
    for s in sources:
        stems[s.path.stem] = stems.get(s.path.stem, 0) + 1
    for s in sources:
        if stems[s.path.stem] > 1:
            s.name = re.sub(r"\W", "_", _module_path(s.path, s.real, contracts_dir).replace("/", "_"))
        else:
            s.name = s.path.stem


# (artifact, error, whether it failed only for being a module)
Outcome = tuple[Artifact | None, CompileError | None, bool]


def _outcome(s: _Source, result: dict[str, Any], hint: str) -> Outcome:
    """A compile's result as an Artifact or an error; s.inputs become the files the compile read."""
    s.inputs = {Path(p): h for p, h in result["inputs"].items()} or s.inputs
    if result["error"] is not None:
        return (
            None, _error(result["error"], hint if result["error"]["type"] == "ModuleNotFound" else ""),
            result["module_only"],
        )
    out = result["outputs"]
    artifact = Artifact.from_dict({
        **out,
        "name": s.name,
        "path": str(s.path),
        "source_hash": s.source_hash,
        "error_signatures": error_signatures(out["sources"].values()),
        "inputs": {str(k): v for k, v in s.inputs.items()},
        "vyper": s.release,
        "warnings": result.get("warnings", []),
    })
    return artifact, None, False


def _compile_all(sources: list[_Source], hint: str) -> tuple[dict[Path, Outcome], set[Path]]:
    """Compile the sources, each with its release: (outcome by resolved path, those whose outcome is not to be cached).

    The installed vyper compiles in this process; the sources pinned to one other release
    compile together in one python of that release.
    """
    outcomes: dict[Path, Outcome] = {}
    passing = {s.real for s in sources if s.rescan}
    installs: dict[str, Any] = {}
    groups: dict[Path, list[_Source]] = {}
    for s in sources:
        if s.pin is None:
            outcomes[s.real] = _outcome(s, vyper_outputs.compile_source(_request(s)), hint)
            continue
        try:
            groups.setdefault(releases.folder_for(s, installs), []).append(s)
        except CompileError as e:  # the release cannot be installed now: tried again next time
            outcomes[s.real] = (None, e, False)
            passing.add(s.real)
    for folder, group in groups.items():
        try:
            results = releases.compile_with(folder, group[0].release, [_request(s) for s in group])
        except CompileError as e:
            for s in group:
                outcomes[s.real] = (None, CompileError(f"{s.path}: {e}", path=str(s.path)), False)
                passing.add(s.real)
            continue
        for s, result in zip(group, results):
            outcomes[s.real] = _outcome(s, result, hint)
    return outcomes, passing


def find_sources(contracts_dir: Path) -> list[Path]:
    """Every .vy file in the contracts folder and below it, sorted."""
    if not contracts_dir.is_dir():
        return []
    found = contracts_dir.rglob("*.vy")
    # a folder named *.vy is not a source; anything else that can be read is (a pipe too)
    return sorted(p for p in found if ".evmstate" not in p.relative_to(contracts_dir).parts and not p.is_dir())


def _first_line(error: CompileError) -> str:
    """vyper's message without the file and line in front."""
    line = str(error).splitlines()[0]
    return line.split(": ", 1)[1] if line.startswith(f"{error.path}:") and ": " in line else line


def compile_project(
    contracts_dir: Path,
    build_dir: Path,
    *,
    evm_version: str = "prague",
    optimize: str = "gas",
    search_paths: Sequence[Path] = (),
    root: Path | None = None,
    include: Sequence[str] = (),
    experimental_codegen: bool = False,
    codegen: Sequence[tuple[str, bool]] = (),
    release: str | None = None,
) -> Build:
    """Compile the contracts under contracts_dir, taking those whose inputs are unchanged from build_dir.

    search_paths are extra folders to import from (relative ones are taken from root, which
    defaults to the folder holding contracts_dir). A source that does not compile is kept as an
    error of its own. A library module (a source other sources import, or one with nothing to
    deploy) is compiled only as part of the contracts that import it, unless include names it.
    experimental_codegen builds with Venom; codegen says it per contract, over the sources' pragmas.
    release compiles every source with that vyper release, whatever the installed one (a source whose pin
    refuses it is an error).
    """
    codegens = (experimental_codegen, codegen)
    plan = _plan(contracts_dir, build_dir, evm_version, optimize, search_paths, root, include, codegens, release)
    show = shower(plan.root, plan.search)
    build = Build(included=tuple(s.name for s in plan.sources if s.name in include))
    claims: dict[str, list[tuple[_Source, Artifact | None, CompileError | None]]] = {}
    todo = [
        s for s in plan.sources
        if s.error is None and s.real not in plan.outcomes and s.real not in plan.library
    ]
    # resolved again as vyper compiles: s.inputs become what it used
    fresh, passing = _compile_all(todo, plan.hint)
    for s in plan.sources:
        key = s.real
        own = build.inputs_of.setdefault(s.name, {})
        if key in plan.library:
            for dep, h in s.inputs.items():
                where = show(dep)
                build.inputs[where] = own[where] = h
            importers = tuple(plan.importers.get(key, []))
            where = show(key)
            build.modules.append(Module(s.name, str(key), where, importers, True, plan.library[key], on_demand=True))
            continue
        if s.error is not None:
            outcome: Outcome = (None, s.error, False)
        elif key in plan.outcomes:
            outcome = plan.outcomes[key]
            build.cached.append(s.name)
        else:
            outcome = fresh[key]
            if key not in passing and build.cache_error is None:
                try:
                    build_cache.write(plan.cache_file(s), s.path, outcome, plan.root)
                except OSError as exc:
                    folder = plan.cache_file(s).parent
                    where = shown(folder.resolve(), plan.root, ()) + "/"
                    then = "the contracts are compiled all the same, and compiled again by the next run"
                    build.cache_error = str(ResourceError.unwritable("the build cache", where, exc, then))
            build.compiled.append(s.name)
        for dep, h in s.inputs.items():
            where = show(dep)
            build.inputs[where] = own[where] = h
        artifact, error, module_only = outcome
        importers = tuple(plan.importers.get(key, ()))
        if artifact is None and (importers or module_only):
            if importers:
                reason = f"imported by {', '.join(importers)}"
            else:
                reason = f"it cannot be compiled on its own: {_first_line(error)}"  # type: ignore[arg-type]
            build.modules.append(Module(s.name, str(key), show(key), importers, True, reason))
            continue
        claims.setdefault(s.name, []).append((s, artifact, error))
    _claim(build, claims)
    _outside_modules(build, plan, contracts_dir)
    build.warnings = compile_warnings(build.artifacts.values(), plan.root, plan.search)
    return build


def _claim(build: Build, claims: dict[str, list[tuple[_Source, Artifact | None, CompileError | None]]]) -> None:
    """Each name's contract or error; a name two sources claim is an error of that name."""
    for name, found in claims.items():
        build.sources[name] = found[0][0].path
        if len(found) > 1:
            paths = " and ".join(str(s.path) for s, _, _ in found)
            message = (
                f"two contracts are named {name!r}: {paths}. Contracts are named after their file stem, or after their "
                "module path where stems collide (a/token.vy is a_token); rename one of them."
            )
            build.errors[name] = CompileError(message, path=str(found[0][0].path))
        elif found[0][1] is not None:
            build.artifacts[name] = found[0][1]  # type: ignore[assignment]
        else:
            build.errors[name] = found[0][2]  # type: ignore[assignment]


def _outside_modules(build: Build, plan: _Plan, contracts_dir: Path) -> None:
    """The modules outside the contracts folder, and those inside it that were asked for and compile on their own."""
    seen = {m.path for m in build.modules}
    names = {s.real: s.name for s in plan.sources}
    users: dict[Path, list[str]] = {}
    for s in plan.sources:
        for dep in list(s.inputs)[1:]:
            if dep.suffix == ".vy":
                users.setdefault(dep, []).append(s.name)
    contracts = contracts_dir.resolve()
    show = shower(plan.root, plan.search)
    for dep, importers in users.items():
        if str(dep) in seen:
            continue
        inside = dep.is_relative_to(contracts)
        build.modules.append(
            Module(names.get(dep, dep.stem), str(dep), show(dep), tuple(importers), inside)
        )
    build.modules.sort(key=lambda m: (not m.in_project, m.shown))


def compile_variant(
    contracts_dir: Path,
    source: Path,
    name: str,
    overlay: dict[str, str],
    *,
    evm_version: str = "prague",
    optimize: str = "gas",
    search_paths: Sequence[Path] = (),
    root: Path | None = None,
    experimental_codegen: bool = False,
    codegen: Sequence[tuple[str, bool]] = (),
) -> tuple[Artifact | None, CompileError | None]:
    """One contract compiled as compile_project() would, with files it compiles from read from overlay
    (resolved path -> text) instead of from disk: a mutant of it. Nothing is read from or written to the cache."""
    contracts_dir = contracts_dir.resolve()
    root = root.resolve() if root is not None else contracts_dir.parent
    extra = [Path(p) if Path(p).is_absolute() else root / p for p in search_paths]
    search = _all_search_paths(contracts_dir, root, extra)
    hint = not_found_hint(contracts_dir, root, extra)
    s = _resolve(source, search, evm_version, optimize, hint)
    if s.error is not None:
        return None, s.error
    s.name, s.overlay = name, dict(overlay)
    _choose_codegen(s, (experimental_codegen, codegen), contracts_dir)
    if s.error is not None:
        return None, s.error
    own = overlay.get(str(source.resolve()))
    if own is not None:
        s.source_hash = hashlib.sha256(own.encode()).hexdigest()
    outcomes, _ = _compile_all([s], hint)
    artifact, error, _ = outcomes[source.resolve()]
    return artifact, error


def contract_names(
    contracts_dir: Path,
    build_dir: Path,
    *,
    evm_version: str = "prague",
    optimize: str = "gas",
    search_paths: Sequence[Path] = (),
    root: Path | None = None,
    experimental_codegen: bool = False,
    codegen: Sequence[tuple[str, bool]] = (),
) -> list[str]:
    """The names that may be contracts, without compiling: every source the cache does not know to be a library module.

    A library module nothing has asked for yet is among them: asking for it compiles it (Project.provide).
    """
    codegens = (experimental_codegen, codegen)
    plan = _plan(contracts_dir, build_dir, evm_version, optimize, search_paths, root, (), codegens)
    names = []
    for s in plan.sources:
        outcome = plan.outcomes.get(s.real)
        if outcome is not None and outcome[0] is None and (outcome[2] or plan.importers.get(s.real)):
            continue
        if s.name not in names:
            names.append(s.name)
    return names


def input_hashes(contracts_dir: Path, *, search_paths: Sequence[Path] = (), root: Path | None = None) -> dict[str, str]:
    """Every file the project's sources compile from, as vyper resolves imports: shown path -> sha256."""
    plan = _plan(contracts_dir, None, "prague", "gas", search_paths, root)
    show = shower(plan.root, plan.search)
    return {show(dep): h for s in plan.sources for dep, h in s.inputs.items()}
