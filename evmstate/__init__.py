"""evmstate: stateful property testing of Vyper contracts on an in-process EVM."""

# first: Hypothesis draws constants from the source of local modules, and evmstate's own must
# never count, so that a seed gives the same programs from a wheel and from a checkout
from .search.constants import leave_evmstate_out

leave_evmstate_out()

from .contracts.accounts import Account, Accounts, SignedMessage
from .contracts.chain import Chain, deal
from .contracts.contract import Blueprint, Contract, ContractContainer, Receipt, reverts
from .errors import (
    BuildsDiverged,
    CallTimeout,
    ForkError,
    ForkUnavailable,
    CompileError,
    ConfigError,
    ContractError,
    EvmStateError,
    ExportError,
    FailureRecordError,
    MachineDefinitionError,
    ResourceError,
    StrategyError,
    TransactionReverted,
    UnitError,
    UsageError,
    VirtualMachineError,
)
from .spec import Bundle, StateMachine, consumes, initialize, invariant, multiple, optimize, precondition, route, rule
from .contracts.project import Project
from . import files
from .strategies import strategy
from .units import to_wei
from .values import HexBytes

from hypothesis import given  # property tests: the runner reverts the chain after every example

__version__ = files.version()

__all__ = [
    "Bundle",
    "StateMachine",
    "consumes",
    "given",
    "initialize",
    "invariant",
    "multiple",
    "optimize",
    "precondition",
    "route",
    "rule",
    "Account",
    "Accounts",
    "Blueprint",
    "BuildsDiverged",
    "CallTimeout",
    "ForkError",
    "ForkUnavailable",
    "Chain",
    "deal",
    "CompileError",
    "ConfigError",
    "Contract",
    "ContractContainer",
    "ContractError",
    "EvmStateError",
    "ExportError",
    "FailureRecordError",
    "HexBytes",
    "MachineDefinitionError",
    "Project",
    "Receipt",
    "ResourceError",
    "SignedMessage",
    "StrategyError",
    "TransactionReverted",
    "UnitError",
    "UsageError",
    "VirtualMachineError",
    "reverts",
    "strategy",
    "to_wei",
]
