"""evmstate.toml read and its values checked beyond their type: the file as UTF-8 TOML, the bounds of
each key, the keys that must agree, and where a misplaced key belongs.

Every problem is a ConfigError that names the file, the key and what to write. config/ builds the
settings; this module says what they may be.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from packaging.version import InvalidVersion, Version

from .errors import ConfigError, UsageError
from .files import Undecodable, decode
from .units import duration_seconds

INT64 = 2**63 - 1  # TOML's integers are 64-bit (tomllib reads larger ones all the same)
UINT256 = 2**256 - 1
# a funded account costs a key derivation (about 2.5 ms in pure Python) each time a chain starts
MAX_ACCOUNTS = 1000
# Hypothesis keeps at most 8192 choices of one run and a step draws a few (its rule, its arguments,
# its wait): a run that needs more is thrown away, and a search of such runs never ends. 1000 steps
# of a rule without arguments fit; of rules with three, about 500 do (measured: 700 did not)
MAX_STEPS = 1000
MAX_DEADLINE = 86_400_000  # milliseconds: a day
MAX_CALL_TIMEOUT = 86_400.0  # seconds: a day
MAX_FORK_TIMEOUT = 3_600.0  # seconds: an hour
# the phases that run examples: without one of them nothing runs and every machine passes
RUNNING_PHASES = ("explicit", "reuse", "generate")

# the actors evmstate deploys when asked (contracts/actors.py): a contract account each, named by how
# it answers ether and ERC-721, ERC-1155 and ERC-777 callbacks
ACTOR_KINDS = (
    "receiver",
    "rejects-ether",
    "reenters",
    "refuses-erc721",
    "refuses-erc1155",
    "refuses-erc777",
    "reenters-erc721",
    "reenters-erc1155",
    "reenters-erc777",
    "reenters-other",
)


def check_actors(value: Any, where: str, error: type[Exception]) -> tuple[str, ...]:
    """A list of actor kinds (true: every kind), each named once and known; error(message) otherwise."""
    if value is True:
        return ACTOR_KINDS
    if value is False:
        return ()
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise error(
            f"{where} must be a list of actor kinds such as [\"rejects-ether\", \"reenters\"] (or true for "
            f"all of them); got {value!r}."
        )
    for name in value:
        if name not in ACTOR_KINDS:
            close = difflib.get_close_matches(name, ACTOR_KINDS, n=1)
            hint = f"Did you mean {close[0]!r}?" if close else f"The kinds are {', '.join(ACTOR_KINDS)}."
            raise error(f"{where}: {name!r} is not an actor evmstate deploys. {hint}")
    return tuple(dict.fromkeys(value))
# keys whose value is a folder or file relative to the project root
PATH_KEYS = {
    ("project", "contracts"), ("project", "machines"), ("project", "deployments"), ("project", "artifacts"),
    ("compiler", "search_paths"), ("database", "url"),
}


EVM_VERSIONS = ("london", "paris", "shanghai", "cancun", "prague")
@dataclass(frozen=True)
class Bound:
    """The values a numeric key may take, and why."""

    low: float
    high: float
    why: str
    high_shown: str = ""  # the upper bound as the message writes it, when not the number itself

    def check(self, where: str, section: str, key: str, value: float, default: Any) -> None:
        if self.low <= value <= self.high:
            return
        high, low = self.high_shown or _number(self.high), _number(self.low)
        side = f"is more than {high}" if value > self.high else f"is less than {low}"
        raise ConfigError(
            f"{where}: [{section}] {key} = {value!r} {side}: {self.why}. Use a value from {low} to {high} (the default "
            f"is {toml_value(default)})."
        )


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


BOUNDS: dict[tuple[str, str], Bound] = {
    ("accounts", "count"): Bound(
        1,
        MAX_ACCOUNTS,
        "each funded account costs a key derivation (about 2.5 ms) every time a chain starts, so a few thousand hang "
        "every run",
    ),
    ("accounts", "balance"): Bound(0, UINT256, "a balance is a uint256", "2**256 - 1 wei"),
    ("chain", "gas_price"): Bound(0, UINT256, "a gas price is a uint256", "2**256 - 1 wei"),
    ("hypothesis", "stateful_step_count"): Bound(
        1,
        MAX_STEPS,
        "Hypothesis keeps at most 8192 choices of one run, a few per step: a longer run does not fit (one of rules "
        "with arguments may not fit past a few hundred steps) and the search never ends",
    ),
    ("hypothesis", "deadline"): Bound(0, MAX_DEADLINE, "it is milliseconds per example, a day at most (0 for none)"),
    ("fuzz", "call_timeout"): Bound(
        0, MAX_CALL_TIMEOUT, "it is seconds of CPU time per call, a day at most (0 for no limit)"
    ),
    ("fork", "timeout"): Bound(
        0, MAX_FORK_TIMEOUT, "it is seconds to wait for each answer of the node, an hour at most"
    ),
}
TOML_INTEGER = Bound(-INT64 - 1, INT64, "TOML's integers are 64-bit", "9223372036854775807 (2**63 - 1)")


def toml_value(value: Any) -> str:
    """A value as evmstate.toml writes it: "contracts", true, 10, ["generate", "shrink"]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "none" if value is None else str(value)


