"""Every public error evmstate raises (one root: EvmStateError), and the exit status each outcome of a command gives."""

from __future__ import annotations

import enum
import errno
from typing import Any, Sequence


class ExitCode(enum.IntEnum):
    """How a command ends, as its exit status: 0 passed, 1 falsified, 2 the input's fault, 3 evmstate's, and the shell's
    130 for Ctrl-C."""

    OK = 0  # passed; a replayed failure is fixed
    FAILED = 1  # a property was falsified, or still fails; the mutation score is below --min-score
    USAGE_ERROR = 2  # bad input: usage, settings, the user's machines, tests or contracts
    INTERNAL_ERROR = 3  # evmstate itself failed (the traceback is shown)
    NOTHING_FOUND = 5  # no machine or test to run (pytest's NO_TESTS_COLLECTED)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)


def from_ctrl_c(exc: BaseException) -> bool:
    """Whether exc was raised while a Ctrl-C (or a SIGTERM, SIGHUP taken as one) was on its way out: a KeyboardInterrupt
    is among its causes or contexts. Code a Ctrl-C stops in the middle may raise something else on the way out (an
    assert in a handler, Python's RuntimeError around a class being made); that error is the interruption's.
    """
    seen: set[int] = set()
    stack = [exc]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e is not exc and type(e) is KeyboardInterrupt:
            return True
        # a context raised `from None` was set aside on purpose (a KeyboardInterrupt a machine raised, wrapped)
        stack += [x for x in (e.__cause__, None if e.__suppress_context__ else e.__context__) if x is not None]
    return False


class EvmStateError(Exception):
    """Raised when evmstate cannot do what it was asked; the root of every evmstate error."""


class ConfigError(EvmStateError):
    """Raised when evmstate.toml is unreadable, has an unknown key or a value of the wrong type."""


class CompileError(EvmStateError):
    """Raised when a Vyper source does not compile; keeps vyper's annotated message."""

    def __init__(self, message: str, *, path: str | None = None, lineno: int | None = None):
        super().__init__(message)
        self.path = path
        self.lineno = lineno


class MachineDefinitionError(EvmStateError):
    """Raised when a state machine or property test is defined in a way evmstate cannot run."""


class UsageError(EvmStateError):
    """Raised when evmstate is used in a way it does not support (a bad path, a wrong call).

    Raised by a machine's or test's code (a rule, an invariant, __init__), it is a mistake of
    the machine, never a verdict on the contract: the machine stops as an error (exit 2) with the
    program that reached it, and nothing is saved as a failure. So are its subclasses below.
    """


class StrategyError(UsageError):
    """Raised when strategy() is given an unknown ABI type or an invalid bound."""


class UnitError(UsageError):
    """Raised when an amount such as "1 ether" cannot be parsed."""


class ContractError(UsageError):
    """Raised when a contract call is malformed: an argument of the wrong type or out of its type's range, a bad
    {"from": ...}, value sent to a function that is not payable, a bad gas limit, an answer that does not decode
    as the ABI given (an interface attached to the wrong address).

    A mistake of the machine, not a property of the contract (see UsageError).
    """


class CallUsageError(ContractError):
    """Raised when a contract call is written wrong in the harness: an unknown transaction option or
    keyword, a wrong number of arguments, no such function.

    A mistake in the machine, not a property of the contract: the machine stops as an error
    (exit 2) and nothing is saved as a failure.
    """


class ReceiptUsedAsValue(CallUsageError, TypeError):
    """Raised when a Receipt is used as the value its function returned (int(), arithmetic, a comparison, a test of
    truth).

    A function that is not view or pure sends a transaction and returns a Receipt (Brownie's
    way), where titanoboa returns the value: the message says to read .return_value.
    """


class NoSuchFunction(CallUsageError, AttributeError):
    """Raised when a contract has no function of the name asked for (also an AttributeError, for hasattr())."""


