"""evmstate: stateful property testing of Vyper contracts on an in-process EVM."""

from typing import TYPE_CHECKING, Any

# Hypothesis draws constants from the source of local modules, and evmstate's own must never count,
# so that a seed gives the same programs from a wheel and from a checkout. The names below are
# imported when first asked for (PEP 562), so that `evmstate --help` or `import evmstate.config`
# loads none of Hypothesis, vyper, py-evm or eth-abi; leave_evmstate_out() runs before any of them
# is: here when Hypothesis is loaded already, else on first use of a name, and from Hypothesis's own
# "hypothesis" entry point (pyproject.toml) whenever a process imports it.
from .search.constants import leave_evmstate_out

if TYPE_CHECKING:
    from hypothesis import given

    from .contracts.accounts import Account, Accounts, SignedMessage
    from .contracts.chain import Chain, deal
    from .contracts.contract import Blueprint, Contract, ContractContainer, Receipt, reverts
    from .contracts.project import Project
    from .spec.markers import (
        Bundle,
        StateMachine,
        consumes,
        initialize,
        invariant,
        multiple,
        optimize,
        precondition,
        route,
        rule,
    )
    from .strategies import strategy
    from .units import to_wei
    from .values import HexBytes
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

leave_evmstate_out(only_if_loaded=True)

# each public name that is not an error, and the module it comes from
_LAZY = {
    **dict.fromkeys(("Account", "Accounts", "SignedMessage"), "contracts.accounts"),
    **dict.fromkeys(("Chain", "deal"), "contracts.chain"),
    **dict.fromkeys(("Blueprint", "Contract", "ContractContainer", "Receipt", "reverts"), "contracts.contract"),
    "Project": "contracts.project",
    **dict.fromkeys(
        (
            "Bundle", "StateMachine", "consumes", "initialize", "invariant", "multiple", "optimize", "precondition",
            "route", "rule",
        ),
        "spec.markers",
    ),
    "strategy": "strategies",
    "to_wei": "units",
    "HexBytes": "values",
}


def __getattr__(name: str) -> Any:
    """A public name, imported when first asked for (and kept); given: Hypothesis's, for property tests."""
    import importlib

    value: Any
    if name == "__version__":  # read from the package's metadata: importlib.metadata costs a tenth of a second
        from .files import version

        value = version()
    elif name == "given":
        leave_evmstate_out()
        from hypothesis import given  # property tests: the runner reverts the chain after every example

        value = given
    elif name in _LAZY:
        leave_evmstate_out()
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    else:
        raise AttributeError(f"module 'evmstate' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
