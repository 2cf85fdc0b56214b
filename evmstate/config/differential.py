"""[differential] in evmstate.toml (and --differential): which two builds a differential run compares, and how."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from ..errors import ConfigError

MODES = ("codegen", "compiler:A,B", "sources:OLD:NEW")
# what a declared expected difference may name: one outcome of a call, or any of them
ASPECTS = ("any", "success", "return data", "logs", "revert reason", "balance", "storage")
_FUNCTION = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")


@dataclass(frozen=True)
class Mode:
    """A differential mode read: its kind and its two sides as written."""

    kind: str  # "codegen", "compiler" or "sources"
    a: str = ""  # a release (compiler), a folder or git revision (sources; "" for the contracts folder)
    b: str = ""


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

    def parsed(self) -> Mode:
        return parse_mode(self.mode, "[differential] mode")


def parse_mode(text: str, where: str) -> Mode:
    """A mode as written (--differential, [differential] mode) -> Mode; a ConfigError that shows the forms otherwise."""
    forms = "codegen (each contract by both of vyper's code generators), compiler:A,B (two vyper releases, e.g. compiler:0.4.0,0.4.3) or sources:OLD:NEW (two folders or git revisions of the contracts; an empty one is the contracts folder)"
    kind, _, rest = text.partition(":")
    if kind == "codegen" and not rest:
        return Mode("codegen")
    if kind == "compiler":
        releases = [r.strip() for r in rest.split(",")]
        if len(releases) != 2 or not all(releases):
            raise ConfigError(f"{where}: {text!r} names {len(releases) if rest else 0} releases; compiler takes two, as compiler:0.4.0,0.4.3.")
        for release in releases:
            try:
                Version(release)
            except InvalidVersion:
                raise ConfigError(f"{where}: {release!r} in {text!r} is not a vyper release such as 0.4.3.") from None
        if releases[0] == releases[1]:
            raise ConfigError(f"{where}: {text!r} names the same release twice: nothing would differ.")
        return Mode("compiler", releases[0], releases[1])
    if kind == "sources":
        old, sep, new = rest.partition(":")
        if not sep or old == new:
            raise ConfigError(f"{where}: {text!r}: sources takes an old and a new folder or git revision of the contracts, as sources:v1.0: (git tag v1.0 against the contracts folder) or sources:old_contracts:contracts.")
        return Mode("sources", old, new)
    raise ConfigError(f"{where}: {text!r} is not a differential mode; use {forms}.")


def check(where: str, key: str, value: Any) -> Any:
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
        raise ConfigError(f"{where}: [differential] expected must be a list of the differences meant to be there, as {example}.")
    found = []
    for item in value:
        if not isinstance(item, dict) or set(item) - {"function", "aspect"} or not isinstance(item.get("function"), str) or not _FUNCTION.match(item["function"]):
            raise ConfigError(f"{where}: [differential] expected: {item!r} is not a difference: give function = \"Contract.function\" and, if only one aspect of its calls may differ, aspect = one of {', '.join(map(repr, ASPECTS))}; as {example}.")
        aspect = item.get("aspect", "any")
        if aspect not in ASPECTS:
            raise ConfigError(f"{where}: [differential] expected: aspect {aspect!r} of {item['function']} is none of {', '.join(map(repr, ASPECTS))}.")
        found.append((item["function"], aspect))
    return tuple(found)