class NoSuchContract(UsageError, KeyError):
    """Raised when project["name"] names no contract of the project (also a KeyError, as a mapping's lookup is)."""

    __str__ = UsageError.__str__  # the message as written, not quoted as a KeyError's key


_ERROR_SELECTOR = bytes.fromhex("08c379a0")  # Error(string)


class TransactionReverted(EvmStateError):
    """Raised when a transaction or call reverts and nothing expected it to.

    reason is what the revert data says (a reason string, a custom error, a panic), None when
    it carried none. For a revert without a reason, kind and check say which compiler check
    failed (e.g. "underflow (safesub)", "safesub"), source_line where, and dev_revert_msg the
    Brownie-style "# dev: ..." comment on that line.
    """

    def __init__(
        self,
        reason: str | None,
        *,
        contract: str | None = None,
        function: str | None = None,
        revert_data: bytes = b"",
        source_line: str | None = None,
        gas_used: int = 0,
        dev_revert_msg: str | None = None,
        check: str | None = None,
        kind: str | None = None,
        via: tuple[str, ...] = (),
        hint: str | None = None,
    ):
        self.reason = reason
        self.contract = contract
        self.function = function
        self.revert_data = revert_data
        self.source_line = source_line
        self.gas_used = gas_used
        self.dev_revert_msg = dev_revert_msg
        self.check = check
        self.kind = kind
        self.via = via
        where = f"{contract}.{function}" if contract and function else (contract or function or "call")
        if reason is not None:
            # a reason string is quoted; a custom error shows as the call it reads like
            shown = (
                repr(reason)
                if revert_data[:4] in (b"", _ERROR_SELECTOR) or type(self) is not TransactionReverted
                else reason
            )
        elif dev_revert_msg:
            shown = repr(dev_revert_msg) + (f" ({kind})" if kind else "")
        else:
            shown = kind or "no reason given"
        message = f"{where} reverted: {shown}"
        if source_line:
            message += f"\n  {source_line}"
        for line in via:
            message += f"\n  called from {line}"
        if hint:
            message += f"\n{hint}"
        super().__init__(message)

    @property
    def revert_msg(self) -> str | None:
        """Brownie's name: the reason, or the dev comment when the revert carried no reason."""
        return self.reason if self.reason is not None else self.dev_revert_msg

    @property
    def call(self) -> str | None:
        """The call that reverted as its caller wrote it (e.g. "Token.transfer(accounts[1], 5)"), None when not known.

        Formatted when first read: most reverts are expected (reverts()) and never shown.
        """
        state = self.__dict__
        pending = state.pop("_call_of", None)
        if pending is not None:
            show, what = pending
            state["_call"] = show(*what)
        return state.get("_call")

    @call.setter
    def call(self, value: str | None) -> None:
        self.__dict__.pop("_call_of", None)
        self.__dict__["_call"] = value

    def show_call(self, show: Any, *what: Any) -> None:
        """Set call to show(*what), formatted when first read."""
        self.__dict__["_call_of"] = (show, what)

    def __reduce__(self) -> Any:
        self.call  # the text goes with it, not the values it shows
        return super().__reduce__()


class VirtualMachineError(TransactionReverted):
    """Raised when execution fails without a REVERT: out of gas, invalid opcode, stack error."""


class CallTimeout(EvmStateError):
    """Raised when a call runs longer than the per-call time limit ([fuzz] call_timeout) and revm could not run
    it to its end instead (pyrevm not installed, an evm_version revm does not run); nothing it did is kept.

    A limit of evmstate, not a failure of the contract: on chain the call would finish or run out of
    gas. A machine or test that raises it stops as an error (exit 2), not as a falsified property.
    """

    def __init__(
        self, message: str, *, call: str | None = None, limit: float = 0.0, configured: float = 0.0,
        source_line: str | None = None,
    ):
        super().__init__(message)
        self.call = call
        self.limit = limit
        self.configured = configured
        self.source_line = source_line