# defaults that are not values a file would write
SHOWN_DEFAULTS = {
    ("hypothesis", "deadline"): "0 (none)",
    ("hypothesis", "seed"): "none: each run picks one and prints it",
}


def with_default(error: ConfigError, section: str, key: str, default: Any) -> ConfigError:
    """error, saying the key's default (what a good value looks like) when it does not already."""
    message = str(error)
    if "default" in message:
        return error
    shown = SHOWN_DEFAULTS.get((section, key)) or toml_value(default)
    ended = message if message.endswith(("?", "!")) else f"{message.rstrip('.')}."
    return ConfigError(f"{ended} The default is {shown}.")


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """" Did you mean 'x'?" for the closest of choices, else the list of them."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" Did you mean {close[0]!r}?" if close else f" Known keys: {', '.join(sorted(choices))}."


def unknown_section(where: str, name: str, value: Any, keys: dict[str, set[str]]) -> ConfigError:
    """The error for a top-level name that is not a section: a key written above every section heading is told where it
    belongs."""
    owners = [section for section, known in keys.items() if name in known]
    if owners and not isinstance(value, dict):
        return ConfigError(
            f"{where}: {name} = {toml_value(value)} is outside any section; it is a key of [{owners[0]}]: write it "
            f"under a [{owners[0]}] line."
        )
    return ConfigError(f"{where}: unknown section [{name}].{did_you_mean(name, keys)}")


def unknown_key(where: str, section: str, key: str, keys: dict[str, set[str]]) -> ConfigError:
    """The error for a key its section does not have, naming the section that has it, if one does."""
    owners = [other for other, known in keys.items() if key in known]
    if owners:
        return ConfigError(
            f"{where}: unknown key {key!r} in [{section}]: it is a key of [{owners[0]}]; move it under [{owners[0]}]."
        )
    if not difflib.get_close_matches(key, list(keys[section]), n=1):
        # misspelt and in the wrong section: a close key of another section, with where it goes
        elsewhere = {known: other for other, names in keys.items() if other != section for known in sorted(names)}
        close = difflib.get_close_matches(key, list(elsewhere), n=1)
        if close:
            owner = elsewhere[close[0]]
            return ConfigError(
                f"{where}: unknown key {key!r} in [{section}]. Did you mean {close[0]!r}? It is a key of [{owner}]: "
                f"write it under [{owner}]."
            )
    return ConfigError(f"{where}: unknown key {key!r} in [{section}].{did_you_mean(key, keys[section])}")


def _check_text(where: str, section: str, key: str, value: str, default: Any) -> None:
    bad = next((i for i, c in enumerate(value) if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise ConfigError(
            f"{where}: [{section}] {key} = {value!r} holds the control character {value[bad]!r} at position {bad + 1}: "
            "delete it."
        )
    if (section, key) in PATH_KEYS and not value.strip():
        example = default[0] if isinstance(default, tuple) and default else default or "lib"
        raise ConfigError(
            f'{where}: [{section}] {key} names no folder or file: write one relative to the project root, such as '
            f'{toml_value(example)} ("." is the root itself).'
        )


def within(where: str, section: str, key: str, value: Any, default: Any) -> Any:
    """value, checked against the key's bounds (BOUNDS, else TOML's integers) and for control characters; a ConfigError
    otherwise."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        _check_text(where, section, key, value, default)
    elif isinstance(value, tuple):
        for item in value:
            if isinstance(item, str):
                _check_text(where, section, key, item, default)
        if (section, key) == ("hypothesis", "phases") and not set(value) & set(RUNNING_PHASES):
            raise ConfigError(
                f"{where}: [hypothesis] phases = {toml_value(value)} runs no example, and every machine would pass: "
                f"list one of {', '.join(map(toml_value, RUNNING_PHASES))} (the default is {toml_value(default)})."
            )
    elif isinstance(value, (int, float)):
        bound = BOUNDS.get((section, key)) or (TOML_INTEGER if isinstance(value, int) else None)
        if bound is not None:
            bound.check(where, section, key, value, default)
    return value


