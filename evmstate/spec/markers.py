"""The decorator style's parts: bundles, the decorators that mark a method (rule, initialize, invariant, optimize,
precondition) and StateMachine. Decorators only attach markers; machine.py reads them when a machine is loaded.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable

from hypothesis.strategies import SearchStrategy

from ..errors import MachineDefinitionError, UsageError

RULE_MARKER = "_evmstate_rule"
INIT_MARKER = "_evmstate_initialize"
INVARIANT_MARKER = "_evmstate_invariant"
PRECONDITION_MARKER = "_evmstate_preconditions"
OPTIMIZE_MARKER = "_evmstate_optimize"
LIFECYCLE = ("setup", "teardown", "teardown_final")
MARKERS = (RULE_MARKER, INIT_MARKER, INVARIANT_MARKER, OPTIMIZE_MARKER)
_ONE_OF = "a method can be only one of rule, initialize, invariant and optimize"


class Bundle:
    """A named collection of values produced by rules (target=) and drawn by later rules."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise MachineDefinitionError(
                f"Bundle({name!r}): a bundle's name must be a Python identifier, e.g. Bundle('payments')"
            )
        self.name = name

    def __repr__(self) -> str:
        return f"Bundle({self.name!r})"

    def filter(self, predicate: Callable[[Any], bool]) -> "FilteredBundle":
        """Only values for which predicate(value) holds now; the rule waits until one does.

        Unlike Hypothesis's Bundle.filter, no run is ever discarded for an empty match: the
        rule is simply not enabled at that step.
        """
        if not callable(predicate):
            raise MachineDefinitionError(f"{self!r}.filter() takes a function of a bundle value, got {predicate!r}")
        return FilteredBundle(self, predicate)


@dataclass(frozen=True)
class FilteredBundle:
    """A bundle seen through a predicate on each value's current state."""

    bundle: Bundle
    predicate: Callable[[Any], bool]

    @property
    def name(self) -> str:
        return self.bundle.name


@dataclass(frozen=True)
class Consumed:
    bundle: Bundle
    predicate: Callable[[Any], bool] | None = None


def consumes(bundle: "Bundle | FilteredBundle") -> Consumed:
    """A rule argument that takes a value out of the bundle (later rules cannot draw it)."""
    if isinstance(bundle, FilteredBundle):
        return Consumed(bundle.bundle, bundle.predicate)
    if not isinstance(bundle, Bundle):
        raise MachineDefinitionError(f"consumes() takes a Bundle or bundle.filter(...), got {bundle!r}")
    return Consumed(bundle)


@dataclass(frozen=True)
class Route:
    """A rule's result sent to the bundle chosen at run time: return route(bundle, value)."""

    bundle: Bundle
    value: Any


def route(bundle: Bundle, value: Any) -> Route:
    """Return this from a rule (or several in a tuple) to add value to bundle, chosen by what happened."""
    if not isinstance(bundle, Bundle):
        raise MachineDefinitionError(f"route() takes a Bundle and a value, got {bundle!r}")
    return Route(bundle, value)


