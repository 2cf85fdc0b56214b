"""evmstate init --machine CONTRACT: a first machine for a project contract, written from its ABI and source.

The machine deploys the contract (constructor arguments filled by type and name, a deployment of the
project's ERC-20 for each asset or token it asks for, each actor given a balance of it and the contract
approved to take it), mixes in the property pack its ABI matches (ERC-20,
ERC-721, ERC-4626, with EIP-2612 for a permit), and has one rule per other external function that
changes state, its arguments drawn within sensible bounds: addresses from the accounts, an amount
at most what the sender (or the account named as the owner, transferFrom's _from) holds of an
ERC-20, an allowance unbounded. Where the source asserts who may call a function
(msg.sender against a public variable, or a public mapping of roles) the rule expects a revert
from anyone else; every other failure is tolerated and marked for a human to decide, as are the
constructor's arguments. Ghost variables hold what the contract exposes (balances, the supply).
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..compiler.build import build
from ..compiler.sources import Artifact, Build
from ..config import Config
from ..errors import UsageError

ERC20 = {"transfer", "transferFrom", "approve", "balanceOf", "allowance", "totalSupply"}
ERC721 = {
    "ownerOf", "balanceOf", "transferFrom", "safeTransferFrom", "approve", "setApprovalForAll", "getApproved",
    "isApprovedForAll",
}
ERC4626 = {
    "asset", "totalAssets", "deposit", "mint", "withdraw", "redeem", "previewDeposit", "maxDeposit", "convertToShares",
}
ERC2612 = {"permit", "nonces", "DOMAIN_SEPARATOR"}
# what each pack's rules call already: no rule of the machine's own for them
COVERED = {
    "erc20": {"transfer", "transferFrom", "approve", "mint", "burn"},
    "erc721": {"transferFrom", "safeTransferFrom", "approve", "setApprovalForAll", "burn"},
    "erc4626": {"deposit", "mint", "withdraw", "redeem"},
    "erc2612": {"permit"},
}
# the last word of an address argument naming a token the contract holds or moves (asset_, _collateral, want,
# reward_token, tokens...): reward_distributor, asset_manager or _debtor name an account or a contract of another kind
TOKEN_WORDS = {
    "asset", "token", "underlying", "collateral", "debt", "want", "reward", "stake", "staking", "coin", "currency",
    "weth",
}
AMOUNT_NAMES = re.compile(r"^_?(amount|value|wad|assets|shares|qty|quantity)_?$", re.I)
# an address argument that names whose balance an amount comes from (transferFrom's _from), and functions whose
# amount is an allowance, taken from no balance
HOLDER_NAMES = re.compile(r"^_?(from|owner|holder|source|src)_?$", re.I)
ALLOWANCES = {"approve", "increaseAllowance", "decreaseAllowance", "increase_allowance", "decrease_allowance"}
# the whole condition of an assert: the sender is a public variable, or holds a role in a public mapping (then a
# reason, a comment such as Brownie's `# dev: admin only`, or the end of the line)
SENDER_IS = re.compile(r"^\s*assert\s+(?:msg\.sender\s*==\s*self\.(\w+)|self\.(\w+)\s*==\s*msg\.sender)\s*(?:,|#|$)")
SENDER_HAS = re.compile(r"^\s*assert\s+self\.(\w+)\[msg\.sender\]\s*(?:,|#|$)")
CALLS = re.compile(r"\b(?:self|\w+)\.(_\w+)\(")


@dataclass
class Function:
    """One external function of the contract, as the machine calls it."""

    name: str
    inputs: list[tuple[str, str]]  # (name, ABI type)
    payable: bool
    checks: list[str] = field(default_factory=list)  # the source's assert/raise lines, for the human
    sender: str | None = None  # a Python condition true when the sender may call it, when the source says


def standards(abi: list[dict[str, Any]]) -> list[str]:
    """The property packs an ABI matches, the vault's before the token's."""
    names = {e["name"] for e in abi if e.get("type") == "function"}
    found = []
    if ERC4626 <= names:
        found.append("erc4626")
    elif ERC721 <= names:
        found.append("erc721")
    elif ERC20 <= names:
        found.append("erc20")
    if ERC2612 <= names and "erc721" not in found:
        found.append("erc2612")
    return found


def snake(name: str) -> str:
    out = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return out + "_" if keyword.iskeyword(out) else out


def _bodies(artifact: Artifact) -> dict[str, list[str]]:
    """Every function's lines in the files compiled into the contract, by name (the first definition wins)."""
    bodies: dict[str, list[str]] = {}
    for path in [artifact.path, *artifact.inputs]:
        if not path.endswith(".vy") or not Path(path).is_file():
            continue
        current: list[str] | None = None
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            m = re.match(r"def (\w+)\(", line)
            if m:
                current = bodies.setdefault(m.group(1), []) if m.group(1) not in bodies else None
            elif current is not None and line and not line[0].isspace():
                current = None
            elif current is not None:
                current.append(line)
    return bodies


