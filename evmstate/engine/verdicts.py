"""What an exception raised by a machine's or test's own code means: a verdict on the contract, or a mistake of the
machine.

The line, as docs/machines.md ("Failures, and errors in the machine") gives it to users:

- A verdict (the property failed: exit 1, shrunk, saved): an AssertionError (an assert, a
  reverts() that saw no revert), a revert nothing expected (TransactionReverted,
  VirtualMachineError), and every other exception the code raises: ValueError, KeyError,
  ZeroDivisionError, a class of the user's own, GeneratorExit. A machine raises these on
  purpose, or a value the contract returned broke what its model assumed.
- A mistake of the machine (exit 2, nothing saved, the program that reached it shown): MISTAKES,
  errors that say the code itself is wrong whatever the contract does (NameError, AttributeError,
  TypeError, ImportError, NotImplementedError); evmstate's own errors but a revert (its API
  misused: an argument of the wrong type, a bad {"from": ...}, an unknown option); Hypothesis's
  InvalidArgument; and SystemExit, a KeyboardInterrupt the code raised itself, or any other
  BaseException that is not an Exception.
- A limit of evmstate (CallTimeout): an error too, told as one where the call is (tracebacks.harness_limit).

The same for `run`, `fuzz`, `mutate`, `replay`, `shrink` and the pytest plugin: each asks is_mistake().
"""

from __future__ import annotations

import dis
import sys
from pathlib import Path
from typing import Any, Callable

import hypothesis
from hypothesis.errors import InvalidArgument, InvalidDefinition

from ..errors import BuildsDiverged, CallTimeout, EvmStateError, TransactionReverted

# frames in these folders are evmstate's or Hypothesis's, not the user's: the package root, not this module's folder
LIBRARY_DIRS = (str(Path(__file__).parent.parent), str(Path(hypothesis.__file__).parent))

# Python's errors for code that is wrong whatever values it
# meets (subclasses too: UnboundLocalError, ModuleNotFoundError)
MISTAKES: tuple[type[BaseException], ...] = (NameError, AttributeError, TypeError, ImportError, NotImplementedError)


def library_file(filename: str) -> bool:
    """Whether a frame's file is evmstate's, Hypothesis's, an installed package's or Python's own, not the user's."""
    return (
        filename.startswith(LIBRARY_DIRS) or "site-packages" in filename
        or filename.startswith(("<hypothesis", "<frozen"))
    )


class Escaped(Exception):
    """Raised in place of a BaseException that is not an Exception, raised by a machine's or test's code (SystemExit,
    GeneratorExit, a KeyboardInterrupt it raised itself, a class of its own), so that it goes where the code's other
    errors go instead of ending evmstate; original is what was raised.

    verdict: whether it fails the property (GeneratorExit, pytest.fail()) rather than being a mistake of the machine.
    Reports name the original's type and message (shown_type, message_of).
    """

    def __init__(self, original: BaseException, verdict: bool) -> None:
        super().__init__(original)
        self.original = original
        self.verdict = verdict

    def __str__(self) -> str:
        return message_of(self.original)

    def __reduce__(self) -> Any:
        return (Escaped, (self.original, self.verdict))  # a helper process's find comes back pickled


def _pytest_failed(exc: BaseException) -> bool:
    """Whether exc is pytest.fail()'s, which Hypothesis too takes for a failure (pytest is never imported here)."""
    outcomes = getattr(sys.modules.get("_pytest"), "outcomes", None)
    failed = getattr(outcomes, "Failed", None)
    return failed is not None and isinstance(exc, failed)


def raised_by_code(exc: BaseException) -> bool:
    """Whether exc was raised by a `raise` statement in the user's code, not by a signal arriving there (a Ctrl-C).

    A signal's KeyboardInterrupt comes out of whatever instruction was running, or out of a
    handler of evmstate's or its command line's; a raise statement is RAISE_VARARGS in the frame that raised it.
    """
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    module = str(tb.tb_frame.f_globals.get("__name__", ""))
    if library_file(code.co_filename) or module.split(".")[0] in ("evmstate", "evmstate_cli", "hypothesis"):
        return False
    return any(i.offset == tb.tb_lasti and i.opname == "RAISE_VARARGS" for i in dis.get_instructions(code))


