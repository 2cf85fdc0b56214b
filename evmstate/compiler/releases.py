"""Vyper releases other than the installed one: a source's version pragma, the releases kept in the
user's cache folder, installing one there with pip, and compiling with it in a python of its own."""

from __future__ import annotations

import functools
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ..errors import CompileError

OLDEST = Version("0.2.8")  # the oldest release evmstate compiles with: older ones do not run on Python 3.9 and later
# releases before it have no modules and read their outputs with legacy_outputs (vyper 0.2.x and 0.3.x)
MODULES_FROM = Version("0.4.0")
_SCRIPT = Path(__file__).with_name("vyper_outputs.py")
_LEGACY_SCRIPT = Path(__file__).with_name("legacy_outputs.py")
# what vyper 0.3.0 and before import from setuptools, which Python 3.12 no longer brings along
_OLD_SETUPTOOLS = "setuptools<81"
# what a source pinned against a release a differential run compiles it with must do
REFUSED = (
    "a differential run's compiler:A,B compares two releases that both build the same source; compare a port with "
    "sources:OLD:NEW instead, or widen the pin"
)
_COMMENT_PIN = re.compile(r"^\s*(#\s*(pragma\s+version|@version)\s+(.*?))\s*$")


@dataclass(frozen=True)
class Pin:
    """A source's `# pragma version` (or `# @version`): as written, and as the specifier vyper reads it."""

    text: str
    spec: SpecifierSet

    @property
    def exact(self) -> str | None:
        """The one release an exact pin (`0.4.1`, `==0.4.1`) names, else None."""
        specs = list(self.spec)
        if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
            return specs[0].version
        return None

    def admits(self, version: str) -> bool:
        return self.spec.contains(version, prereleases=True)

    @property
    def legacy(self) -> bool:
        """Whether every release the pin admits is older than 0.4.0 (a 0.2.x or 0.3.x pin)."""
        if self.exact is not None:
            return _before(self.exact, MODULES_FROM)
        for spec in self.spec:
            version = spec.version.removesuffix(".*")
            if spec.operator in ("<", "<=") and _before(version, MODULES_FROM, or_equal=spec.operator == "<"):
                return True
            if (
                spec.operator in ("==", "~=")
                and _before(version, MODULES_FROM)
                and (spec.operator == "==" or version.count(".") >= 2)
            ):
                return True
        return False

    @property
    def requirement(self) -> str:
        """What pip is asked for."""
        return f"vyper=={self.exact}" if self.exact else f"vyper{self.spec}"


def _before(version: str, limit: Version, or_equal: bool = False) -> bool:
    try:
        return Version(version) < limit or (or_equal and Version(version) == limit)
    except InvalidVersion:
        return False


def legacy(release: str) -> bool:
    """Whether a release is older than 0.4.0: it has no modules, and legacy_outputs reads its compile."""
    return _before(release, MODULES_FROM)


def legacy_pin(pin: Pin, release: str) -> bool:
    """Whether a pinned source compiles with a 0.2.x/0.3.x release: the one chosen, or, none installed yet, every one
    the pin admits."""
    return legacy(release) if release else pin.legacy


def _version_comments(text: str) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """The comments that pin the compiler: (start, end, the version text), in vyper's two spellings."""
    found = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # vyper's own parser will say what is wrong with the source; the pin is still read off a
        # line that is a comment and nothing else, so that the release it names says it
        for row, line in enumerate(text.splitlines(), 1):
            if m := _COMMENT_PIN.match(line):
                found.append(((row, m.start(1)), (row, len(line.rstrip())), m.group(3).strip()))
        return found
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        contents = tok.string[1:].strip()
        if contents.startswith("@version"):
            found.append((tok.start, tok.end, contents.removeprefix("@version").strip()))
        elif contents.startswith("pragma ") and contents.removeprefix("pragma ").strip().startswith("version "):
            found.append(
                (tok.start, tok.end, contents.removeprefix("pragma ").strip().removeprefix("version ").strip())
            )
    return found


@functools.lru_cache(maxsize=1024)  # every load of a project reads its sources' pins again; a text's pin is its own
def pin_of(text: str) -> Pin | None:
    """The source's version pin read as vyper reads it (`0.4.1` means `==0.4.1`, `^0.4.1` means `~=0.4.1`); None when it
    has none or vyper would refuse it."""
    found = _version_comments(text)
    if len(found) != 1:
        return None  # none, or pinned twice: vyper says so itself
    written = found[0][2]
    spec = "==" + written if re.match("[v0-9]", written) else re.sub(r"^\^", "~=", written)
    try:
        return Pin(written, SpecifierSet(spec))
    except InvalidSpecifier:
        return None


