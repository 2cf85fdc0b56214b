"""The adversarial actors evmstate deploys for a machine that asks for them (docs/actors.md).

Each actor is one deployment of builtin/EvmstateActor.vy, compiled through the build cache like a
project's contract, deployed from an address of its own (so the project's deployments keep their
addresses) and funded as a funded account is. It sends transactions like an account
({"from": actor}), and its kind says how it answers ether and the ERC-721, ERC-1155 and ERC-777
receiver callbacks: accept, refuse (revert), or re-enter once. A re-entering actor calls back the
contract that paid it (for a token, the operator that moved it) with a call the actor sent to that
contract: the last one, or for `reenters-other`, the last call of another function than the one
it sends now, its own or else another account's (cross-function reentrancy: `transfer` re-entered
from `withdraw`; a referral claim another account made, from the actor's own claim). Before each
transaction it sends, the call to re-enter with is written into the actor's storage (its calldata
and value), so it is a call a rule of the program made, decided by the program's steps alone, and
a replay of the program re-enters alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from eth_utils import keccak

from ..compiler.sources import Artifact, compile_project
from ..config_checks import ACTOR_KINDS
from ..errors import CompileError, UsageError
from .accounts import Actor

SOURCE = Path(__file__).resolve().parent / "builtin" / "EvmstateActor.vy"
# the actors' deployer: an address no key is known for, so no funded account's nonce (and no
# deployment of the project's) moves when actors are deployed
DEPLOYER = bytes.fromhex("00000000000000000000000000000000e7a5ac70")
ACCEPT, REFUSE, REENTER = 0, 1, 2
# how each kind answers (ether, ERC-721, ERC-1155, ERC-777): the constructor's arguments
ANSWERS = {
    "receiver": (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    "rejects-ether": (REFUSE, ACCEPT, ACCEPT, ACCEPT),
    "reenters": (REENTER, ACCEPT, ACCEPT, ACCEPT),
    "refuses-erc721": (ACCEPT, REFUSE, ACCEPT, ACCEPT),
    "refuses-erc1155": (ACCEPT, ACCEPT, REFUSE, ACCEPT),
    "refuses-erc777": (ACCEPT, ACCEPT, ACCEPT, REFUSE),
    "reenters-erc721": (ACCEPT, REENTER, ACCEPT, ACCEPT),
    "reenters-erc1155": (ACCEPT, ACCEPT, REENTER, ACCEPT),
    "reenters-erc777": (ACCEPT, ACCEPT, ACCEPT, REENTER),
    "reenters-other": (REENTER, REENTER, REENTER, REENTER),
}
assert tuple(ANSWERS) == ACTOR_KINDS
# the kinds that re-enter, and the one of them that re-enters with another function's call
REENTERING = frozenset(kind for kind, answers in ANSWERS.items() if REENTER in answers)
OTHER = "reenters-other"
# the actor's storage (vyper's layout of EvmstateActor.vy): the re-entry's value and calldata by contract
# (HashMap[address, uint256], HashMap[address, Bytes[2048]]), then the last call sent to each contract, alike
VALUE_SLOT, DATA_SLOT, SENT_VALUE_SLOT, SENT_DATA_SLOT, MAX_CALL = 0, 1, 3, 4, 2048
# the last call any other account sent each contract, and the last before it of another function, alike
HEARD_VALUE_SLOT, HEARD_DATA_SLOT, HEARD_OTHER_VALUE_SLOT, HEARD_OTHER_DATA_SLOT = 5, 6, 7, 8

# by compiler settings: the same for every project of a process
_artifacts: dict[tuple[str, str], Artifact] = {}


def artifact(config: Any) -> Artifact:
    """The actor contract, compiled with the project's compiler settings through its build cache (once per process)."""
    key = (config.compiler.evm_version, config.compiler.optimize)
    found = _artifacts.get(key)
    if found is None:
        folder = config.state_dir / "build" / "evmstate-actors"
        build = compile_project(SOURCE.parent, folder, evm_version=key[0], optimize=key[1], root=SOURCE.parent)
        if "EvmstateActor" not in build.artifacts:
            error = build.errors.get("EvmstateActor")
            raise CompileError(
                f"evmstate's actor contract does not compile with [compiler] evm_version = {key[0]!r}: "
                f"{error}. Use an EVM version of cancun or later, or turn actors off."
            )
        found = _artifacts[key] = build.artifacts["EvmstateActor"]
    return found


def deploy(project: Any, kinds: Iterable[str], drawn: Iterable[str] = ()) -> dict[str, Actor]:
    """Deploy an actor of each kind, funded as the funded accounts are, and enlist them in project.accounts.

    drawn: the kinds strategy("address") draws by default (the others only when a strategy names them).
    """
    kinds = tuple(dict.fromkeys(kinds))
    accounts = project.accounts
    if not kinds:
        accounts.enlist({})
        return {}
    code = artifact(project.config)
    backend = project.backend
    balance = project.config.accounts.balance
    backend.set_balance(DEPLOYER, 10**24)
    actors: dict[str, Actor] = {}
    for kind in kinds:
        arguments = b"".join(a.to_bytes(32, "big") for a in ANSWERS[kind])
        result = backend.transact(DEPLOYER, None, code.bytecode + arguments, 0, None)
        if not result.success or result.contract_address is None:
            raise UsageError(
                f"evmstate could not deploy its {kind!r} actor: "
                f"{result.error or 'the deployment reverted'}. Turn actors off ([fuzz] actors = []) and report this."
            )
        address = result.contract_address
        actor = Actor(address, kind, backend, remember, hear if kind == OTHER else None)
        project.register(address, code, repr(actor))
        backend.set_balance(address, balance)
        actors[kind] = actor
    backend.set_balance(DEPLOYER, 0)
    accounts.enlist(actors, tuple(drawn))
    return actors


