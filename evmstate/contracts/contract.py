"""ABI-bound contracts: deploy, calls and receipts."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Collection, Sequence

from eth_utils import keccak

from . import calls
from ..hooks import FAST_PATHS
from ..errors import CallUsageError, ContractError, NoSuchFunction
from ..units import to_wei
from ..values import HexBytes
from .abi import (
    describe_inputs,
    encode_values,
    entry_signature,
    param_type,
    selector,
)
from .accounts import Account
from .codec import Codec
from .address import checksum, same_address, to_raw_address
from .api import Handle, ProjectLike
from .getters import NOT_READ, Getter, reader
from .receipt import Receipt
from .revert import last_call, raise_on_failure, reverts  # noqa: F401  (reverts re-exported)

if TYPE_CHECKING:
    from ..compiler.sources import Artifact

TX_OPTIONS = ("from", "value", "gas")
# a deployment may also name itself: traces, events and reports call it by its label
DEPLOY_OPTIONS = (*TX_OPTIONS, "label")
_TX_KEYS = frozenset(TX_OPTIONS)
_KW_OPTIONS = {"sender": "from", "value": "value", "gas": "gas", "label": "label"}


def _struct_last(by_arity: dict[int, Any], args: tuple[Any, ...]) -> bool:
    """Whether a trailing dict is a struct argument (given by its fields) rather than transaction options.

    by_arity maps an argument count to (inputs, selector, codec) of the overload taking that many.
    """
    chosen = by_arity.get(len(args))
    if chosen is None or not chosen[2].inputs or chosen[2].inputs[-1].kind != "tuple":
        return False
    return not set(args[-1]) <= set(TX_OPTIONS)


# -- contracts -----------------------------------------------------------------


def _did_you_mean(names: Sequence[str], known: Sequence[str] | dict[str, Any]) -> str:
    """ (did you mean 'from'?) for the first of names close to a known one; empty when none is."""
    for name in names:
        close = difflib.get_close_matches(name, list(known), n=1)
        if close:
            return f" (did you mean {close[0]!r}?)"
    return ""


def _split_options(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    n_inputs_choices: Collection[int],
    allowed: Sequence[str] = TX_OPTIONS,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    options: dict[str, Any] = {}
    # a trailing dict of transaction options only is the options even when the argument count is
    # wrong, so that the count error counts the arguments given (not the options as one more)
    tx_dict = (
        bool(args)
        and isinstance(args[-1], dict)
        and (_TX_KEYS if allowed is TX_OPTIONS else frozenset(allowed)).issuperset(args[-1])
    )
    if tx_dict and ((len(args) - 1) in n_inputs_choices or args[-1]):
        options = dict(args[-1])
        args = args[:-1]
    elif args and isinstance(args[-1], dict) and (len(args) - 1) in n_inputs_choices:
        unknown = sorted(set(args[-1]) - set(allowed))
        usable = ", ".join(repr(o) for o in allowed[:-1]) + f" and {allowed[-1]!r}"
        raise CallUsageError(
            f"{name}: unknown transaction option(s) {', '.join(map(repr, unknown))}{_did_you_mean(unknown, allowed)}; "
            f"use {usable}"
        )
    for key, value in kwargs.items():
        if key not in _KW_OPTIONS or _KW_OPTIONS[key] not in allowed:
            raise CallUsageError(
                f"{name}: unexpected keyword {key!r}{_did_you_mean([key], _KW_OPTIONS)}; pass arguments by position "
                "and options as sender=, value=, gas= (or a trailing {'from': ..., 'value': ...} dict)"
            )
        options[_KW_OPTIONS[key]] = value
    return args, options


class ContractFunction:
    """One ABI function of a deployed contract (overloads by arity are chosen by argument count)."""

    def __init__(self, contract: "Contract", entries: list[dict[str, Any]]) -> None:
        self.contract = contract
        self.name = entries[0]["name"]
        self._by_arity: dict[int, tuple[dict[str, Any], bytes, Codec]] = {}
        for entry in entries:
            codec = Codec.for_entry(f"{contract._name}.{self.name}", entry)
            self._by_arity[len(codec.inputs)] = (entry, selector(entry_signature(entry)), codec)
        first = entries[0]
        self.mutability = first.get("stateMutability", "nonpayable")
        self.is_view = self.mutability in ("view", "pure")
        self.payable = self.mutability == "payable"
        self._getter = Getter.find(contract._artifact.getters, entries) if contract._project.fast_getters else None
        self._read = (
            None
            if self._getter is None or not self.is_view
            else reader(self._getter, contract, self._by_arity[self._getter.keys][2], FAST_PATHS.value)
        )

    @property
    def _label(self) -> str:
        return f"{self.contract._name}.{self.name}"

    def _prepare(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any], bytes, Codec]:
        last = args[-1] if args else None
        chosen: tuple[dict[str, Any], bytes, Codec] | None
        if not kwargs and type(last) is dict and len(args) - 1 in self._by_arity and _TX_KEYS.issuperset(last):
            # the common case, {"from": ...} after the arguments: what _split_options makes of it, without its checks
            chosen = self._by_arity[len(args) - 1]
            args, options = args[:-1], dict(last)
        else:
            if kwargs or (type(last) is dict and not self._struct_last(args)):
                args, options = _split_options(self._label, args, kwargs, self._by_arity)
            else:
                options = {}
            chosen = self._by_arity.get(len(args))
        if chosen is None:
            wanted = " or ".join(f"{n} ({describe_inputs(self._by_arity[n][0])})" for n in sorted(self._by_arity))
            raise CallUsageError(f"{self._label} takes {wanted} arguments, got {len(args)}")
        _, sel, codec = chosen
        return args, options, sel + codec.encode(args), codec

    def _struct_last(self, args: tuple[Any, ...]) -> bool:
        return _struct_last(self._by_arity, args)

    def _sender(self, options: dict[str, Any]) -> Account:
        sender = options.get("from")
        if sender is None:
            return self.contract._project.accounts[0]
        return self.contract._project.accounts.sender(sender)

    def _value(self, options: dict[str, Any]) -> int:
        value = to_wei(options.get("value", 0), what=f"{self._label} value")
        if value and not self.payable:
            raise ContractError(f"{self._label} is not payable, but a value of {value} wei was sent")
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A view function returns its value; any other sends a transaction and returns a Receipt."""
        read = self._read
        # a public getter (a view): call()'s read from storage, inlined (an invariant reads getters after every step)
        if read is not None:
            if not kwargs and not calls.listeners:
                value = read(args)
                if value is not NOT_READ:
                    last_call.value = (self.contract._name, self.name, args)
                    return value
            return self._run_call(args, kwargs)
        if self.is_view:
            return self._run_call(args, kwargs)
        return self.transact(*args, **kwargs)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """Run the function without changing state and return its decoded value."""
        read = self._read
        # read from storage while no one records calls: traces and gas reports see the call run
        if read is not None and not kwargs and not calls.listeners:
            value = read(args)
            if value is not NOT_READ:
                last_call.value = (self.contract._name, self.name, args)
                return value
        return self._run_call(args, kwargs)

    def _run_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The call run on the chain (eth_call), its value decoded."""
        args, options, data, codec = self._prepare(args, kwargs)
        sender = self._sender(options)
        value = self._value(options) if "value" in options else 0
        backend = self.contract._project.backend
        result = backend.call(
            sender.raw_address, self.contract.raw_address, data, value, _gas(options), static=self.is_view
        )
        try:
            raise_on_failure(
                result, self.name, self.contract._artifact, (self.contract._name, self.name, args),
                project=self.contract._project, contract=self.contract._name,
            )
            decoded = codec.decode(result.output)
        except Exception as exc:
            if calls.listeners:
                calls.notify(
                    calls.CallRecord(
                        self.contract._name, self.name, args, "call", sender, value, result,
                        error=exc, to=self.contract.raw_address, data=data,
                    )
                )
            raise
        if calls.listeners:
            calls.notify(
                calls.CallRecord(
                    self.contract._name, self.name, args, "call", sender, value, result,
                    decoded, to=self.contract.raw_address, data=data,
                )
            )
        return decoded

    def transact(self, *args: Any, **kwargs: Any) -> Receipt:
        """Send a transaction calling the function; raise TransactionReverted if it reverts."""
        args, options, data, codec = self._prepare(args, kwargs)
        sender = self._sender(options)
        value = self._value(options) if "value" in options else 0
        backend = self.contract._project.backend
        sender.sending(self.contract.raw_address, data, value)
        accounts = self.contract._project.accounts
        if accounts.hearing:
            accounts.heard(sender.raw_address, self.contract.raw_address, data, value)
        result = backend.transact(sender.raw_address, self.contract.raw_address, data, value, _gas(options))
        calls.sent(result)
        try:
            raise_on_failure(
                result, self.name, self.contract._artifact, (self.contract._name, self.name, args),
                project=self.contract._project, contract=self.contract._name,
            )
            receipt = Receipt(
                result, sender=sender, value=value, contract=self.contract, function=self,
                return_value=codec.decode(result.output),
            )
        except Exception as exc:
            if calls.listeners:
                calls.notify(
                    calls.CallRecord(
                        self.contract._name, self.name, args, "transaction", sender, value, result, error=exc,
                        to=self.contract.raw_address, data=data,
                    )
                )
            raise
        if calls.listeners:
            calls.notify(
                calls.CallRecord(
                    self.contract._name, self.name, args, "transaction", sender, value, result,
                    receipt, to=self.contract.raw_address, data=data,
                )
            )
        return receipt

    def encode_input(self, *args: Any) -> bytes:
        return self._prepare(args, {})[2]

    def __repr__(self) -> str:
        sigs = " | ".join(entry_signature(e) for e, *_ in self._by_arity.values())
        return f"<{self.mutability} {self.contract._name}.{sigs}>"


def _label(label: Any, where: str) -> str | None:
    """A deployment's label, checked: a name traces can show."""
    if label is None:
        return None
    if not isinstance(label, str) or not label.strip() or any(c.isspace() for c in label):
        raise CallUsageError(f"{where}: label must be a name without spaces, such as \"weth\"; got {label!r}")
    return label