def check_together(where: str, given: dict[str, Any], accounts: Any, chain: Any, fuzz: Any) -> None:
    """The keys that must agree, checked when this file sets one of them: gas per call and per block, the ether of all
    accounts, a call's gas and a balance."""
    said = {(section, key) for section, body in given.items() if isinstance(body, dict) for key in body}
    if ("fuzz", "call_gas_limit") in said and fuzz.call_gas_limit > chain.gas_limit:
        raise ConfigError(
            f"{where}: [fuzz] call_gas_limit = {fuzz.call_gas_limit} is more than [chain] gas_limit = "
            f"{chain.gas_limit}: a call cannot use more gas than its block holds. Lower call_gas_limit or raise "
            "gas_limit."
        )
    if said & {("accounts", "count"), ("accounts", "balance")} and accounts.count * accounts.balance > UINT256:
        raise ConfigError(
            f"{where}: [accounts] balance = {accounts.balance} wei for each of count = {accounts.count} accounts: "
            "together they exceed a uint256, "
            f"so a transfer between them could overflow a balance. Give each at most {UINT256 // accounts.count} wei, "
            "or fewer accounts."
        )
    gas = min(fuzz.call_gas_limit, chain.gas_limit)
    if (
        said & {("chain", "gas_price"), ("accounts", "balance"), ("fuzz", "call_gas_limit"), ("chain", "gas_limit")}
        and chain.gas_price * gas > accounts.balance
    ):
        raise ConfigError(
            f"{where}: [chain] gas_price = {chain.gas_price} wei: a call's {gas} gas costs {chain.gas_price * gas} "
            "wei, more than an account's "
            f"[accounts] balance = {accounts.balance} wei, so no account could pay for a call. Lower gas_price (at "
            f"most {accounts.balance // gas}), or raise balance."
        )


def check_kinds(where: str, root: Path, deployments: str, database: str | None) -> None:
    """The deployments file is not a folder and the example database's folder is not a file: said when the settings are
    loaded, not mid-run."""
    if (root / deployments).is_dir():
        raise ConfigError(
            f'{where}: [project] deployments = {toml_value(deployments)} is a folder: name the Python file of the '
            'deployments, such as "deployments.py" (the default).'
        )
    if database is not None and (root / database).exists() and not (root / database).is_dir():
        raise ConfigError(
            f'{where}: [database] url = {toml_value(database)} is a file, not a folder: name a folder for the example '
            'database, such as ".evmstate/examples" (the default), or a Redis URL.'
        )


def is_settings_file(path: Path) -> bool:
    """Whether path is a settings file; a folder of that name is a ConfigError (it would be passed over for a parent's
    settings)."""
    if path.is_file():
        return True
    if path.is_dir():
        raise ConfigError(
            f"{path} is a folder, not a file: evmstate reads its settings from a file of that name. Rename or remove "
            "the folder."
        )
    return False


