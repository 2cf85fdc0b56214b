"""The generated corpus of bad evmstate.toml files (test_bad_settings.py runs it): every key with a value of each
wrong type and out of its bounds, unknown and misplaced keys and sections, broken TOML, other encodings.

Each case is (the file's text, what its message must name, the case's id); the keys come from the settings'
own dataclasses, so a key added later is in the corpus too.
"""

from __future__ import annotations

import codecs
from dataclasses import fields

from evmstate.config import SECTIONS
from evmstate.config_checks import BOUNDS, INT64, UINT256

# the kind of value each key takes where its default does not say it (None)
KINDS = {("hypothesis", "deadline"): int, ("hypothesis", "seed"): int, ("fork", "block"): int}
# keys read as amounts of wei ("1 ether"): a string is one of their kinds
WEI = {("accounts", "balance"), ("chain", "gas_price")}
# values of each wrong type, as TOML writes them
WRONG = {
    int: ['"ten"', "1.5", "true", "[1]", "{ a = 1 }", "1979-05-27", "07:32:00", "nan", "inf"],
    float: ['"ten"', "true", "[1]", "{ a = 1 }", "1979-05-27", "nan", "inf", "-1"],
    str: ["5", "true", '["x"]', "{ a = 1 }", "1979-05-27", '"a\\u0000b"', '"tab\\there"'],
    bool: ["1", '"yes"', "[true]", "{ a = 1 }", "1979-05-27"],
    tuple: ['"x"', "5", "[1]", "[true]", "{ a = 1 }", '["a\\u0007b"]'],
}

def keys() -> list[tuple[str, str, type, object]]:
    """Every (section, key, kind, default) of evmstate.toml."""
    found = []
    for section, cls in SECTIONS.items():
        defaults = cls()
        for f in fields(cls):
            if f.metadata.get("internal"):
                continue
            default = getattr(defaults, f.name)
            found.append((section, f.name, KINDS.get((section, f.name), type(default)), default))
    return found


def _wrong_values() -> list[tuple[str, str, str]]:
    cases = []
    for section, key, kind, _ in keys():
        for literal in WRONG[kind]:
            cases.append((f"[{section}]\n{key} = {literal}\n", f"[{section}] {key}", f"{section}.{key}={literal}"))
        if kind is int and (section, key) != ("hypothesis", "seed"):
            cases.append((f"[{section}]\n{key} = -1\n", f"[{section}] {key}", f"{section}.{key}=-1"))
        if kind is int:
            too_big = UINT256 + 1 if (section, key) in WEI else INT64 + 1
            cases.append((f"[{section}]\n{key} = {too_big}\n", f"[{section}] {key}", f"{section}.{key}=too-big"))
    return cases


def _out_of_bounds() -> list[tuple[str, str, str]]:
    cases = []
    for (section, key), bound in BOUNDS.items():
        above = bound.high * 2 if isinstance(bound.high, float) else bound.high + 1
        cases.append((f"[{section}]\n{key} = {above}\n", f"[{section}] {key}", f"{section}.{key}=above-{bound.high}"))
        below = bound.low - 1
        cases.append((f"[{section}]\n{key} = {below}\n", f"[{section}] {key}", f"{section}.{key}=below-{bound.low}"))
    cases += [
        ("[accounts]\ncount = 1000000000\n", "[accounts] count", "accounts.count=a-billion"),
        ("[hypothesis]\nstateful_step_count = 100000\n", "[hypothesis] stateful_step_count", "steps=100000"),
        ("[hypothesis]\nphases = []\n", "[hypothesis] phases", "phases=none"),
        ('[hypothesis]\nphases = ["shrink", "target"]\n', "[hypothesis] phases", "phases=none-that-run"),
        ('[compiler]\nevm_version = "homer"\n', "[compiler] evm_version", "evm_version=homer"),
        ('[compiler]\noptimize = "fast"\n', "[compiler] optimize", "optimize=fast"),
        ('[backend]\nname = "geth"\n', "[backend] name", "backend=geth"),
        ('[fuzz]\ncall_cache = "maybe"\n', "[fuzz] call_cache", "call_cache=maybe"),
        ('[hypothesis]\nsuppress_health_check = ["too_slow_please"]\n', "[hypothesis] suppress_health_check", "health_check=unknown"),
        ('[database]\nurl = "postgres://db/x"\n', "[database] url", "database=postgres"),
        ('[fork]\nurl = "ftp://node"\n', "[fork] url", "fork.url=ftp"),
        ('[fork]\nblock = "tomorrow"\n', "[fork] block", "fork.block=tomorrow"),
        ('[fork]\ntimeout = 0\n', "[fork] timeout", "fork.timeout=0"),
        ('[project]\ncontracts = ""\n', "[project] contracts", "contracts=empty"),
        ('[project]\nmachines = "  "\n', "[project] machines", "machines=blank"),
        ('[compiler]\nsearch_paths = [""]\n', "[compiler] search_paths", "search_paths=empty-folder"),
        ('[compiler]\nsearch_paths = ["nowhere"]\n', "[compiler] search_paths", "search_paths=missing-folder"),
        ('[project]\nartifacts = "nowhere"\n', "[project] artifacts", "artifacts=missing-folder"),
        ('[project]\nartifacts = "evmstate.toml"\n', "[project] artifacts", "artifacts=a-file"),
        ('[project]\ndeployments = "."\n', "[project] deployments", "deployments=a-folder"),
        ('[database]\nurl = "evmstate.toml"\n', "[database] url", "database=a-file"),
        ('[accounts]\nbalance = "1 bitcoin"\n', "[accounts] balance", "balance=bitcoin"),
        ('[accounts]\nbalance = "-5 ether"\n', "[accounts] balance", "balance=negative-ether"),
        ('[accounts]\nbalance = "1e80 ether"\n', "[accounts] balance", "balance=past-uint256"),
        ('[accounts]\nbalance = "inf ether"\n', "[accounts] balance", "balance=infinite-ether"),
        ('[chain]\ngas_price = "nan gwei"\n', "[chain] gas_price", "gas_price=nan-gwei"),
        ('[fuzz]\nshrink_time = "-2m"\n', "[fuzz] shrink_time", "shrink_time=negative-duration"),
        # keys that must agree
        ('[accounts]\ncount = 1000\nbalance = "1e70 ether"\n', "[accounts] balance", "accounts=past-uint256-together"),
        ('[chain]\ngas_price = "10000 ether"\n', "[chain] gas_price", "gas_price=unpayable"),
        ('[accounts]\nbalance = 1000\n[chain]\ngas_price = 1\n', "[chain] gas_price", "balance=below-one-call"),
        ("[fuzz]\ncall_gas_limit = 40000000\n", "[fuzz] call_gas_limit", "call_gas_limit=above-block"),
    ]
    return cases