def _gas(options: dict[str, Any]) -> int | None:
    gas = options.get("gas")
    if gas is None:
        return None
    if isinstance(gas, bool) or not isinstance(gas, int) or gas <= 0:
        raise ContractError(f"gas must be a positive integer, got {gas!r}")
    return gas


class _AtAddress(Handle):
    """Equal to its address (in any form), hashed and printed as it."""

    raw_address: bytes
    address: str

    def __eq__(self, other: object) -> bool:
        return same_address(self.raw_address, self.address, other)  # type: ignore[return-value]

    def __hash__(self) -> int:
        return hash(self.address)

    def __str__(self) -> str:
        return self.address


class Contract(_AtAddress):
    """A deployed contract: each ABI function is a method; .address, .balance()."""

    def __init__(self, project: ProjectLike, name: str, raw_address: bytes, artifact: "Artifact") -> None:
        self._project = project
        self._name = name  # the deployment's label, else the contract's name
        self._artifact = artifact
        self.raw_address = raw_address
        self.address = checksum(raw_address)
        grouped: dict[str, list[dict[str, Any]]] = {}
        for entry in artifact.abi:
            if entry.get("type") == "function":
                grouped.setdefault(entry["name"], []).append(entry)
        self._functions = {name: ContractFunction(self, entries) for name, entries in grouped.items()}
        for fname, fn in self._functions.items():
            if not hasattr(Contract, fname) and fname not in self.__dict__:
                setattr(self, fname, fn)

    @property
    def abi(self) -> list[dict[str, Any]]:
        """The contract's ABI, as compiled (a function named abi is still there: .function("abi"))."""
        return self._artifact.abi

    def function(self, name: str) -> ContractFunction:
        """The function called name, even where it clashes with a Contract attribute."""
        try:
            return self._functions[name]
        except KeyError:
            raise NoSuchFunction(
                f"{self._name} has no function {name!r}{_did_you_mean([name], self._functions)}; it has "
                f"{', '.join(sorted(self._functions)) or 'none'}"
            ) from None

    def balance(self) -> int:
        return self._project.backend.get_balance(self.raw_address)

    @property
    def codehash(self) -> HexBytes:
        """keccak256 of the contract's runtime code, as EXTCODEHASH gives it."""
        return HexBytes(keccak(self._project.backend.get_code(self.raw_address)))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise NoSuchFunction(
            f"{self._name} has no function {name!r}{_did_you_mean([name], self._functions)}; it has "
            f"{', '.join(sorted(self._functions)) or 'none'}"
        )

    def __repr__(self) -> str:
        return f"<{self._name} {self.address}>"



