"""What the property packs share: the adapters' common part, actors and amounts, calls that may fail, checks that quote
the EIP.

A pack's rules draw an actor (an account: never an address the contracts produced) and a raw
uint256 amount, which a rule bounds by what the actor can do (its balance, the vault's max*), so
that large draws land on the bound itself and small ones stay small. A check that fails raises an
AssertionError whose message says what happened and quotes the sentence of the EIP it enforces.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from ..contracts.accounts import Account
from ..contracts.address import checksum, to_raw_address
from ..contracts.api import current_project
from ..contracts.contract import Contract, reverts
from ..search import canaries
from ..errors import MachineDefinitionError, TransactionReverted
from ..strategies import strategy
from ..values import format_value

ACTOR = strategy("address", length=64)  # one of the funded accounts (the first 64)
AMOUNT = strategy("uint256")
FLAG = strategy("bool")
MAX_UINT = 2**256 - 1
ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"
PREFIXES = ("rule_", "invariant_", "initialize_")


def clamp(raw: int, bound: int) -> int:
    """raw, or bound when raw is above it: a large draw is the bound itself."""
    return raw if raw <= bound else bound


def shown(value: Any) -> str:
    """A value as programs show it (accounts as accounts[i])."""
    return format_value(value)


def violated(what: str, clause: str) -> AssertionError:
    """The error of a failed property: what happened, then the EIP sentence it breaks."""
    return AssertionError(f"{what}\n  {clause}")


def expect(ok: bool, what: Callable[[], str] | str, clause: str) -> None:
    """Raise violated(what, clause) unless ok; what may be a function, called only when it is needed."""
    if not ok:
        raise violated(what() if callable(what) else what, clause)


def expect_reverted(sent: "Sent", what: Callable[[], str] | str, clause: str) -> None:
    """expect(sent.reverted, ...): the transaction must revert, and its revert counts as one the rule expected (as a
    revert caught by reverts() does: the rule table's `expected` column), not as a step that tested nothing."""
    expect(sent.reverted, what, clause)
    revert_expected(sent)


def revert_expected(sent: "Sent") -> None:
    """Count sent's revert, if it reverted, as one the rule expected (as reverts() counts one), once the rule has
    checked that it had to revert."""
    if sent.error is not None:
        reverts.listeners.notify(sent.error)


def expect_refused(sent: "Sent", what: Callable[[], str] | str, clause: str) -> None:
    """expect(sent.refused, ...): the transaction must revert or return false (EIP-20 lets a token refuse either way);
    a revert counts as expected (expect_reverted)."""
    expect(sent.refused, what, clause)
    revert_expected(sent)


exercised = canaries.exercised  # the packs' canaries, and any machine's: see search/canaries.py


def leave_out(name: str, why: str) -> bool:
    """Say that the rule name does not run in this machine on purpose (search/canaries.py); False, for a precondition.
    """
    canaries.left_out(name, why)
    return False


@dataclass
class Sent:
    """A transaction that may fail: its receipt, or the revert that stopped it."""

    receipt: Any = None
    error: TransactionReverted | None = None

    @property
    def reverted(self) -> bool:
        return self.error is not None

    @property
    def refused(self) -> bool:
        """It reverted, or returned false (EIP-20 lets a token refuse a transfer either way)."""
        return self.error is not None or self.receipt.return_value is False

    @property
    def value(self) -> Any:
        return self.receipt.return_value


def send(function: Any, *args: Any, sender: Any) -> Sent:
    """Call a state-changing function from sender; a revert is returned, not raised."""
    try:
        return Sent(function(*args, {"from": sender}))
    except TransactionReverted as exc:
        return Sent(error=exc)


def events(receipt: Any, contract: Any, name: str) -> list[tuple[Any, ...]]:
    """The name events contract emitted in receipt, each as its values in ABI order."""
    if receipt is None:
        return []
    return [tuple(e.values()) for e in receipt.events if e.name == name and e.address == contract.address]


def same(a: Any, b: Any) -> bool:
    """Whether two addresses (accounts, contracts, strings) are the same."""
    return checksum(to_raw_address(a, what="address")) == checksum(to_raw_address(b, what="address"))


class Adapter:
    """What every adapter holds: the contract under test, the actors, the chain they run on."""

    kind = "contract"

    def __init__(self, contract: Any, actors: Iterable[Any] | None) -> None:
        if not isinstance(contract, Contract):
            raise MachineDefinitionError(
                f"{type(self).__name__}() takes a deployed contract first (Token.deploy(...) or Token.at(address)), "
                f"got {shown(contract)}"
            )
        project = current_project.get()
        self.contract = contract
        self.chain = project.chain
        chosen = list(project.accounts if actors is None else actors)
        if not chosen or not all(isinstance(a, Account) for a in chosen):
            raise MachineDefinitionError(
                f"{type(self).__name__}(actors=...) takes the accounts that act (accounts, or accounts[:4]), "
                f"got {shown(chosen)}"
            )
        self.actors: list[Any] = chosen
        self._functions = {e["name"]: e for e in contract.abi if e.get("type") == "function"}

    def has(self, name: str, inputs: Sequence[str] | None = None) -> bool:
        """Whether the contract's ABI has the function name (taking these input types, when given)."""
        entry = self._functions.get(name)
        if entry is None:
            return False
        return inputs is None or [i["type"] for i in entry.get("inputs", [])] == list(inputs)

    def returns(self, name: str) -> bool:
        """Whether the ABI says the function returns something (a token whose transfer returns nothing does not)."""
        entry = self._functions.get(name)
        return bool(entry and entry.get("outputs"))

    def require(self, pack: str, *functions: tuple[str, Sequence[str]]) -> None:
        """Raise a definition error naming what the ABI lacks of what pack needs."""
        missing = [f"{name}({','.join(inputs)})" for name, inputs in functions if not self.has(name, inputs)]
        if missing:
            raise MachineDefinitionError(
                f"{type(self).__name__}: {self.contract!r} has no {', '.join(missing)}, which {pack} needs. "
                f"Give the adapter the contract that implements the standard, or leave {pack} out."
            )

    def actor(self, drawn: Any) -> Any:
        """The actor a drawn account stands for: itself when it is an actor, else one of them by its index."""
        if drawn in self.actors:
            return drawn
        return self.actors[getattr(drawn, "index", 0) % len(self.actors)]

    def other(self, drawn: Any, than: Any) -> Any | None:
        """An actor other than than, chosen by drawn; None when there is only one actor."""
        others = [a for a in self.actors if a != than]
        if not others:
            return None
        return others[getattr(drawn, "index", 0) % len(others)]


def adapter_of(machine: Any, attribute: str, kind: type, pack: str, example: str) -> Any:
    """The adapter a machine gives a pack (cls.<attribute>), or a definition error that says how to give it."""
    found = getattr(machine, attribute, None)
    if isinstance(found, kind):
        return found
    got = "no" if found is None else f"{type(found).__name__} as its"
    raise MachineDefinitionError(
        f"{type(machine).__name__} mixes in {pack} but has {got} {attribute}: in __init__, "
        f"write cls.{attribute} = {example}"
    )


class Pack:
    """Base of the property packs: mixins whose rules and invariants are the properties.

    A machine switches a property off by naming it: rule_erc20_transfer_returns_true = None in the
    class body. A name close to a pack's property but not one of them is a definition error.
    """

    prefix = ""  # "erc20": the packs' properties are rule_erc20_* and invariant_erc20_*

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        known = property_names(cls)
        prefixes = tuple(f"{kind}{p}_" for p in pack_prefixes(cls) for kind in PREFIXES)
        for name, value in vars(cls).items():
            if value is None and name.startswith(prefixes) and name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise MachineDefinitionError(
                    f"{cls.__name__}.{name} = None switches off no property: "
                    f"no pack it mixes in has one of that name.{hint} docs/properties.md lists them."
                )


def pack_prefixes(cls: type) -> list[str]:
    return [
        k.__dict__["prefix"] for k in cls.__mro__ if isinstance(k.__dict__.get("prefix"), str) and k.__dict__["prefix"]
    ]


def _pack_classes(cls: type) -> list[type]:
    """The classes of evmstate's packs in cls's bases, bases first."""
    return [k for k in reversed(cls.__mro__) if issubclass(k, Pack) and k.__module__.startswith(__package__ + ".")]


def property_names(cls: type) -> set[str]:
    """Every property of the packs cls mixes in, switched off or not."""
    return {
        name
        for klass in _pack_classes(cls)
        for name, fn in vars(klass).items()
        if name.startswith(PREFIXES) and callable(fn)
    }


def properties(pack: type) -> list[tuple[str, str, str]]:
    """A pack's properties: (name, what it checks, the EIP sentence it enforces), read from their docstrings.

    What it checks is the docstring's first paragraph, the sentence the rest, each joined into one line.
    """
    out = []
    for klass in _pack_classes(pack):
        for name, fn in vars(klass).items():
            if name.startswith(PREFIXES) and callable(fn):
                lines = [line.strip() for line in (fn.__doc__ or "").strip().splitlines()]
                blank = lines.index("") if "" in lines else len(lines)
                what = " ".join(lines[:blank])
                clause = " ".join(line for line in lines[blank:] if line)
                out.append((name, what, clause))
    return out