def escaped(exc: BaseException) -> Escaped | None:
    """exc as Escaped, when a machine's or test's code raised it and it is not an Exception; None when it goes on as it
    is: an Exception, a Ctrl-C, or a signal of evmstate's or Hypothesis's own (a run stopped, a test case ended).
    """
    if isinstance(exc, Exception):
        return None
    root = (type(exc).__module__ or "").split(".")[0]
    if root in ("evmstate", "hypothesis"):
        return None
    if isinstance(exc, KeyboardInterrupt) and not raised_by_code(exc):
        return None
    failed = _pytest_failed(exc)
    if root == "_pytest" and not failed:
        return None  # pytest.skip(), pytest.exit(): pytest's to handle, under pytest
    wrapped = Escaped(exc, verdict=failed or isinstance(exc, GeneratorExit))
    return wrapped.with_traceback(exc.__traceback__)


def run_code(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs), where fn is a machine's or test's code: what it raises that is not an Exception comes out as
    Escaped.
    """
    try:
        return fn(*args, **kwargs)
    except BaseException as exc:
        wrapped = escaped(exc)
        if wrapped is None:
            raise
        raise wrapped from None


def original(exc: BaseException) -> BaseException:
    """What the code raised: the original of an Escaped, else exc."""
    return exc.original if isinstance(exc, Escaped) else exc


def is_mistake(exc: BaseException) -> bool:
    """Whether exc, raised by a machine's or test's code, is a mistake of the machine (an error, exit 2) rather than a
    verdict on the contract.

    A limit of evmstate (CallTimeout) is neither: callers ask for it first.
    """
    if isinstance(exc, Escaped):
        return not exc.verdict
    if isinstance(exc, (TransactionReverted, CallTimeout, BuildsDiverged)):
        return False
    return isinstance(exc, (*MISTAKES, EvmStateError, InvalidArgument, InvalidDefinition))


def shown_type(exc: BaseException) -> str:
    """The name of the type the code raised."""
    return type(original(exc)).__name__


def message_of(exc: BaseException) -> str:
    """str(exc), or a placeholder that says so when the exception cannot be printed (its __str__ raises)."""
    try:
        return str(exc)
    except Exception as problem:
        return f"<unprintable {type(exc).__name__}: its __str__ raised {type(problem).__name__}>"


def repr_of(exc: BaseException) -> str:
    """repr(exc), or a placeholder that says so when its __repr__ raises."""
    try:
        return repr(exc)
    except Exception as problem:
        return f"<unprintable {type(exc).__name__}: its __repr__ raised {type(problem).__name__}>"


def why_mistake(exc: BaseException) -> str:
    """What to write instead, for a mistake of the machine (a line for its message); empty when the error's own message
    says it.
    """
    raised = original(exc)
    if isinstance(raised, SystemExit):
        return (
            "sys.exit() (SystemExit) in a machine's code would end evmstate itself, with no report. "
            "Fail a property with assert, or raise an exception of your own."
        )
    if isinstance(raised, KeyboardInterrupt):
        return (
            "KeyboardInterrupt is Ctrl-C's: evmstate stops on it. Fail a property with assert, "
            "or raise an exception of your own."
        )
    if isinstance(exc, Escaped):
        return (
            f"{type(raised).__name__} is a BaseException but not an Exception, "
            "which stops a run rather than failing it. Derive it from Exception to make it a failure."
        )
    if isinstance(exc, MISTAKES) and not isinstance(exc, EvmStateError):
        return (
            "A NameError, AttributeError, TypeError, ImportError or NotImplementedError says the "
            "machine's own code is wrong, "
            "whatever the contract does; fix it, or fail a property with assert (or an exception of your own)."
        )
    return ""
