"""Funded accounts and signatures, as users see them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence, overload

from eth_keys import keys
from eth_utils import keccak

from . import calls
from ..errors import UsageError
from ..units import to_wei
from ..values import HexBytes, format_value
from .typed_data import typed_data_hash
from .address import checksum, same_address, to_raw_address
from .receipt import Receipt
from .revert import raise_on_failure
from .api import Handle

if TYPE_CHECKING:
    from ..evm.base import Backend

class SignedMessage(NamedTuple):
    """A signature: the digest signed, v (27 or 28), r, s, and the 65 signature bytes r || s || v."""

    message_hash: HexBytes
    v: int
    r: int
    s: int
    signature: HexBytes


def eip191_hash(message: bytes | str) -> bytes:
    """The EIP-191 (version 0x45, personal_sign) digest of a message: text is signed as UTF-8."""
    data = message.encode("utf-8") if isinstance(message, str) else bytes(message)
    return keccak(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode() + data)


def _sign(private_key: bytes, digest: bytes) -> SignedMessage:
    sig = keys.PrivateKey(private_key).sign_msg_hash(digest)
    v = sig.v + 27
    return SignedMessage(
        HexBytes(digest), v, sig.r, sig.s, HexBytes(sig.r.to_bytes(32, "big") + sig.s.to_bytes(32, "big") + bytes([v]))
    )


class Account(Handle):
    """A funded account: sends transactions, holds ether; repr is accounts[i] so programs paste back."""

    __slots__ = ("raw_address", "address", "index", "_backend", "_hash", "_private_key")

    def __init__(self, raw_address: bytes, index: int, backend: "Backend", private_key: bytes | None = None) -> None:
        self.raw_address = raw_address
        self.address = checksum(raw_address)
        self.index = index
        self._backend = backend
        self._hash = hash(self.address)
        self._private_key = private_key

    def _key(self, what: str) -> bytes:
        if self._private_key is None:
            raise UsageError(
                f"{what}: the private key of {self.address} is not known, so it cannot sign: an address outside the "
                "funded accounts "
                '(accounts.at(address), {"from": address}) sends without a key; sign with a funded account '
                '(accounts[0] ...)'
            )
        return self._private_key

    def sign_message(self, message: bytes | str) -> SignedMessage:
        """Sign a message as personal_sign does (EIP-191 version 0x45); a str is signed as UTF-8 text."""
        if not isinstance(message, (bytes, bytearray, str)):
            raise UsageError(
                f"sign_message: expected bytes or a str, got {type(message).__name__} {format_value(message)}"
            )
        return _sign(self._key("sign_message"), eip191_hash(message))

    def sign_typed_data(
        self,
        domain: Mapping[str, Any],
        types: Mapping[str, Sequence[Mapping[str, str]]],
        message: Mapping[str, Any],
        primary_type: str | None = None,
    ) -> SignedMessage:
        """Sign EIP-712 typed data, e.g. an EIP-2612 permit.

        domain: {"name", "version", "chainId", "verifyingContract", "salt"} (any of them);
        types: {"Permit": [{"name": "owner", "type": "address"}, ...]} (EIP712Domain optional);
        message: the primary type's values, accounts and contracts allowed for addresses.
        """
        return _sign(self._key("sign_typed_data"), typed_data_hash(domain, types, message, primary_type))

    def balance(self) -> int:
        """The account's balance in wei."""
        return self._backend.get_balance(self.raw_address)

    @property
    def nonce(self) -> int:
        return self._backend.get_nonce(self.raw_address)

    def sending(self, to: bytes, data: bytes, value: int) -> None:
        """Called before each transaction the account sends (an actor keeps it as its re-entry call)."""

    def transfer(self, to: object, amount: object = 0, gas: int | None = None, data: bytes = b"") -> "Receipt":
        """Send ether (an int or a string such as "1 ether") to an account or contract."""
        value = to_wei(amount, what="transfer amount")
        target = to_raw_address(to, what="transfer to")
        self.sending(target, bytes(data), value)
        result = self._backend.transact(self.raw_address, target, bytes(data), value, gas)
        calls.sent(result)
        receipt = Receipt(result, sender=self, value=value, contract=None, function=None)
        try:
            raise_on_failure(result, "transfer", None)
        except Exception as exc:
            if calls.listeners:
                calls.notify(
                    calls.CallRecord(
                        None, "transfer", (to, value), "transaction", self, value,
                        result, error=exc, to=target, data=bytes(data),
                    )
                )
            raise
        if calls.listeners:
            calls.notify(
                calls.CallRecord(
                    None, "transfer", (to, value), "transaction", self, value,
                    result, receipt, to=target, data=bytes(data),
                )
            )
        return receipt

    def deploy(self, container: object, *args: Any, **kwargs: Any) -> Any:
        """Brownie's accounts[i].deploy(C, ...): evmstate deploys from the container instead."""
        name = getattr(container, "name", None) if not isinstance(container, type) else None
        name = name if isinstance(name, str) else "Contract"
        shown = ", ".join([*(format_value(a, code=True) for a in args), f'{{"from": {self!r}}}'])
        raise UsageError(
            f"{self!r}.deploy({name}, ...) is Brownie's spelling; evmstate deploys from the contract: write "
            f"{name}.deploy({shown})"
        )

    def __eq__(self, other: object) -> bool:
        return same_address(self.raw_address, self.address, other)  # type: ignore[return-value]

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"accounts[{self.index}]" if self.index >= 0 else repr(self.address)

    def __str__(self) -> str:
        return self.address