def without_version_pragmas(text: str) -> str:
    """The source with its version pragmas blanked (same lines and columns), for reading its imports under any
    release."""
    lines = text.splitlines(keepends=True)
    for (row, col), (end_row, end_col), _ in _version_comments(text):
        if row == end_row:
            line = lines[row - 1]
            lines[row - 1] = line[:col] + "#" + " " * (end_col - col - 1) + line[end_col:]
    return "".join(lines)


def cache_folder() -> Path:
    """evmstate's folder in the user's cache: $EVMSTATE_CACHE_DIR, else $XDG_CACHE_HOME/evmstate, else ~/.cache/evmstate
    (%LOCALAPPDATA% on Windows)."""
    if os.environ.get("EVMSTATE_CACHE_DIR"):
        return Path(os.environ["EVMSTATE_CACHE_DIR"]).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "evmstate"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "evmstate" / "Cache"
    return Path.home() / ".cache" / "evmstate"


def releases_folder() -> Path:
    """Where the releases are kept, one folder each (a `pip install --target` of that release)."""
    return cache_folder() / "vyper"


def cached() -> dict[str, Path]:
    """The releases in the cache: version -> the folder holding it."""
    found: dict[str, Path] = {}
    root = releases_folder()
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue  # an install under way
        for info in folder.glob("vyper-*.dist-info"):
            version = info.name.removeprefix("vyper-").removesuffix(".dist-info")
            if (folder / "vyper" / "__init__.py").is_file():
                found.setdefault(version, folder)
    return found


def newest_cached(pin: Pin) -> tuple[str, Path] | None:
    """The newest release in the cache that the pin admits."""
    admitted = [v for v in cached() if pin.admits(v)]
    if not admitted:
        return None
    best = max(admitted, key=Version)
    return best, cached()[best]


def _installer() -> list[str]:
    """pip of this python; uv's pip where this python has none (a venv uv made)."""
    if importlib.util.find_spec("pip") is None and shutil.which("uv"):
        return [shutil.which("uv") or "uv", "pip", "install", "--python", sys.executable]
    return [sys.executable, "-m", "pip", "install"]


def _legacy_flags(pin: Pin) -> list[str]:
    """What pip needs for a 0.2.x or 0.3.x release: those before 0.3.8 declare a Python older than
    3.11, yet they are pure Python and run on it (pip's flag; uv has none)."""
    return ["--ignore-requires-python"] if pin.legacy and _installer()[0] == sys.executable else []


def install_command(pin: Pin) -> str:
    folder = releases_folder() / (pin.exact or "pinned")
    return shlex.join([*_installer(), *_legacy_flags(pin), "--target", str(folder), pin.requirement])


def unsupported(source: Path, pin: Pin, version: str) -> CompileError:
    chosen = "" if pin.exact == version else f" (pip installs vyper {version})"
    return CompileError(
        f"{source}: pins vyper {pin.text}{chosen}; evmstate compiles with vyper {OLDEST} and later only: older "
        f"releases do not run on Python 3.9 and later. Pin {OLDEST} or a later release (e.g. `# @version 0.2.16`, or "
        "`# pragma version ~=0.4.0` for the current language).",
        path=str(source),
    )


def install(pin: Pin, source: Path) -> tuple[str, Path]:
    """Install the newest release the pin admits into the cache with pip: (version, folder).

    pip installs into a fresh folder beside the others, renamed to the release's version when
    complete: two processes installing at once both succeed and one folder is kept.
    """
    if pin.exact is not None:
        try:
            if Version(pin.exact) < OLDEST:
                raise unsupported(source, pin, pin.exact)
        except InvalidVersion:
            pass  # pip says what is wrong with it
    root = releases_folder()
    try:
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=root, prefix=".install-"))
    except OSError as e:
        raise CompileError(
            f"{source}: pins vyper {pin.text}, which is not installed, and evmstate cannot install it into {root}: {e}."
            " Set EVMSTATE_CACHE_DIR to a folder it may write to.",
            path=str(source),
        ) from None
    quiet = ["--no-input", "--disable-pip-version-check"] if _installer()[0] == sys.executable else []
    command = [*_installer(), *quiet, *_legacy_flags(pin), "--target", str(work), pin.requirement]
    try:
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        versions = [p.name.removeprefix("vyper-").removesuffix(".dist-info") for p in work.glob("vyper-*.dist-info")]
        if done.returncode == 0 and len(versions) == 1 and _imports_pkg_resources(work):
            # vyper 0.3.0 and before import pkg_resources, which newer setuptools no longer has
            done = subprocess.run(
                [*command[:-1], _OLD_SETUPTOOLS], capture_output=True, text=True, stdin=subprocess.DEVNULL
            )
        if done.returncode != 0 or len(versions) != 1:
            raise CompileError(
                f"{source}: pins vyper {pin.text}, which is not installed (evmstate runs vyper {_installed()}), and "
                f"pip could not install {pin.requirement} from the package index:\n  "
                f"{_pip_said(done.stderr + done.stdout, done.returncode)}\n"
                "  Install it where evmstate looks for it, once the index can be reached:\n    "
                f"{install_command(pin)}\n  or set EVMSTATE_CACHE_DIR to a folder whose vyper/ subfolder holds such an "
                "install, or change the pragma"
                f" to admit vyper {_installed()}.",
                path=str(source),
            )
        version = versions[0]
        if Version(version) < OLDEST:
            raise unsupported(source, pin, version)
        try:
            os.rename(work, root / version)
        except OSError:
            pass  # another process installed it first: keep its folder
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return version, root / version