def _checks(
    name: str, bodies: dict[str, list[str]], getters: set[str], seen: set[str] | None = None
) -> tuple[list[str], str | None]:
    """The assert/raise lines of a function and of the internal functions it calls (one level), and the sender condition
    they state.
    """
    seen = set() if seen is None else seen
    seen.add(name)
    checks: list[str] = []
    sender = None
    for line in bodies.get(name, []):
        text = line.strip()
        if text.startswith(("assert ", "raise")):
            checks.append(text)
            top = len(line) - len(line.lstrip()) == 4  # a check every call meets, not one inside a branch
            is_, has = SENDER_IS.match(line), SENDER_HAS.match(line)
            if top and sender is None and is_ and (is_.group(1) or is_.group(2)) in getters:
                sender = f"sender == self.{{c}}.{is_.group(1) or is_.group(2)}()"
            elif top and sender is None and has and has.group(1) in getters:
                sender = f"self.{{c}}.{has.group(1)}(sender)"
        for callee in CALLS.findall(line):
            if callee not in seen and callee in bodies and len(line) - len(line.lstrip()) == 4:
                more, inner = _checks(callee, bodies, getters, seen)
                checks += more
                sender = sender or inner
    return checks, sender


def functions(artifact: Artifact, covered: set[str]) -> list[Function]:
    """The external functions that change state, less those a pack covers, with what their source checks."""
    bodies = _bodies(artifact)
    getters = {
        e["name"] for e in artifact.abi if e.get("type") == "function" and e.get("stateMutability") in ("view", "pure")
    }
    out: dict[str, Function] = {}
    for e in artifact.abi:
        if e.get("type") != "function" or e.get("stateMutability") in ("view", "pure") or e["name"] in covered:
            continue
        inputs = [(i.get("name") or f"arg{n}", _abi_type(i)) for n, i in enumerate(e.get("inputs", []))]
        if e["name"] in out and len(out[e["name"]].inputs) >= len(inputs):
            continue  # overloads: the one with the most arguments
        checks, sender = _checks(e["name"], bodies, getters)
        out[e["name"]] = Function(e["name"], inputs, e.get("stateMutability") == "payable", checks, sender)
    return list(out.values())


def _abi_type(entry: dict[str, Any]) -> str:
    t = entry["type"]
    if t.startswith("tuple"):
        return "(" + ",".join(_abi_type(c) for c in entry.get("components", [])) + ")" + t[len("tuple"):]
    return t


def _param(name: str) -> str:
    """A rule parameter's name from an ABI input's (owner_ -> owner, _to -> to)."""
    out = snake(name.strip("_")) or "arg"
    return out if out not in ("self", "sender", "cls") else f"{out}_arg"


# -- strategies and values ----------------------------------------------------------------

def strategy_of(t: str) -> tuple[str, str]:
    """(class attribute name, strategy expression) for an ABI type."""
    if t == "address":
        return "st_address", 'strategy("address", length=ACTORS)'
    if t.endswith("]"):
        inner = "dynamic" if t.endswith("[]") else "fixed"
        name = "st_" + re.sub(r"\W+", "_", t).strip("_") + f"_{inner}"
        return name, f'strategy("{t}"' + (", max_length=4)" if inner == "dynamic" else ")")
    if t == "bytes":
        return "st_bytes", 'strategy("bytes", max_length=64)'
    if t == "string":
        return "st_string", 'strategy("string", max_length=32)'
    return "st_" + re.sub(r"\W+", "_", t).strip("_"), f'strategy("{t}")'