class Actor(Account):
    """A contract account evmstate deployed for the machine (contracts/actors.py): it sends transactions like a funded
    account, and answers ether and token callbacks as its kind says. repr is accounts.actors["kind"], so programs
    paste back."""

    __slots__ = ("kind", "_before", "_hear")

    def __init__(self, raw_address: bytes, kind: str, backend: "Backend", before: Any = None, hear: Any = None) -> None:
        super().__init__(raw_address, -1, backend)
        self.kind = kind
        self._before = before  # before(actor, to, data, value): what it does before each transaction it sends
        self._hear = hear  # hear(actor, to, data, value): what it does before each transaction another account sends

    def sending(self, to: bytes, data: bytes, value: int) -> None:
        if self._before is not None:
            self._before(self, to, data, value)

    def __repr__(self) -> str:
        return f'accounts.actors["{self.kind}"]'


class Accounts(Sequence[Account], Handle):
    """The funded accounts, indexable like a list; accounts[0] deploys by default.

    It also knows the actors deployed for the machine running now (actors), which strategy("address")
    draws after the funded accounts (pool()), and as senders.
    """

    def __init__(self, backend: "Backend", addresses: Sequence[bytes]) -> None:
        self._backend = backend
        known = {address: private for private, address in backend.account_keys}
        self._items = [Account(a, i, backend, known.get(a)) for i, a in enumerate(addresses)]
        self._by_raw: dict[bytes, Account] = {a.raw_address: a for a in self._items}
        self.actors: dict[str, Actor] = {}
        self.hearing: tuple[Actor, ...] = ()  # the actors told of every transaction another account sends (heard())
        self._drawn: tuple[str, ...] = ()
        self._pools: dict[Any, list[Account]] = {}

    def enlist(self, actors: dict[str, Actor], drawn: Sequence[str] = ()) -> None:
        """The actors of the machine running now (none: {}), and the kinds strategy("address") draws by default."""
        for actor in self.actors.values():
            self._by_raw.pop(actor.raw_address, None)
        self.actors = dict(actors)
        self.hearing = tuple(a for a in actors.values() if a._hear is not None)
        self._drawn = tuple(k for k in drawn if k in actors)
        self._by_raw.update((a.raw_address, a) for a in actors.values())
        self._pools = {}

    def heard(self, sender: bytes, to: bytes, data: bytes, value: int) -> None:
        """Before a transaction from sender: each actor that hears others' calls (hearing), but the sender, is told."""
        for actor in self.hearing:
            if actor.raw_address != sender:
                actor._hear(actor, to, data, value)

    def pool(self, which: Any = None) -> list[Account]:
        """The accounts a strategy draws from: the funded ones, then the actors it draws (None: those the settings name;
        True: every actor deployed; a tuple of kinds: those of them deployed), repeated so that a draw is an actor a
        third of the time or more (one of ten funded accounts would otherwise be drawn as often as the actor)."""
        if not self.actors:
            return self._items
        found = self._pools.get(which)
        if found is None:
            everyone = tuple(self.actors) if which is True else ()
            kinds = self._drawn if which is None else everyone if isinstance(which, bool) else which
            actors = [self.actors[k] for k in kinds if k in self.actors]
            # the actors are the draws that matter: together about a third of them at least, each as often as the others
            repeat = -(-len(self._items) // (2 * len(actors))) if actors else 0
            found = self._pools[which] = [*self._items, *(a for _ in range(repeat) for a in actors)]
        return found

    @overload
    def __getitem__(self, i: int) -> Account: ...
    @overload
    def __getitem__(self, i: slice) -> list[Account]: ...
    def __getitem__(self, i: Any) -> Any:
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def at(self, address: object, force: bool = False) -> Account:
        """The account at an address: the funded one, or an account for any other address (a whale, a contract, a pool
        on a fork).

        Such an account sends without a key ({"from": account}, account.transfer()) and holds the
        ether the chain gives that address (the fork's balance, or chain.set_balance's); it cannot
        sign. force=True is Brownie's spelling of the same, accepted as it is: no address needs it.
        """
        if not isinstance(force, bool):
            raise UsageError(f"accounts.at: force must be True or False, got {format_value(force)}")
        return self.sender(address, what="accounts.at")

    def sender(self, address: object, *, what: str = "from") -> Account:
        """The account to send from: a funded one, or any other address (it holds no ether unless sent some, and cannot
        sign)."""
        if isinstance(address, Account):
            return address
        raw = to_raw_address(address, what=what)
        found = self._by_raw.get(raw)
        if found is not None:
            return found
        return Account(raw, -1, self._backend)

    def __repr__(self) -> str:
        return f"<Accounts: {len(self)} funded>"