def label_deployment(contract: Contract, label: str) -> Contract:
    """Name a contract after the deployment that made it, unless it was deployed with a label of its own."""
    project = contract._project
    if project.name_at(contract.raw_address) == contract._artifact.name:
        project.register(contract.raw_address, contract._artifact, label)
        contract._name = label
    return contract


ERC5202_PREAMBLE = b"\xfe\x71\x00"  # ERC-5202: not executable, version 0, no data section


class Blueprint(_AtAddress):
    """A contract's initcode deployed as an ERC-5202 blueprint: pass it (or .address) to a factory."""

    def __init__(self, container: "ContractContainer", raw_address: bytes) -> None:
        self.container = container
        self.raw_address = raw_address
        self.address = checksum(raw_address)

    def __repr__(self) -> str:
        return f"<{self.container.name} blueprint {self.address}>"



class ContractContainer(Handle):
    """The contracts built from one source file: Name.deploy(*args, {'from': acct, 'value': v})."""

    def __init__(self, project: ProjectLike, artifact: "Artifact") -> None:
        self._project = project
        self._artifact = artifact
        self._name = artifact.name
        self.abi = artifact.abi
        self.bytecode = artifact.bytecode
        self._deployed: list[Contract] = []
        ctor = [e for e in artifact.abi if e.get("type") == "constructor"]
        self._ctor_types = [param_type(p) for p in ctor[0].get("inputs", [])] if ctor else []
        self._ctor_desc = describe_inputs(ctor[0]) if ctor else ""
        self._ctor_payable = bool(ctor) and ctor[0].get("stateMutability") == "payable"

    @property
    def name(self) -> str:
        return self._name

    def deploy(self, *args: Any, **kwargs: Any) -> Contract:
        """Deploy a new instance and return it; raises TransactionReverted if the constructor reverts."""
        label = f"{self._name}.deploy"
        if not self._artifact.bytecode:
            raise ContractError(
                f"{label}: {self._name} has no deploy code ({self._artifact.origin or 'an interface'}: "
                f"{self._artifact.path}); attach it to a deployed contract with {self._name}.at(address), or give its "
                "artifact the deploy code"
            )
        args, options = _split_options(label, args, kwargs, [len(self._ctor_types)], DEPLOY_OPTIONS)
        name = _label(options.get("label"), label)
        if len(args) != len(self._ctor_types):
            raise CallUsageError(
                f"{label} takes {len(self._ctor_types)} arguments ({self._ctor_desc}), got {len(args)}"
            )
        data = self._artifact.bytecode + (encode_values(self._ctor_types, args, label) if self._ctor_types else b"")
        sender = self._sender(options)
        value = to_wei(options.get("value", 0), what=f"{label} value")
        if value and not self._ctor_payable:
            raise ContractError(f"{label}: the constructor is not payable, but a value of {value} wei was sent")
        result = self._project.backend.transact(sender.raw_address, None, data, value, _gas(options))
        calls.sent(result)
        try:
            if not result.success:
                raise_on_failure(result, "deploy", self._artifact, (self._name, "deploy", args), project=self._project)
            assert result.contract_address is not None  # a deploy that succeeded made one
            contract = self._attach(result.contract_address, name)
        except Exception as exc:
            if calls.listeners:
                ctor = data[len(self._artifact.bytecode) :]
                calls.notify(
                    calls.CallRecord(
                        self._name, "deploy", args, "deploy", sender, value, result,
                        error=exc, data=ctor,
                    )
                )
            raise
        self._deployed.append(contract)
        if calls.listeners:
            ctor = data[len(self._artifact.bytecode) :]
            calls.notify(
                calls.CallRecord(
                    self._name, "deploy", args, "deploy", sender, value, result,
                    contract, to=result.contract_address, data=ctor,
                )
            )
        return contract

    def deploy_as_blueprint(self, *args: Any, **kwargs: Any) -> "Blueprint":
        """Deploy the contract's initcode as an ERC-5202 blueprint, for create_from_blueprint to copy.

        Takes only the transaction options ({'from': acct} or sender=); constructor arguments
        are given to create_from_blueprint.
        """
        label = f"{self._name}.deploy_as_blueprint"
        args, options = _split_options(label, args, kwargs, [0])
        if args:
            raise CallUsageError(
                f"{label} takes no constructor arguments, got {len(args)}; pass them to create_from_blueprint in the "
                "contract that deploys from the blueprint"
            )
        if options.get("value"):
            raise ContractError(f"{label}: a blueprint cannot be sent a value")
        code = ERC5202_PREAMBLE + self._artifact.bytecode
        if len(code) > 0xFFFF:
            raise ContractError(f"{label}: the initcode is {len(code)} bytes, too long for a blueprint (at most 65535)")
        # PUSH2 len; RETURNDATASIZE; DUP2; PUSH1 10; RETURNDATASIZE; CODECOPY; RETURN: returns what follows
        initcode = b"\x61" + len(code).to_bytes(2, "big") + b"\x3d\x81\x60\x0a\x3d\x39\xf3" + code
        sender = self._sender(options)
        result = self._project.backend.transact(sender.raw_address, None, initcode, 0, _gas(options))
        calls.sent(result)
        try:
            if not result.success:
                raise_on_failure(result, "deploy_as_blueprint", self._artifact, (self._name, "deploy_as_blueprint", ()))
        except Exception as exc:
            if calls.listeners:
                calls.notify(
                    calls.CallRecord(self._name, "deploy_as_blueprint", (), "deploy", sender, 0, result, error=exc)
                )
            raise
        assert result.contract_address is not None
        blueprint = Blueprint(self, result.contract_address)
        if calls.listeners:
            calls.notify(
                calls.CallRecord(self._name, "deploy_as_blueprint", (), "deploy", sender, 0, result, blueprint)
            )
        return blueprint

    def _sender(self, options: dict[str, Any]) -> Account:
        sender = options.get("from") or self._project.accounts[0]
        return self._project.accounts.sender(sender)

    def at(self, address: object, label: str | None = None) -> Contract:
        """This contract's interface bound to an existing contract's address; label names it in traces, events and
        reports.

        An address without code is refused (calls to it would succeed and return nothing): deploy
        first, or plant code there with chain.set_code().
        """
        raw = to_raw_address(address, what=f"{self._name}.at")
        label = _label(label, f"{self._name}.at")
        backend = self._project.backend
        if not backend.get_code(raw):
            fork = backend.spec.fork
            if fork is not None:
                where = (
                    f"at block {backend.block_number} of the forked chain (chain id {fork.chain_id}, forked at block "
                    f"{fork.block})"
                )
                hint = "check the address and [fork] block: a contract deployed after the fork's block is not there yet"
            else:
                where = f"on this chain (block {backend.block_number})"
                hint = (
                    f"deploy one with {self._name}.deploy(...) and use what it returns, or plant code there first with "
                    "chain.set_code(address, code)"
                )
            raise ContractError(f"{self._name}.at({checksum(raw)}): there is no code at that address {where}; {hint}")
        return self._attach(raw, label)

    def _attach(self, raw: bytes, label: str | None) -> Contract:
        self._project.register(raw, self._artifact, label)
        return Contract(self._project, label or self._name, raw, self._artifact)

    def __len__(self) -> int:
        return len(self._deployed)

    def __getitem__(self, i: int) -> Contract:
        return self._deployed[i]

    def __repr__(self) -> str:
        return f"<ContractContainer {self._name}>"