def default(name: str, t: str, token: str | None) -> str:
    """A constructor argument for an input of this name and type, as Python source."""
    lower = name.lower()
    if t.endswith("]"):
        return "[]"
    if t.startswith("("):
        return "(" + ", ".join(default("", part, token) for part in _split(t[1:-1])) + ",)"
    if t == "string":
        for word, value in (("symbol", '"TKN"'), ("version", '"1"'), ("uri", '"https://example.test/"'), ("url", '"https://example.test/"')):
            if word in lower:
                return value
        return '"Token"'
    if t == "address":
        return token if token is not None and names_token(name) else "accounts[0]"
    if t == "bool":
        return "False"
    if t == "bytes":
        return 'b""'
    if t.startswith("bytes"):
        return f"bytes({t[5:]})"
    if t.startswith(("uint", "int")):
        if "decimal" in lower and "offset" not in lower:
            return "18"
        if t.endswith("256") and any(w in lower for w in ("supply", "amount", "value")):
            return '"1000 ether"'
        if t.endswith("256") and any(w in lower for w in ("cap", "limit", "max")):
            return "10**30"
        return "0" if "offset" in lower or t in ("uint8", "int8") else "1000"
    return "0"


def _split(body: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in body:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current] if current else parts


def _constructor(artifact: Artifact) -> list[tuple[str, str]]:
    entry = next((e for e in artifact.abi if e.get("type") == "constructor"), None)
    return [(i.get("name") or f"arg{n}", _abi_type(i)) for n, i in enumerate(entry.get("inputs", []))] if entry else []


def names_token(name: str) -> bool:
    """Whether an address argument so named is a token: its last word, past a suffix such as the 0 of token0 or the a of
    token_a, is one of TOKEN_WORDS (or its plural).
    """
    words = [w.rstrip("0123456789") for w in snake(name).split("_")]
    words = [w for w in words if len(w) > 1 and w not in ("in", "out")]
    return bool(words) and (words[-1] in TOKEN_WORDS or words[-1][:-1] in TOKEN_WORDS and words[-1][-1] == "s")


def _token_args(artifact: Artifact) -> list[str]:
    """The constructor's address arguments that name a token."""
    return [n for n, t in _constructor(artifact) if t == "address" and names_token(n)]


def _fillable(artifact: Artifact) -> bool:
    return all(t != "address" for _, t in _constructor(artifact))


def _token_for(build: Build, exclude: str) -> Artifact | None:
    """An ERC-20 of the project's the machine can deploy for a constructor's asset or token."""
    for name in sorted(build.artifacts):
        a = build.artifacts[name]
        if name != exclude and a.bytecode and "erc20" in standards(a.abi) and _fillable(a):
            return a
    return None


# -- the machine's text -----------------------------------------------------------------

PACKS = {
    "erc20": ("ERC20Adapter", "ERC20Properties"), "erc721": ("ERC721Adapter", "ERC721Properties"),
    "erc2612": ("ERC2612Adapter", "ERC2612Properties"), "erc4626": ("ERC4626Adapter", "ERC4626Properties"),
}


def _token_names(args: list[str], taken: set[str], echoes: set[str]) -> dict[str, str]:
    """A variable per token argument, drawn from its name (_collateral -> collateral_token, asset_ -> asset), clear of
    the machine's other attributes; one of echoes (a getter of an address, as often returns the token) may be reused.
    """
    names: dict[str, str] = {}
    for arg in args:
        base = _param(arg)
        candidates = [base] if re.search("token|asset|underlying", base) else [f"{base}_token", base]
        free = [n for n in candidates if n not in names.values() and (n not in taken or n in echoes)]
        names[arg] = free[0] if free else f"{candidates[0]}_{len(names) + 1}"
    return names


def _holds(token: Artifact) -> str | None:
    """How an actor comes to hold some of token: "mint" (a mint(address, uint256) the deployer calls), "transfer"
    (from the deployer, who holds the supply), or None (neither, as far as the ABI and source say).
    """
    if any(
        e.get("type") == "function" and e["name"] == "mint" and [i["type"] for i in e.get("inputs", [])] == [
            "address", "uint256"
        ]
        for e in token.abi
    ):
        return "mint"
    supply = any(t == "uint256" and default(n, t, None) == '"1000 ether"' for n, t in _constructor(token))
    init = _bodies(token).get("__init__", [])
    minted = any("msg.sender" in line and ("balance" in line or "mint" in line) for line in init)
    return "transfer" if supply or minted else None


@dataclass
class Deployment:
    """What __init__ deploys: its parameters besides accounts, its lines, the token variable of each token argument."""

    params: list[str]
    lines: list[str]
    tokens: dict[str, str]