@dataclass(frozen=True)
class multiple:
    """Return multiple(a, b, ...) from a rule with a target to add several values (or none)."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", values)


def rule(
    fn: Callable | None = None, /, *, target: Bundle | None = None, targets: tuple[Bundle, ...] = (), **arguments: Any
) -> Any:
    """Mark a method as a rule; keyword arguments give each parameter's strategy or bundle.

    weight= (a positive number, 1 by default) makes a step draw the rule that many times as often
    as a rule of weight 1; max_times= (a positive integer) lets a run call it at most that many
    times. @rule without parentheses is @rule().
    """
    decorate = _marker(RULE_MARKER, "rule", target, targets, arguments)
    return decorate if fn is None else decorate(_decorated(fn, "rule"))


def initialize(
    fn: Callable | None = None, /, *, target: Bundle | None = None, targets: tuple[Bundle, ...] = (), **arguments: Any
) -> Any:
    """Mark a method as an initializer: run once, before any rule. @initialize without parentheses is @initialize()."""
    decorate = _marker(INIT_MARKER, "initialize", target, targets, arguments)
    return decorate if fn is None else decorate(_decorated(fn, "initialize"))


def _decorated(fn: Any, kind: str) -> Callable:
    """The function @kind was put on without parentheses; anything else is an error that says what to write."""
    if not callable(fn) or isinstance(fn, (Bundle, type)):
        raise MachineDefinitionError(
            f"@{kind}() takes keyword arguments only (a strategy or a Bundle per parameter, target=...), got {fn!r}"
        )
    return fn


def _marker(
    attr: str, kind: str, target: Bundle | None, targets: tuple[Bundle, ...], arguments: dict[str, Any]
) -> Callable[[Callable], Callable]:
    all_targets = tuple(targets) + ((target,) if target is not None else ())
    for t in all_targets:
        if not isinstance(t, Bundle):
            raise MachineDefinitionError(f"@{kind}(target=...) takes a Bundle, got {t!r}")

    # weight= and max_times= are the rule's own options unless they are a parameter's strategy or bundle
    options = {k: arguments.pop(k) for k in RULE_OPTIONS if k in arguments and _is_option(arguments[k])}
    if options and kind != "rule":
        raise MachineDefinitionError(
            f"@{kind}() takes no {', '.join(options)}: an initializer runs once per run. Give a rule its "
            "weight and max_times with @rule(...)"
        )

    def decorate(fn: Callable) -> Callable:
        if any(hasattr(fn, m) for m in MARKERS):
            raise MachineDefinitionError(f"{fn.__qualname__}: {_ONE_OF}")
        for name, value in options.items():
            check_rule_option(f"{fn.__qualname__}: @rule({name}=...)", name, value)
        setattr(fn, attr, (all_targets, dict(arguments), dict(options)))
        return fn

    return decorate


# a rule's options beside its parameters: @rule(weight=..., max_times=...), or settings = {"weights": {...},
# "max_times": {...}}
RULE_OPTIONS = ("weight", "max_times")
SETTING_OF = {"weight": "weights", "max_times": "max_times"}


def _is_option(value: Any) -> bool:
    """Whether a keyword of @rule is an option (a number) rather than a parameter's strategy or bundle."""
    return not isinstance(value, (SearchStrategy, Bundle, FilteredBundle, Consumed))


def check_rule_option(where: str, name: str, value: Any) -> float | int:
    """A rule's weight (a positive finite number) or max_times (a positive integer); MachineDefinitionError
    otherwise."""
    if name == "weight":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise MachineDefinitionError(
                f"{where}: a weight must be a positive number (1 is the default; 0.1 draws the rule ten "
                f"times less often), got {value!r}"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MachineDefinitionError(
            f"{where}: max_times must be a positive whole number of calls per run, got {value!r}. To never "
            "run a rule, remove it or give it a precondition"
        )
    return value


def invariant(fn: Callable | None = None, /, *, check_during_init: bool = False) -> Any:
    """Mark a method as an invariant, checked after every initializer and rule. @invariant without parentheses is
    @invariant()."""
    return _only(INVARIANT_MARKER, "invariant", fn)


def optimize(fn: Callable | None = None, /) -> Any:
    """Mark a method as a value to maximize: read after every step, the best value and the shortest program reaching it
    reported. @optimize without parentheses is @optimize()."""
    return _only(OPTIMIZE_MARKER, "optimize", fn)


def _only(marker: str, kind: str, fn: Callable | None) -> Any:
    def decorate(fn: Callable) -> Callable:
        if any(hasattr(fn, m) for m in MARKERS if m != marker):
            raise MachineDefinitionError(f"{fn.__qualname__}: {_ONE_OF}")
        setattr(fn, marker, True)
        return fn

    return decorate if fn is None else decorate(_decorated(fn, kind))


def precondition(predicate: Callable[[Any], bool]) -> Callable[[Callable], Callable]:
    """Only run the rule (or check the invariant) while predicate(self) is true."""
    if not callable(predicate):
        raise MachineDefinitionError(f"precondition() takes a function of self, got {predicate!r}")

    def decorate(fn: Callable) -> Callable:
        setattr(fn, PRECONDITION_MARKER, (*getattr(fn, PRECONDITION_MARKER, ()), predicate))
        return fn

    return decorate


class StateMachine:
    """Base class of decorator-style machines; evmstate runs them, they are never instantiated directly."""

    _evmstate_stack: contextlib.ExitStack  # what enter() entered in this run, closed when the run ends (engine.program)
    _evmstate_entered: bool

    def __new__(cls, *args: Any, **kwargs: Any) -> "StateMachine":
        raise UsageError(
            f"{cls.__name__} is a state machine: evmstate creates it for every run. "
            f"Run it with `evmstate run path/to/file.py::{cls.__name__}` instead of calling {cls.__name__}()."
        )

    def enter(self, cm: Any) -> Any:
        """Enter a context manager and keep it until the end of the current run."""
        self._evmstate_entered = True  # a run holding a context open cannot be checkpointed
        return self._evmstate_stack.enter_context(cm)