def _imports_pkg_resources(folder: Path) -> bool:
    init = folder / "vyper" / "__init__.py"
    return (
        init.is_file()
        and "pkg_resources" in init.read_text(encoding="utf-8", errors="replace")
        and not (folder / "pkg_resources").is_dir()
    )


def _pip_said(output: str, code: int) -> str:
    """pip's errors, and why the index could not be reached when that is why."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    said = [line for line in lines if line.startswith("ERROR:")][-2:] or lines[-2:] or [f"pip exited {code}"]
    offline = r"(Failed to establish a new connection: [^')\"]*|Name or service not known|Network is unreachable)"
    unreachable = [m.group(1) for line in lines if (m := re.search(offline, line))]
    if unreachable:
        said.append(f"(the index could not be reached: {unreachable[-1]})")
    elif any("(from versions: none)" in line for line in said):
        said.append("(the index listed no vyper release: it could not be reached, or it does not hold vyper)")
    return "\n  ".join(said)


def _installed() -> str:
    from importlib.metadata import version

    return version("vyper")


def compile_with(folder: Path, version: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Compile with the release in folder, in a python of its own that sees nothing but that folder and the standard
    library.

    A 0.2.x or 0.3.x release is read by legacy_outputs, any other by vyper_outputs.
    """
    command = [sys.executable, "-I", "-S", str(_LEGACY_SCRIPT if legacy(version) else _SCRIPT), str(folder)]
    done = subprocess.run(command, input=json.dumps(requests), capture_output=True, text=True)
    try:
        answer = json.loads(done.stdout)
        if answer["vyper"] != version or len(answer["results"]) != len(requests):
            raise ValueError(
                f"vyper {answer['vyper']} answered for {len(answer['results'])} of {len(requests)} sources"
            )
    except (ValueError, KeyError, TypeError) as e:
        said = "\n  ".join(done.stderr.strip().splitlines()[-5:]) or str(e)
        if (
            re.search(r"^(ModuleNotFoundError|ImportError|SyntaxError|AttributeError): ", done.stderr, re.M)
            and "vyper" in done.stderr
        ):
            # the release's own code fails to load under this Python: installing it again would not help
            python = ".".join(map(str, sys.version_info[:3]))
            raise CompileError(
                f"vyper {version} does not run on Python {python}, which evmstate runs on: {said}\n"
                "  Pin a release that runs on it (the releases checked are in docs/vyper-0.3.md), or run evmstate "
                "with the Python the release supports.",
                path=str(folder),
            ) from None
        raise CompileError(
            f"vyper {version} in {folder} did not compile: {said}\n  Remove that folder and evmstate installs the "
            "release again.",
            path=str(folder),
        ) from None
    return answer["results"]


def folder_for(s: Any, installs: dict[str, Any]) -> Path:
    """The folder of the release a pinned source compiles with, installed once per requirement."""
    assert s.pin is not None
    found = cached()
    if s.release in found:
        return found[s.release]
    if s.pin.requirement not in installs:
        try:
            installs[s.pin.requirement] = install(s.pin, s.path)
        except CompileError as e:
            installs[s.pin.requirement] = e
    installed = installs[s.pin.requirement]
    if isinstance(installed, CompileError):
        raise CompileError(str(installed).replace(str(installed.path), str(s.path), 1), path=str(s.path))
    s.release = installed[0]
    return installed[1]