def _deploy(artifact: Artifact, token: Artifact | None, taken: set[str], echoes: set[str]) -> Deployment:
    """The contract deployed as cls.<name>, after its own deployment of token for each token argument."""
    params, lines = [artifact.name], []
    c = snake(artifact.name)
    wanted = _token_args(artifact)
    tokens: dict[str, str] = {}
    if token is not None and wanted:
        tokens = _token_names(wanted, taken, echoes)
        params.append(token.name)
        targs = ", ".join([default(n, t, None) for n, t in _constructor(token)] + ['{"from": accounts[0]}'])
        for arg, var in tokens.items():
            note = f"  # DECIDE: the token the contract takes as {arg}"
            lines.append(f"        {var} = {token.name}.deploy({targs}){note}")
    args = ", ".join(
        [tokens[n] if n in tokens else default(n, t, None) for n, t in _constructor(artifact)]
        + ['{"from": accounts[0]}']
    )
    note = "  # DECIDE: the constructor's arguments" if _constructor(artifact) else ""
    if wanted and not tokens:
        note += f" (no ERC-20 of the project's to deploy for {', '.join(wanted)})"
    lines.append(f"        cls.{c} = {artifact.name}.deploy({args}){note}")
    lines += [f"        cls.{var} = {var}" for var in tokens.values()]
    return Deployment(params, lines, tokens)


def _funds(token: Artifact, how: str | None, tokens: list[str], c: str) -> list[str]:
    """__init__ lines giving each actor a balance of each token (how: _holds) and approving the contract for it."""
    if not tokens:
        return []
    lines = ["        # each actor holds each token and lets the contract take it (DECIDE how much, whom it approves)"]
    if how is None:
        lines += [
            f"        # DECIDE: {token.name} has no mint(address, uint256) and its deployer holds none of it: give",
            f"        #   each actor some, e.g. deal({tokens[0]}, a, HELD) in the loop (from evmstate import deal)",
        ]
    elif how == "transfer":
        lines += [
            f"        {var}_share = {var}.balanceOf(accounts[0]) // ACTORS  # {token.name} has no mint: "
            "the deployer's supply, shared"
            for var in tokens
        ]
    lines.append("        for a in accounts[:ACTORS]:")
    for var in tokens:
        if how == "mint":
            lines.append(f'            {var}.mint(a, HELD, {{"from": accounts[0]}})')
        elif how == "transfer":
            lines.append(f'            {var}.transfer(a, {var}_share, {{"from": accounts[0]}})')
        lines.append(f'            {var}.approve(cls.{c}, MAX, {{"from": a}})')
    last = tokens[-1]
    example = {
        "mint": f'{last}.mint(cls.{c}, HELD, {{"from": accounts[0]}})',
        "transfer": f'{last}.transfer(cls.{c}, {last}_share, {{"from": accounts[0]}})',
        None: f"deal({last}, cls.{c}, HELD)",
    }[how]
    lines += [
        "        # DECIDE: whether the contract starts with some of a token (liquidity to lend, rewards to pay),",
        f"        #   e.g. {example}",
    ]
    return lines


def _adapters(artifact: Artifact, packs: list[str], asset: str | None) -> list[str]:
    """The __init__ lines giving each pack its adapter."""
    c = f"cls.{snake(artifact.name)}"
    names = {e["name"]: [i["type"] for i in e.get("inputs", [])] for e in artifact.abi if e.get("type") == "function"}
    lines = []
    for pack in packs:
        if pack == "erc20":
            minter = names.get("mint") == ["address", "uint256"]
            lines.append(
                f"        cls.erc20 = ERC20Adapter({c}, "
                f"accounts[:ACTORS]{', minter=accounts[0]' if minter else ''})"
                f"{'  # DECIDE: the account allowed to mint' if minter else ''}"
            )
        elif pack == "erc2612":
            lines.append(f"        cls.erc2612 = ERC2612Adapter({c}, accounts[:ACTORS])")
        elif pack == "erc4626":
            lines.append(
                f"        cls.erc4626 = ERC4626Adapter({c}, accounts[:ACTORS]{f', asset=cls.{asset}' if asset else ''})"
            )
        elif pack == "erc721":
            mint = _nft_mint(c, names)
            lines.append(
                f"        cls.erc721 = ERC721Adapter({c}, accounts[:ACTORS], mint={mint})"
                + ("" if mint != "None" else "  # DECIDE: how to mint a token to an account: mint=lambda to: ...")
            )
    return lines


