"""One key's value checked as from_dict reads it: amounts of wei and gas, names from a fixed list, [fork] values,
times, the database's URL, and the type the default has."""

from __future__ import annotations

import difflib
from typing import Any

from ..config_checks import (
    DELAY_KEYS, check_actors, check_compiler, check_delay, check_interval, check_shrink_time, check_weight,
    did_you_mean, toml_value,
)
from ..errors import ConfigError, UnitError
from ..units import to_wei
from .sections import BACKENDS, CALL_CACHE_MODES, FORK_TAGS, PHASES, REDIS_SCHEMES, health_checks

WEI_KEYS = {("accounts", "balance"), ("chain", "gas_price")}
GAS_KEYS = {("chain", "gas_limit"), ("fuzz", "call_gas_limit")}
# what the message of a value of the wrong type asks for
KIND_NAMES = {int: "a whole number", bool: "true or false", str: "a string in quotes"}
# every transaction pays 21,000 gas before its first instruction
MIN_GAS = 21_000


def check_fork(where: str, key: str, value: Any) -> Any:
    """A [fork] value checked: url a http(s) URL, block a number or a tag, chain_id a number."""
    if key == "url" and not (isinstance(value, str) and value.startswith(("http://", "https://"))):
        raise ConfigError(
            f"{where}: [fork] url must be the http:// or https:// URL of a node (JSON-RPC); got {value!r}."
        )
    if key == "block" and not (
        value in FORK_TAGS or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)
    ):
        raise ConfigError(
            f"{where}: [fork] block must be a block number or one of {', '.join(map(repr, FORK_TAGS))}; got {value!r}."
        )
    if key == "chain_id" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ConfigError(f"{where}: [fork] chain_id must be a chain id such as 1; got {value!r}.")
    if key == "timeout":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ConfigError(f"{where}: [fork] timeout must be a number of seconds above 0; got {value!r}.")
        return float(value)
    return value


def _names(value: Any, allowed: Any, where: str, what: str, example: str) -> tuple[str, ...]:
    """A list of names, each one of allowed."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of {what} names, e.g. {example}.")
    for name in value:
        if name not in allowed:
            raise ConfigError(f"{where}: unknown {what} {name!r}.{did_you_mean(name, allowed)}")
    return tuple(value)


def _call_timeout(value: Any, where: str) -> float:
    """[fuzz] call_timeout: seconds, 0 for no limit."""
    bad = isinstance(value, bool) or not isinstance(value, (int, float))
    if bad or value < 0 or value != value or value == float("inf"):
        raise ConfigError(f"{where} must be a number of seconds, or 0 for no limit; got {value!r}.")
    return float(value)


def _call_cache(value: Any, where: str) -> str:
    """[fuzz] call_cache: on, off or check."""
    if value not in CALL_CACHE_MODES:
        raise ConfigError(f"{where} must be \"on\", \"off\" or \"check\"; got {value!r}.")
    return value


def _database_url(value: Any, where: str) -> str:
    """[database] url: a folder, or the URL of a Redis server."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f'{where} must be a folder or a Redis URL such as "redis://localhost:6379/0"; got {value!r}.')
    scheme = value.split("://", 1)[0] + "://" if "://" in value else None
    if scheme is not None and scheme not in REDIS_SCHEMES:
        raise ConfigError(
            f"{where} = {value!r}: {scheme} is not a database evmstate can use. "
            "Give a folder (\".evmstate/examples\") or a Redis URL (redis://, rediss:// or unix://)."
        )
    return value


# [fuzz] keys checked by a function of their own: (value, where) -> the value read
FUZZ_CHECKS: dict[str, Any] = {
    "shrink_time": lambda value, where: check_shrink_time(value, where),
    "dictionary_weight": lambda value, where: check_weight(value, where),
    "invariant_interval": lambda value, where: check_interval(value, where),
    "actors": lambda value, where: check_actors(value, where, ConfigError),
    "call_timeout": lambda value, where: _call_timeout(value, where),
    "call_cache": lambda value, where: _call_cache(value, where),
    **dict.fromkeys(DELAY_KEYS, lambda value, where: check_delay(value, where)),
}


def check_key(where: str, section: str, key: str, value: Any, expected: Any) -> Any:
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
            raise ConfigError(
                f'{where}: [backend] name = {value!r} is not a backend; use "pyevm" (the default) or "revm".{hint}'
            )
        return value
    if section == "hypothesis" and key == "suppress_health_check":
        return _names(
            value, health_checks(), f"{where}: [hypothesis] suppress_health_check", "health check",
            '["filter_too_much"]',
        )
    if section == "hypothesis" and key == "phases":
        return _names(value, PHASES, f"{where}: [hypothesis] phases", "phase", '["generate", "shrink"]')
    if section == "hypothesis" and key == "deadline":
        if value is False or value == 0:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(
                f"{where}: [hypothesis] deadline must be a number of milliseconds, or 0 for none; got {value!r}."
            )
        return value
    if (section, key) in GAS_KEYS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(
                f"{where}: [{section}] {key} must be a whole amount of gas, got {type(value).__name__} {value!r}."
            )
        if value < MIN_GAS:
            raise ConfigError(
                f"{where}: [{section}] {key} = {value} is below {MIN_GAS}, the gas every transaction pays before it "
                f"runs: nothing could run. Use at least {MIN_GAS} (the default is {expected})."
            )
        return value
    if section == "fuzz" and key in FUZZ_CHECKS:
        return FUZZ_CHECKS[key](value, f"{where}: [fuzz] {key}")
    if section == "database" and key == "url":
        return _database_url(value, f"{where}: [database] url")
    if section == "hypothesis" and key == "seed":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: [hypothesis] seed must be an integer; got {value!r}.")
        return value
    kind = {int: int, bool: bool, str: str}.get(type(expected), type(expected))
    ok = isinstance(value, kind) and (kind is not int or not isinstance(value, bool))
    if not ok:
        raise ConfigError(
            f"{where}: [{section}] {key} must be {KIND_NAMES.get(kind, kind.__name__)}, such as {toml_value(expected)} "
            f"(the default); got {type(value).__name__} {value!r}."
        )
    if kind is int and value < 0:
        raise ConfigError(f"{where}: [{section}] {key} must not be negative, got {value!r}.")
    if (section, key) in {("hypothesis", "max_examples"), ("accounts", "count")} and value < 1:
        raise ConfigError(f"{where}: [{section}] {key} must be at least 1, got {value!r}.")
    return value
