"""Where "the property failed" ends and "the machine is broken" begins: engine.verdicts."""

from __future__ import annotations

import signal
import sys

import pytest
from hypothesis.errors import InvalidArgument, StopTest

from evmstate.engine.program import Stopped
from evmstate.engine.tracebacks import ErrorInfo, describe_error, machine_error, user_error
from evmstate.engine.verdicts import Escaped, escaped, is_mistake, message_of, raised_by_code, repr_of, run_code
from evmstate.errors import (
    CallTimeout,
    CallUsageError,
    ContractError,
    MachineDefinitionError,
    NoSuchContract,
    NoSuchFunction,
    ReceiptUsedAsValue,
    StrategyError,
    TransactionReverted,
    UnitError,
    UsageError,
    VirtualMachineError,
)


def raised(fn, *args):
    """What fn(*args) raised, through run_code as the engine calls a machine's code."""
    with pytest.raises(BaseException) as info:
        run_code(fn, *args)
    return info.value


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text")

    def __repr__(self):
        raise RuntimeError("no repr")


class Halt(BaseException):
    pass


@pytest.mark.parametrize(
    "exc",
    [
        AssertionError("balance 3 != 4"),
        TransactionReverted("Insufficient balance", contract="Token", function="transfer"),
        VirtualMachineError("Out of gas"),
        ValueError("invariant broken"),
        KeyError("alice"),
        ZeroDivisionError("division by zero"),
        RuntimeError("mine"),
        Unprintable(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_assertions_reverts_and_the_machines_own_exceptions_are_verdicts(exc):
    assert not is_mistake(exc)


@pytest.mark.parametrize(
    "exc",
    [
        NameError("name 'tokn' is not defined"),
        UnboundLocalError("x"),
        AttributeError("'Vault' object has no attribute 'tokn'"),
        TypeError("unsupported operand"),
        ModuleNotFoundError("no module named 'helpers'"),
        NotImplementedError(),
        ContractError("Token.transfer argument 1 (address): expected an account, got 'yes'"),
        CallUsageError("Token.transfer takes 2 arguments, got 1"),
        NoSuchFunction("Token has no function 'transferr'"),
        NoSuchContract("project has no contract 'Tokn'"),
        ReceiptUsedAsValue("read .return_value"),
        UnitError("unknown unit"),
        StrategyError("strategy('uint7')"),
        UsageError("chain.mine(timestamp=...) back in time"),
        MachineDefinitionError("no strategy"),
        InvalidArgument("max_value=1"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_code_that_is_wrong_whatever_the_contract_does_and_misuse_of_evmstate_are_mistakes(exc):
    assert is_mistake(exc)


def test_a_limit_of_evmstate_is_neither_a_verdict_nor_a_mistake_of_the_machine():
    assert not is_mistake(CallTimeout("ran past its time limit"))


def test_every_error_evmstate_raises_for_a_call_written_wrong_is_a_usage_error():
    for cls in (ContractError, CallUsageError, UnitError, StrategyError, NoSuchFunction, NoSuchContract, ReceiptUsedAsValue):
        assert issubclass(cls, UsageError), cls


def exit_now():
    sys.exit(0)


def interrupt_on_purpose():
    raise KeyboardInterrupt


def ctrl_c():
    signal.raise_signal(signal.SIGINT)  # Python's own handler raises KeyboardInterrupt here, as for a Ctrl-C


def generator_exit():
    raise GeneratorExit("stop")


def halt():
    raise Halt("halt")


def test_sys_exit_and_a_keyboard_interrupt_raised_on_purpose_are_mistakes_of_the_machine():
    for fn, kind in ((exit_now, SystemExit), (interrupt_on_purpose, KeyboardInterrupt), (halt, Halt)):
        exc = raised(fn)
        assert isinstance(exc, Escaped) and isinstance(exc.original, kind) and is_mistake(exc), fn
        error_type, _, location, _ = describe_error(exc)
        assert error_type == kind.__name__ and location is not None and f"in {fn.__name__}" in location


def test_a_ctrl_c_is_not_the_machines_and_goes_on_as_it_is():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        exc = raised(ctrl_c)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert type(exc) is KeyboardInterrupt and not raised_by_code(exc)


def test_generator_exit_is_a_verdict_and_evmstates_and_hypothesiss_own_signals_pass_through():
    exc = raised(generator_exit)
    assert isinstance(exc, Escaped) and exc.verdict and not is_mistake(exc)
    assert ErrorInfo.of(exc).type == "GeneratorExit" and ErrorInfo.of(exc).message == "stop"
    assert escaped(Stopped("stop the machine")) is None and escaped(StopTest(0)) is None
    assert escaped(ValueError("an Exception")) is None


def test_an_exception_that_cannot_be_printed_is_reported_with_a_placeholder():
    exc = Unprintable()
    assert message_of(exc) == "<unprintable Unprintable: its __str__ raised RuntimeError>"
    assert repr_of(exc) == "<unprintable Unprintable: its __repr__ raised RuntimeError>"
    info = ErrorInfo.of(exc)
    assert info.type == "Unprintable" and info.message == message_of(exc)
    assert user_error("M.rule_a", exc) == "M.rule_a raised Unprintable: <unprintable Unprintable: its __str__ raised RuntimeError>"


def test_a_mistakes_message_names_what_raised_it_says_what_to_write_and_shows_the_program():
    text = machine_error("Vault.invariant", raised(exit_now), ["state = Vault()", "state.rule_deposit(amount=1)"])
    assert text.startswith("Vault.invariant raised SystemExit: 0\nTraceback (user code):\n")
    assert "in exit_now\n    sys.exit(0)" in text
    assert "An error in the machine, not a failure of the contract: nothing is saved. sys.exit() (SystemExit) in a machine's code would end evmstate itself" in text
    assert text.endswith("The program that reached it:\n  state = Vault()\n  state.rule_deposit(amount=1)")


def test_a_keyboard_interrupt_raised_by_a_signal_handler_of_evmstates_is_a_ctrl_c():
    # as a handler in evmstate or its command line raises it (a second Ctrl-C, SIGTERM taken for one)
    namespace = {"__name__": "evmstate_cli.launch"}
    exec("def handler():\n    raise KeyboardInterrupt\n", namespace)
    exc = raised(namespace["handler"])
    assert type(exc) is KeyboardInterrupt and not raised_by_code(exc)


def test_an_escaped_exception_survives_pickling_as_a_helper_process_sends_it():
    import pickle

    again = pickle.loads(pickle.dumps(raised(generator_exit)))
    assert isinstance(again, Escaped) and again.verdict and isinstance(again.original, GeneratorExit) and str(again) == "stop"