class BuildsDiverged(EvmStateError):
    """Raised when the two builds of a differential run (--differential) do differently on the same call: success,
    return data, logs, a balance, storage when compared.

    A verdict on the contract, as a revert nothing expected is: the machine fails (exit 1), and the
    program is shrunk, saved and replayed. reason names the call and what differed ("Vault.deposit:
    return data"), the same for every program that meets this divergence.
    """

    def __init__(self, message: str, *, reason: str, call: str = "", a: str = "", b: str = ""):
        super().__init__(message)
        self.reason = reason
        self.call = call
        self.a = a  # side A's outcome, as the report shows it
        self.b = b


class ForkError(EvmStateError):
    """Raised when a forked chain cannot be used as asked: the node is unreachable, on another chain, has pruned the
    block, or does not serve old storage; said before any machine runs, with the URL, the block and what to change."""


class ForkUnavailable(CallTimeout):
    """Raised when the node of a forked chain fails mid-run (after its retries), or the fork cache lacks a value and
    no node is given: the call cannot run to its end, so the machine stops as an error, as at a time limit."""


class FailureRecordError(EvmStateError):
    """Raised when a saved failure record cannot be read, found or replayed."""


class ResourceError(EvmStateError):
    """Raised when something evmstate keeps its state in or runs on fails: the example database's Redis server, a folder
    under .evmstate/ on a full or read-only disk, a worker process killed from outside. Never a verdict on the contract:
    the message names the resource (where), says why and what to do.

    Where the run can go on without the resource (a cache, the example database mid-run), it does, and says
    so in a warning with this message instead.
    """

    def __init__(self, message: str, *, where: str = ""):
        super().__init__(message)
        self.where = where

    @classmethod
    def unwritable(
        cls, what: str, where: str, exc: BaseException, then: str = "",
        elsewhere: str = "run from a copy of the project that is",
    ) -> "ResourceError":
        """The error of what (in the folder where) that could not be written because of exc; then says what follows from
        it."""
        then = f": {then}" if then else ""
        return cls(
            f"{what} could not be written in {where} ({why(exc)}){then}. {remedy(exc, where, elsewhere)}", where=where
        )


def why(exc: BaseException) -> str:
    """What went wrong, as a reader wants it: the system's words for an OSError ("No space left on device"), else the
    error."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def remedy(exc: BaseException, where: str, elsewhere: str = "run from a copy of the project that is") -> str:
    """What to do about a folder that could not be written: free space, make it writable (or elsewhere), or check it."""
    code = getattr(exc, "errno", None)
    if code in (errno.ENOSPC, errno.EDQUOT):
        return f"Free space on the disk that holds {where}."
    if code in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"Make {where} writable (or {elsewhere})."
    return f"Check that {where} can be written."


def short_of_ether(sender: bytes, balance: int, cost: int, keys: Sequence[tuple[bytes, bytes]] = ()) -> UsageError:
    """The UsageError of a transaction whose sender cannot pay its value and gas, saying what to write instead. keys:
    the funded accounts' (private key, address) pairs, to name the sender where it is one (it spent what it had)."""
    address = f"0x{sender.hex()}"
    funded = next((i for i, (_, a) in enumerate(keys) if a == sender), None)
    if funded is not None:
        return UsageError(
            f"sender accounts[{funded}] ({address}) has {balance} wei left, needs {cost} for value and gas: the "
            "machine's earlier transactions spent the ether it was funded with. Give it more (chain.set_balance("
            f'"{address}", "1000 ether") in the machine), fund every account with more ([accounts] balance in '
            "evmstate.toml), or send smaller values"
        )
    return UsageError(
        f"sender {address} has {balance} wei, needs {cost} for value and gas. Give it ether first "
        f'(chain.set_balance("{address}", "1 ether")) or send from a funded account (accounts[0] ...): '
        'strategy("address") also draws addresses the contracts produced, which hold no ether; '
        'strategy("address", length=N) draws only the first N funded accounts'
    )


class ExportError(EvmStateError):
    """Raised when a saved failure cannot be written as a test.

    Not a failure of a state machine, a program the target cannot express, or a failure the sources no longer have.
    """