def _nft_mint(c: str, names: dict[str, list[str]]) -> str:
    for name, inputs, call in (
        ("safe_mint", ["address", "string"], 'safe_mint(to, "", {"from": accounts[0]})'),
        ("safeMint", ["address", "string"], 'safeMint(to, "", {"from": accounts[0]})'),
        ("safe_mint", ["address"], 'safe_mint(to, {"from": accounts[0]})'),
        ("safeMint", ["address"], 'safeMint(to, {"from": accounts[0]})'),
        ("mint", ["address"], 'mint(to, {"from": accounts[0]})'),
    ):
        if names.get(name) == inputs:
            return f"lambda to: {c}.{call}"
    return "None"


def _rule(f: Function, c: str, amounts: bool) -> list[str]:
    """One rule calling f from a drawn account; a revert expected where the source says who may call it, tolerated
    elsewhere.
    """
    params = (
        [("sender", "address")] + [(_param(n), t) for n, t in f.inputs] + ([("value", "value")] if f.payable else [])
    )
    seen: set[str] = set()
    named = []
    for n, t in params:
        n = n if n not in seen else f"{n}_{len(seen)}"
        seen.add(n)
        named.append((n, t))
    sig = ", ".join(["self"] + [f'{n}="{"st_value" if t == "value" else strategy_of(t)[0]}"' for n, t in named])
    call_args = ", ".join(
        [n for n, t in named[1:] if t != "value"] + ['{"from": sender' + (', "value": value}' if f.payable else "}")]
    )
    call = f"self.{c}.{f.name}({call_args})"
    lines = [
        f"    def rule_{snake(f.name)}({sig}):",
        f'        """{f.name}({", ".join(n for n, _ in f.inputs)}) from an account."""',
    ]
    # whose balance an amount is taken from: the account named as the owner (transferFrom's _from), else the sender's;
    # an allowance (approve) is not taken from a balance
    holder = next((n for n, t in named[1:] if t == "address" and HOLDER_NAMES.match(n)), "sender")
    for n, t in named[1:]:
        if amounts and t.startswith("uint") and AMOUNT_NAMES.match(n) and f.name not in ALLOWANCES:
            lines.append(f"        {n} = min({n}, self.{c}.balanceOf({holder}))  # at most what {holder} holds")
    if f.checks:
        lines.append(
            "        # the source checks (DECIDE which must hold here; where one must fail, "
            'expect it with reverts("...")):'
        )
        lines += [f"        #   {check}" for check in dict.fromkeys(f.checks)]
    if f.sender is not None:
        lines += [
            f"        if not ({f.sender.format(c=c)}):  # only the account the source names may call it",
            "            with reverts():",
            f"                {call}",
            "            return",
        ]
    lines += [
        "        try:",
        f"            {call}",
        "        except TransactionReverted:",
        f"            return  # DECIDE: when {f.name} may revert, and when it must not",
        "        # DECIDE: what it changed: update the ghost variables (setup) it moves",
    ]
    return lines


def _ghosts(artifact: Artifact, c: str) -> list[tuple[str, str, bool]]:
    """(name, setup() line, whether it is one address) for a ghost variable per public getter of a number, an address or
    a flag (per account when it takes one).
    """
    lines = []
    for e in artifact.abi:
        if e.get("type") != "function" or e["name"] not in artifact.getters or len(e.get("outputs", [])) != 1:
            continue
        out, inputs = e["outputs"][0]["type"], [i["type"] for i in e.get("inputs", [])]
        if not (out.startswith(("uint", "int")) or out in ("address", "bool")):
            continue
        name = snake(e["name"])
        if not inputs:
            lines.append((name, f"        self.{name} = self.{c}.{e['name']}()", out == "address"))
        elif inputs == ["address"]:
            lines.append(
                (name, f"        self.{name} = {{a: self.{c}.{e['name']}(a) for a in self.accounts[:ACTORS]}}", False)
            )
    return lines


