"""Every public error evmstate raises. One root: EvmStateError."""

from __future__ import annotations


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


class StrategyError(EvmStateError):
    """Raised when strategy() is given an unknown ABI type or an invalid bound."""


class UnitError(EvmStateError):
    """Raised when an amount such as "1 ether" cannot be parsed."""


class MachineDefinitionError(EvmStateError):
    """Raised when a state machine or property test is defined in a way evmstate cannot run."""


class UsageError(EvmStateError):
    """Raised when evmstate is used in a way it does not support (a bad path, a wrong call)."""


class ContractError(EvmStateError):
    """Raised when a contract call is malformed: wrong arguments, unknown options, no such function."""


class TransactionReverted(EvmStateError):
    """Raised when a transaction or call reverts and nothing expected it to."""

    def __init__(
        self,
        reason: str | None,
        *,
        contract: str | None = None,
        function: str | None = None,
        revert_data: bytes = b"",
        source_line: str | None = None,
        gas_used: int = 0,
    ):
        self.reason = reason
        self.contract = contract
        self.function = function
        self.revert_data = revert_data
        self.source_line = source_line
        self.gas_used = gas_used
        where = f"{contract}.{function}" if contract and function else (contract or function or "call")
        shown = repr(reason) if reason is not None else "no reason given"
        message = f"{where} reverted: {shown}"
        if source_line:
            message += f"\n  {source_line}"
        super().__init__(message)


class VirtualMachineError(TransactionReverted):
    """Raised when execution fails without a REVERT: out of gas, invalid opcode, stack error."""


class FailureRecordError(EvmStateError):
    """Raised when a saved failure record cannot be read, found or replayed."""