def _unknown_keys() -> list[tuple[str, str, str]]:
    cases = []
    for section, key, _, _ in keys():
        cases.append((f"[{section}]\n{key}x = 1\n", f"'{key}x' in [{section}]", f"{section}.{key}x=unknown"))
    cases += [
        ("[acounts]\ncount = 3\n", "[acounts]", "section=misspelt"),
        ("[tool]\nx = 1\n", "[tool]", "section=unknown"),
        ("count = 3\n", "count = 3", "key=outside-any-section"),
        ('url = "redis://x"\n', "url", "key=outside-any-section-of-two"),
        ("[chain]\ncount = 3\n", "'count' in [chain]", "key=in-another-section"),
        ("[hypothesis]\ncall_timeout = 2\n", "'call_timeout' in [hypothesis]", "key=of-fuzz-under-hypothesis"),
        ("hypothesis = 3\n", "hypothesis", "section=a-value"),
        ("[[hypothesis]]\nmax_examples = 3\n", "hypothesis", "section=array-of-tables"),
        ("accounts = { count = 0 }\n", "[accounts] count", "section=inline-table-bad-value"),
    ]
    return cases


def _broken_toml() -> list[tuple[str, str, str]]:
    return [
        ("[hypothesis\n", "line 1", "toml=unclosed-header"),
        ("[hypothesis]\nmax_examples = \n", "line 2", "toml=missing-value"),
        ("[hypothesis]\nmax_examples = 3\nmax_examples = 4\n", "line 3", "toml=duplicate-key"),
        ("[hypothesis]\n[hypothesis]\n", "line 2", "toml=duplicate-table"),
        ("[hypothesis]\nseed = abc\n", "line 2", "toml=bare-word"),
        ('[project]\ncontracts = "src\n', "line 2", "toml=unclosed-string"),
        ("[compiler]\nsearch_paths = [\"lib\"\n", "end of document", "toml=unclosed-array"),
        ("[accounts]\ncount = 1_\n", "line 2", "toml=bad-number"),
        ("[accounts] count = 3\n", "line 1", "toml=key-on-header-line"),
        ("just some words\n", "line 1", "toml=prose"),
        ("{}\n", "line 1", "toml=json"),
        ("[hypothesis]\r\nseed = 1\r\nmax_examples = \r\n", "line 3", "toml=crlf-missing-value"),
    ]


def encodings() -> list[tuple[bytes, str, str]]:
    text = "[hypothesis]\nseed = 1\n"
    return [
        (b"\xff[a]", "line 1, column 1", "bytes=not-utf8-first-byte"),
        (b"[hypothesis]\n# caf\xe9\nseed = 1\n", "line 2, column 6", "bytes=latin1-comment"),
        (b"[hypothesis]\nseed = 1\n\x80", "line 3, column 1", "bytes=stray-continuation-byte"),
        (codecs.BOM_UTF16_LE + text.encode("utf-16-le"), "UTF-16", "bytes=utf16-le"),
        (codecs.BOM_UTF16_BE + text.encode("utf-16-be"), "UTF-16", "bytes=utf16-be"),
        (codecs.BOM_UTF32_LE + text.encode("utf-32-le"), "UTF-32", "bytes=utf32-le"),
        (b"[hypothesis]\nseed = 1\x00\n", "line 2, column 9", "bytes=null-byte"),
        (b"[hypothesis]\nseed = \"\xc3\x28\"\n", "line 2, column 9", "bytes=invalid-utf8-pair"),
    ]


CASES = _wrong_values() + _out_of_bounds() + _unknown_keys() + _broken_toml()