# the selectors a contract that calls each token callback holds in its code (the call's, and the magic value it checks)
CALLBACKS = (
    (),  # ether: any contract can pay
    (bytes.fromhex("150b7a02"),),  # onERC721Received
    (bytes.fromhex("f23a6e61"), bytes.fromhex("bc197c81")),  # onERC1155Received, onERC1155BatchReceived
    (bytes.fromhex("0023de29"),),  # tokensReceived
)


def that_matter(kinds: Iterable[str], codes: Iterable[bytes]) -> tuple[str, ...]:
    """Of kinds, those whose answers differ from a plain receiver's at a callback one of codes (the project's contracts'
    runtime code) can make: ether always; a token's hook where a code holds its selector. `receiver` stays. A kind that
    only refuses or re-enters ERC-721 hooks, in a project none of whose contracts calls one, acts as a receiver there,
    and drawn with the others it takes draws from the kinds that matter."""
    codes = list(codes)
    made = [not selectors or any(sel in code for sel in selectors for code in codes) for selectors in CALLBACKS]
    return tuple(
        kind for kind in kinds
        if kind == "receiver" or any(answer != ACCEPT and made[n] for n, answer in enumerate(ANSWERS[kind]))
    )


def remember(actor: Actor, to: bytes, data: bytes, value: int) -> None:
    """Before the actor sends a transaction: write into the actor's storage, on the chain the actor sends on now (the
    shrinker's revm twin while it replays there: Project.stand_in), the call it re-enters `to` with.

    That is this call, or for `reenters-other` a call of another function than this one: the last such call it sent
    `to` itself, else the last such call another account sent `to` (its arguments as they were: a claim through a
    referral that an account made, re-entered from the actor's own claim); until there is one, this call. Its records
    of the calls sent are in its storage too, so that a snapshot restored forgets them with the rest of the run.
    """
    if actor.kind not in REENTERING or len(data) > MAX_CALL:
        return
    backend, address = actor._backend, actor.raw_address
    key = to.rjust(32, b"\x00")
    if actor.kind != OTHER:
        _write(backend, address, key, VALUE_SLOT, DATA_SLOT, data, value)
        return
    other = None
    for value_slot, data_slot in ((SENT_VALUE_SLOT, SENT_DATA_SLOT), (HEARD_VALUE_SLOT, HEARD_DATA_SLOT),
                                  (HEARD_OTHER_VALUE_SLOT, HEARD_OTHER_DATA_SLOT)):
        found = _read(backend, address, key, data_slot)
        if found is not None and found[:4] != data[:4]:
            other = (value_slot, found)
            break
        if data_slot == SENT_DATA_SLOT and found is not None:
            break  # its own last call is of this function: its own call of another before it stays the re-entry
    if other is not None:
        value_slot, found = other
        paid = backend.get_storage(address, slot_of(value_slot, key))
        _write(backend, address, key, VALUE_SLOT, DATA_SLOT, found, paid)
    elif _read(backend, address, key, DATA_SLOT) is None:
        _write(backend, address, key, VALUE_SLOT, DATA_SLOT, data, value)
    _write(backend, address, key, SENT_VALUE_SLOT, SENT_DATA_SLOT, data, value)


def hear(actor: Actor, to: bytes, data: bytes, value: int) -> None:
    """Before another account sends `to` a transaction: the `reenters-other` actor notes it as the last call anyone else
    sent `to`, the one before it moving to the last of another function where this one's differs."""
    if len(data) > MAX_CALL or len(data) < 4:
        return
    backend, address = actor._backend, actor.raw_address
    key = to.rjust(32, b"\x00")
    last = _read(backend, address, key, HEARD_DATA_SLOT)
    if last is not None and last[:4] != data[:4]:
        last_value = backend.get_storage(address, slot_of(HEARD_VALUE_SLOT, key))
        _write(backend, address, key, HEARD_OTHER_VALUE_SLOT, HEARD_OTHER_DATA_SLOT, last, last_value)
    _write(backend, address, key, HEARD_VALUE_SLOT, HEARD_DATA_SLOT, data, value)


def _write(backend: Any, address: bytes, key: bytes, value_slot: int, data_slot: int, data: bytes, value: int) -> None:
    """A call (its value and calldata) into the actor's pair of mappings at value_slot and data_slot, under key."""
    backend.set_storage(address, slot_of(value_slot, key), value)
    base = slot_of(data_slot, key)
    backend.set_storage(address, base, len(data))
    for i in range(0, len(data), 32):
        word = int.from_bytes(data[i : i + 32].ljust(32, b"\x00"), "big")
        backend.set_storage(address, base + 1 + i // 32, word)


def _read(backend: Any, address: bytes, key: bytes, data_slot: int) -> bytes | None:
    """The calldata the actor's mapping at data_slot holds under key (None: none written, or an empty one)."""
    base = slot_of(data_slot, key)
    length = backend.get_storage(address, base)
    if not length:
        return None
    words = b"".join(backend.get_storage(address, base + 1 + i).to_bytes(32, "big") for i in range((length + 31) // 32))
    return words[:length]


def slot_of(slot: int, key: bytes) -> int:
    """Where vyper keeps HashMap slot's entry for a 32-byte key."""
    return int.from_bytes(keccak(slot.to_bytes(32, "big") + key), "big")