def read_toml(path: Path) -> dict[str, Any]:
    """A settings file parsed: UTF-8 TOML (a byte order mark allowed); a ConfigError that says what is wrong and where
    otherwise."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise ConfigError(
            f"{path} is a folder, not a file: evmstate reads its settings from a file of that name. Rename or remove "
            "the folder."
        ) from None
    except OSError as e:
        raise ConfigError(
            f"{path}: cannot read: {e.strerror}. Make it readable, or delete it to use the defaults."
        ) from None
    try:
        text = decode(data)
    except Undecodable as e:
        line = f":{e.line}" if e.line else ""
        raise ConfigError(f"{path}{line}: cannot read: {e.problem}.") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}. Fix the file or delete it to use the defaults.") from None


def check_compiler(where: str, key: str, value: Any) -> Any:
    """A [compiler] value checked."""
    if key == "evm_version":
        if value not in EVM_VERSIONS:
            raise ConfigError(
                f"{where}: [compiler] evm_version = {value!r} is not supported; use one of {', '.join(EVM_VERSIONS)}."
            )
        return value
    if key == "optimize":
        if value not in ("gas", "codesize", "none"):
            raise ConfigError(f"{where}: [compiler] optimize = {value!r}; use \"gas\", \"codesize\" or \"none\".")
        return value
    if key == "search_paths":
        if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
            raise ConfigError(f"{where}: [compiler] search_paths must be a list of folders, e.g. [\"lib\"].")
        return tuple(value)
    if key == "contracts":
        return check_codegen(value, where)
    return value


def check_codegen(value: Any, where: str) -> tuple[tuple[str, bool], ...]:
    """[compiler.contracts]: contract name -> { experimental_codegen = true | false }, as (name, bool) pairs sorted by
    name."""
    example = "[compiler.contracts]\nVault = { experimental_codegen = true }"
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: [compiler] contracts must be a table of contracts, each with its own settings:\n{example}"
        )
    found = []
    for name, body in value.items():
        if (
            not isinstance(body, dict)
            or set(body) - {"experimental_codegen"}
            or not isinstance(body.get("experimental_codegen"), bool)
        ):
            other = sorted(set(body) - {"experimental_codegen"}) if isinstance(body, dict) else []
            what = (
                f"unknown key {other[0]!r}.{did_you_mean(other[0], ['experimental_codegen'])}"
                if other
                else f"got {body!r}."
            )
            raise ConfigError(
                f"{where}: [compiler] contracts: {name}: {what} Each contract takes experimental_codegen = true or "
                f"false:\n{example}\n"
            )
        _check_text(where, "compiler.contracts", name, name, "")
        found.append((name, body["experimental_codegen"]))
    return tuple(sorted(found))


MODES = ("codegen", "compiler:A,B", "sources:OLD:NEW")
# what a declared expected difference may name: one outcome of a call, or any of them
ASPECTS = ("any", "success", "return data", "logs", "revert reason", "balance", "storage")
_FUNCTION = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")


@dataclass(frozen=True)
class DifferentialMode:
    """A differential mode read: its kind and its two sides as written."""

    kind: str  # "codegen", "compiler" or "sources"
    a: str = ""  # a release (compiler), a folder or git revision (sources; "" for the contracts folder)
    b: str = ""


def parse_mode(text: str, where: str) -> DifferentialMode:
    """A mode as written (--differential, [differential] mode) -> DifferentialMode; a ConfigError that shows the forms
    otherwise."""
    forms = (
        "codegen (each contract by both of vyper's code generators), compiler:A,B (two vyper releases, e.g. "
        "compiler:0.4.0,0.4.3) or sources:OLD:NEW (two folders or git revisions of the contracts; an empty one is "
        "the contracts folder)"
    )
    kind, _, rest = text.partition(":")
    if kind == "codegen" and not rest:
        return DifferentialMode("codegen")
    if kind == "compiler":
        releases = [r.strip() for r in rest.split(",")]
        if len(releases) != 2 or not all(releases):
            raise ConfigError(
                f"{where}: {text!r} names {len(releases) if rest else 0} releases; compiler takes two, as "
                f"compiler:0.4.0,0.4.3."
            )
        for release in releases:
            try:
                Version(release)
            except InvalidVersion:
                raise ConfigError(f"{where}: {release!r} in {text!r} is not a vyper release such as 0.4.3.") from None
        if releases[0] == releases[1]:
            raise ConfigError(f"{where}: {text!r} names the same release twice: nothing would differ.")
        return DifferentialMode("compiler", releases[0], releases[1])
    if kind == "sources":
        old, sep, new = rest.partition(":")
        if not sep or old == new:
            raise ConfigError(
                f"{where}: {text!r}: sources takes an old and a new folder or git revision of the contracts, as "
                f"sources:v1.0: (git tag v1.0 against the contracts folder) or sources:old_contracts:contracts."
            )
        return DifferentialMode("sources", old, new)
    raise ConfigError(f"{where}: {text!r} is not a differential mode; use {forms}.")


def check_differential(where: str, key: str, value: Any) -> Any:
    """A [differential] value checked."""
    if key == "mode":
        if not isinstance(value, str):
            raise ConfigError(f"{where}: [differential] mode must be a string such as \"codegen\"; got {value!r}.")
        if value:
            parse_mode(value, f"{where}: [differential] mode")
        return value
    if key == "expected":
        return _expected(where, value)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: [differential] {key} must be true or false; got {value!r}.")
    return value


def _expected(where: str, value: Any) -> tuple[tuple[str, str], ...]:
    example = 'expected = [{ function = "Vault.fee" }, { function = "Vault.previewRedeem", aspect = "return data" }]'
    if not isinstance(value, list):
        raise ConfigError(
            f"{where}: [differential] expected must be a list of the differences meant to be there, as {example}."
        )
    found = []
    for item in value:
        if (
            not isinstance(item, dict)
            or set(item) - {"function", "aspect"}
            or not isinstance(item.get("function"), str)
            or not _FUNCTION.match(item["function"])
        ):
            raise ConfigError(
                f'{where}: [differential] expected: {item!r} is not a difference: give function = '
                f'"Contract.function" and, if only one aspect of its calls may differ, aspect = one of '
                f'{", ".join(map(repr, ASPECTS))}; as {example}.'
            )
        aspect = item.get("aspect", "any")
        if aspect not in ASPECTS:
            raise ConfigError(
                f"{where}: [differential] expected: aspect {aspect!r} of {item['function']} is none of "
                f"{', '.join(map(repr, ASPECTS))}."
            )
        found.append((item["function"], aspect))
    return tuple(found)


def check_weight(value: Any, where: str) -> float:
    """A dictionary weight: a number from 0 (off) to 1 (every draw), else a ConfigError saying so."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ConfigError(
            f"{where} must be a number from 0 to 1 (the share of draws taken from the dictionary; 0 turns it off), got "
            f"{value!r}."
        )
    return float(value)