def machine_text(artifact: Artifact, build: Build) -> str:
    """The source of a first machine for artifact's contract."""
    packs = standards(artifact.abi)
    covered = set().union(*(COVERED[p] for p in packs)) if packs else set()
    c = snake(artifact.name)
    token = _token_for(build, artifact.name)
    funcs = functions(artifact, covered)
    amounts = {"balanceOf"} <= {e["name"] for e in artifact.abi if e.get("type") == "function"} and bool(packs)
    strategies = {"st_address": 'strategy("address", length=ACTORS)'}
    for f in funcs:
        strategies.update(dict(strategy_of(t) for _, t in f.inputs))
        if f.payable:
            strategies["st_value"] = 'strategy("uint256", max_value="1 ether")'
    bases = ", ".join(PACKS[p][1] for p in packs)
    imports = ", ".join(sorted(n for p in packs for n in PACKS[p]))
    ghosts = _ghosts(artifact, c)
    taken = {"accounts", c, *PACKS, *strategies, *(n for n, _, _ in ghosts)}
    deployment = _deploy(artifact, token, taken, {n for n, _, one in ghosts if one})
    tokens = deployment.tokens
    # the ERC-4626 adapter funds the actors with the vault's asset and approves the vault itself
    asset = next((v for a, v in tokens.items() if "asset" in a.lower()), next(iter(tokens.values()), None))
    asset = asset if "erc4626" in packs else None
    funded = [v for v in tokens.values() if v != asset]
    # a ghost reading an address the machine holds as a token (collateral_token()) would hide the token
    setup = [line for n, line, _ in ghosts if n not in tokens.values()]
    how = _holds(token) if token is not None and funded else None
    held = "HELD = 10**24  # DECIDE: how much of each token each actor starts with (a million, at 18 decimals)"
    # the deployer's supply, shared: no amount to choose
    constants = [] if not funded else ["MAX = 2**256 - 1"] if how == "transfer" else [held, "MAX = 2**256 - 1"]
    out = [
        f'"""A first machine for {artifact.name}, '
        f"written by `evmstate init --machine {artifact.name}` from its ABI and source.",
        "",
        *(
            [
                f"{' and '.join(PACKS[p][1] for p in packs)} check{'s' if len(packs) == 1 else ''} what the standard "
                "owes; the rules below call every other function"
            ]
            if packs
            else ["The rules below call every function"]
        ),
        "that changes state. Search for DECIDE: where a human must say who may call what, and what each call changes.",
        '"""',
        "",
        "from evmstate import TransactionReverted, reverts, strategy",
        *([f"from evmstate.properties import {imports}"] if packs else []),
        "",
        "ACTORS = 4  # DECIDE: how many accounts act (at most [accounts] count in evmstate.toml)",
        *constants,
        "",
        "",
        f"class {artifact.name}Machine{f'({bases})' if bases else ''}:",
        *[f"    {name} = {expr}" for name, expr in strategies.items()],
        "",
        f"    def __init__(cls, accounts, {', '.join(deployment.params)}):",
        "        cls.accounts = accounts",
        *deployment.lines,
        *(_funds(token, how, funded, c) if token is not None else []),
        *(
            [f"        # ERC4626Adapter gives each actor a million of {asset} and approves the vault for all of it"]
            if asset
            else []
        ),
        *_adapters(artifact, packs, asset),
        "",
        "    def setup(self):",
        "        # ghost variables: what the contract exposes, "
        "as the machine expects it (DECIDE how each rule moves them)",
        *(setup or ["        pass"]),
    ]
    for f in funcs:
        out += ["", *_rule(f, c, amounts)]
    if not funcs and not packs:
        out += [
            "", "    def rule_nothing(self):",
            '        """The contract has no function that changes state: nothing to call."""',
        ]
    return "\n".join(out) + "\n"


def write_machine(config: Config, name: str, *, force: bool = False) -> Path:
    """Write machines/<name>.py for the project contract name; refuse to overwrite it unless force."""
    found = build(config)
    artifact = found.artifacts.get(name)
    if artifact is None or not artifact.bytecode:
        known = ", ".join(sorted(n for n, a in found.artifacts.items() if a.bytecode)) or "none"
        why = (
            f"it does not compile: {found.errors[name]}"
            if name in found.errors
            else "no deployable contract of that name"
        )
        raise UsageError(f"evmstate init --machine {name}: {why} in {config.contracts_dir}. Contracts: {known}.")
    path = config.machines_dir / f"{snake(name)}.py"
    if path.exists() and not force:
        raise UsageError(
            f"{path} already exists; nothing was written. Use --force to overwrite it, or name another contract."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(machine_text(artifact, found), encoding="utf-8")
    return path