def check_shrink_time(value: Any, where: str) -> float:
    """Seconds shrinking may take: a number, or a duration as --time takes one ("30s", "2m"); 0 for no limit, else a
    ConfigError saying so."""
    seconds = duration_seconds(value) if isinstance(value, str) else None
    if seconds is not None:
        return seconds
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value < 0
        or value != value
        or value == float("inf")
    ):
        raise ConfigError(
            f'{where} must be a number of seconds shrinking may take after a failure is found (or a duration such as '
            f'"30s" or "2m"), or 0 for no limit; got {value!r}.'
        )
    return float(value)


DELAY_KEYS = ("max_time_delay", "max_block_delay")
# a hundred years of seconds is more than any deadline worth waiting for between two calls
MAX_DELAY = 100 * 365 * 86_400


def check_delay(value: Any, where: str) -> int:
    """The most time (or blocks) one step may wait: a whole number from 0 (off) up to a hundred years, else a
    ConfigError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DELAY:
        raise ConfigError(
            f"{where} must be a whole number from 0 (no delays) to {MAX_DELAY} (a hundred years of seconds), got "
            f"{value!r}."
        )
    return value


def check_interval(value: Any, where: str) -> int:
    """Steps between two checks of the invariants: a whole number from 1 (every step) up to MAX_STEPS, else a
    ConfigError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_STEPS:
        raise ConfigError(
            f"{where} must be a whole number of steps from 1 (the invariants after every step) to {MAX_STEPS}, "
            f"got {value!r}."
        )
    return value


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn a into b."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def near_miss(word: str, target: str) -> bool:
    """Whether word is a near miss of target: another case, or a small edit away (1 for short words, 2 for long)."""
    if word == target:
        return False
    return word.lower() == target or edit_distance(word.lower(), target) <= (1 if len(target) <= 5 else 2)


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parse_workers(text: str | int) -> int:
    """-n: a number of worker processes, or "auto" for one per core."""
    if isinstance(text, int):
        value = text
    elif text.strip().lower() == "auto":
        return cores()
    else:
        try:
            value = int(text)
        except ValueError:
            raise UsageError(
                f"-n {text}: give a number of worker processes, or auto for one per core ({cores()} here)"
            ) from None
    if value < 1:
        raise UsageError(f"-n {value}: give at least 1 worker process, or auto for one per core ({cores()} here)")
    return value
