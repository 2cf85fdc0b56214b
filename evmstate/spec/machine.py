"""A machine class, in either style, read into one MachineSpec (collect()): its rules, initializers and invariants,
with definition errors raised at load time, and the names that make a class a machine.
"""

from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis.strategies import SearchStrategy

from ..config_checks import check_actors, near_miss
from ..errors import MachineDefinitionError
from .markers import (
    INIT_MARKER, INVARIANT_MARKER, LIFECYCLE, MARKERS, OPTIMIZE_MARKER, PRECONDITION_MARKER, RULE_MARKER, SETTING_OF,
    Bundle, Consumed, FilteredBundle, StateMachine, check_rule_option,
)


@dataclass
class Param:
    """One rule argument: a strategy to draw from, or a bundle to take a value from."""

    name: str
    strategy: SearchStrategy | None = None
    bundle: Bundle | None = None
    consume: bool = False
    predicate: Callable[[Any], bool] | None = None


@dataclass
class RuleSpec:
    name: str
    function: Callable
    params: list[Param]
    targets: tuple[Bundle, ...] = ()
    preconditions: tuple[Callable, ...] = ()
    weight: float | None = None  # None: 1, and the search may learn to draw it rarely (engine/swarm.py)
    max_times: int | None = None  # calls per run at most; None: no limit


@dataclass
class MachineSpec:
    """Everything the runner needs to know about one machine class."""

    cls: type[Any]
    style: str  # "brownie" or "decorator"
    rules: list[RuleSpec]
    initializers: list[RuleSpec]
    invariants: list[RuleSpec]
    init_params: list[str]
    settings: dict[str, Any] = field(default_factory=dict)
    has_init: bool = False
    # methods whose names look like a misspelt convention (invarient_supply): they never run
    warnings: tuple[str, ...] = ()
    optimizers: list[RuleSpec] = field(default_factory=list)  # optimize_<name> or @optimize: values to maximize

    @property
    def name(self) -> str:
        return self.cls.__name__

    @property
    def bundles(self) -> list[Bundle]:
        seen: dict[str, Bundle] = {}
        for klass in reversed(self.cls.__mro__):
            for value in vars(klass).values():
                if isinstance(value, Bundle):
                    seen.setdefault(value.name, value)
        for r in (*self.initializers, *self.rules):
            for b in r.targets:
                seen.setdefault(b.name, b)
            for p in r.params:
                if p.bundle is not None:
                    seen.setdefault(p.bundle.name, p.bundle)
        return list(seen.values())


# what to write instead of a generator, by what the method is
_INSTEAD_OF_YIELD = {
    "rule": "to put values into a bundle, return them (several: return multiple(a, b))",
    "initializer": "to put values into a bundle, return them (several: return multiple(a, b))",
    "invariant": "check the state with assert",
    "optimize": "return the value as an int",
    "setup": "to keep a context manager open for the run, write self.enter(cm)",
    "teardown": "clean up in the body itself",
    "teardown_final": "clean up in the body itself",
    "__init__": "deploy and assign in the body itself (cls.token = Token.deploy(...))",
}


def check_runnable(where: str, kind: str, fn: Any) -> None:
    """Refuse a rule, invariant, initializer or lifecycle method that calling does not run: an async def, a generator.

    evmstate calls them and neither awaits nor iterates what they return, so their bodies would never run and
    the machine would pass without testing anything.
    """
    if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
        raise MachineDefinitionError(
            f"{where} is an async def: evmstate calls it without awaiting what it returns, so its body would never "
            "run. Write it as a plain def: contract calls are synchronous (no await)."
        )
    if inspect.isgeneratorfunction(fn):
        raise MachineDefinitionError(
            f"{where} is a generator (it has a yield): calling it does not run its body. Remove the yield; "
            f"{_INSTEAD_OF_YIELD[kind]}."
        )


def _params_of(fn: Callable) -> list[inspect.Parameter]:
    params = list(inspect.signature(fn).parameters.values())
    if not params or params[0].name != "self":
        raise MachineDefinitionError(f"{fn.__qualname__}: the first parameter must be self")
    for p in params[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise MachineDefinitionError(f"{fn.__qualname__}: *args and **kwargs cannot be drawn; name each parameter")
    return params[1:]


def _strategies(cls: type) -> dict[str, SearchStrategy]:
    found: dict[str, SearchStrategy] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, SearchStrategy):
                found[name] = value
    return found


def _no_strategy(where: str, name: str, strategies: dict[str, SearchStrategy]) -> str:
    """The message for a Brownie-style rule parameter that names no strategy: the likely typo first."""
    add = f"add {name} = strategy(\"uint256\") (or another type) to the class"
    close = difflib.get_close_matches(name, list(strategies), n=1)
    if close:
        return (
            f'{where}: parameter {name!r} has no strategy. Did you mean {close[0]!r}? Rename the parameter, give it '
            f'that strategy\'s name as its default ({name}="{close[0]}"), or {add}.'
        )
    if not strategies:
        return f"{where}: parameter {name!r} has no strategy. {add[0].upper()}{add[1:]} (the class defines none)."
    known = ", ".join(sorted(strategies))
    return (
        f'{where}: parameter {name!r} has no strategy. {add[0].upper()}{add[1:]}, or give it an existing strategy\'s '
        f'name as its default ({name}="name"; defined: {known}).'
    )


def _brownie_rule(cls: type, name: str, fn: Callable, strategies: dict[str, SearchStrategy]) -> RuleSpec:
    check_runnable(f"{cls.__name__}.{name}", "initializer" if name.startswith("initialize") else "rule", fn)
    params = []
    for p in _params_of(fn):
        key = p.default if isinstance(p.default, str) else p.name
        if key not in strategies:
            where = f"{cls.__name__}.{name}"
            if isinstance(p.default, str):
                raise MachineDefinitionError(
                    f"{where}: parameter {p.name!r} asks for strategy {p.default!r}, which the class does not define. "
                    f"Add {p.default} = strategy(...) to {cls.__name__}, or name an existing one "
                    f"({', '.join(sorted(strategies)) or 'none defined'})."
                )
            raise MachineDefinitionError(_no_strategy(where, p.name, strategies))
        params.append(Param(p.name, strategy=strategies[key]))
    return RuleSpec(name, fn, params, (), getattr(fn, PRECONDITION_MARKER, ()))


Marker = tuple[tuple[Bundle, ...], dict[str, Any], dict[str, Any]]  # what @rule(...) sets: targets, parameters, options


def _decorated_rule(cls: type, name: str, fn: Callable, marker: Marker) -> RuleSpec:
    targets, arguments, options = marker
    where = f"{cls.__name__}.{name}"
    check_runnable(where, "initializer" if hasattr(fn, INIT_MARKER) else "rule", fn)
    names = [p.name for p in _params_of(fn)]
    missing = [n for n in names if n not in arguments]
    if missing:
        raise MachineDefinitionError(
            f'{where}: parameter {missing[0]!r} has no strategy. Write @rule({missing[0]}=strategy("uint256")) or pass '
            'a Bundle.'
        )
    extra = [n for n in arguments if n not in names]
    if extra:
        raise MachineDefinitionError(
            f"{where}: @rule gives {extra[0]!r}, which is not a parameter of {name}({', '.join(names)})"
        )
    params = []
    for n in names:
        value = arguments[n]
        if isinstance(value, Bundle):
            params.append(Param(n, bundle=value))
        elif isinstance(value, FilteredBundle):
            params.append(Param(n, bundle=value.bundle, predicate=value.predicate))
        elif isinstance(value, Consumed):
            params.append(Param(n, bundle=value.bundle, consume=True, predicate=value.predicate))
        elif isinstance(value, SearchStrategy):
            params.append(Param(n, strategy=value))
        else:
            raise MachineDefinitionError(
                f'{where}: {n}={value!r} is neither a strategy nor a Bundle. Use strategy("uint256"), a Hypothesis '
                'strategy, a Bundle, bundle.filter(...) or consumes(bundle).'
            )
    preconditions = getattr(fn, PRECONDITION_MARKER, ())
    return RuleSpec(name, fn, params, targets, preconditions, options.get("weight"), options.get("max_times"))


def _rule_settings(cls: type, rules: list[RuleSpec], settings: dict[str, Any]) -> None:
    """settings = {"weights": {rule: weight}, "max_times": {rule: n}}, over what @rule(...) gave: checked, and set
    on the rules."""
    by_name = {r.name: r for r in rules}
    for option, key in SETTING_OF.items():
        given = settings.get(key)
        if given is None:
            continue
        where = f"{cls.__name__}.settings: {key}"
        if not isinstance(given, dict):
            raise MachineDefinitionError(
                f"{where} must be a dict of rule names, such as "
                f"{{{next(iter(by_name))!r}: {2 if option == 'weight' else 1}}}, got {type(given).__name__}"
            )
        for name, value in given.items():
            if name not in by_name:
                close = difflib.get_close_matches(str(name), list(by_name), n=1)
                hint = f"Did you mean {close[0]!r}?" if close else f"The rules are {', '.join(by_name)}."
                raise MachineDefinitionError(f"{where}: {name!r} is not a rule of {cls.__name__}. {hint}")
            setattr(by_name[name], option, check_rule_option(f"{where}[{name!r}]", option, value))


def _check(cls: type, name: str, fn: Callable, kind: str) -> RuleSpec:
    """An invariant or a value to maximize: runnable, and taking only self."""
    check_runnable(f"{cls.__name__}.{name}", kind, fn)
    if _params_of(fn):
        what = "an invariant" if kind == "invariant" else "an optimize method"
        raise MachineDefinitionError(
            f"{cls.__name__}.{name}: {what} takes only self; it cannot draw values (move the draw into a rule)"
        )
    return RuleSpec(name, fn, [], (), getattr(fn, PRECONDITION_MARKER, ()))


def _settings(cls: type) -> dict[str, Any]:
    """The settings of a machine class: each class's own dict, a subclass's over its bases'."""
    settings: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):  # a subclass's settings update its bases'
        own = vars(klass).get("settings")
        if own is None:
            continue
        if not isinstance(own, dict):
            raise MachineDefinitionError(
                f"{klass.__name__}.settings must be a dict such as {{'max_examples': 100}}, got {type(own).__name__}"
            )
        settings.update(own)
    return settings


def collect(cls: type) -> MachineSpec:
    """Read a machine class's rules, initializers, invariants and settings; raise definition errors now."""
    decorator_style = isinstance(cls, type) and issubclass(cls, StateMachine)
    rules: list[RuleSpec] = []
    inits: list[RuleSpec] = []
    invariants: list[RuleSpec] = []
    optimizers: list[RuleSpec] = []
    strategies = _strategies(cls)
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass in (object, StateMachine):
            continue
        for name, fn in vars(klass).items():
            if name in seen:
                continue
            if fn is None and any(_named(name, kind) for kind in PREFIXES):
                seen.add(name)  # rule_x = None in a subclass switches off the rule_x it inherits
                continue
            if not inspect.isfunction(fn):
                continue
            seen.add(name)
            if decorator_style:
                if hasattr(fn, RULE_MARKER):
                    rules.append(_decorated_rule(cls, name, fn, getattr(fn, RULE_MARKER)))
                elif hasattr(fn, INIT_MARKER):
                    inits.append(_decorated_rule(cls, name, fn, getattr(fn, INIT_MARKER)))
                elif hasattr(fn, INVARIANT_MARKER) or hasattr(fn, OPTIMIZE_MARKER):
                    kind = "invariant" if hasattr(fn, INVARIANT_MARKER) else "optimize"
                    (invariants if kind == "invariant" else optimizers).append(_check(cls, name, fn, kind))
            else:
                if name == "rule" or name.startswith("rule_"):
                    rules.append(_brownie_rule(cls, name, fn, strategies))
                elif name == "initialize" or name.startswith("initialize_"):
                    inits.append(_brownie_rule(cls, name, fn, strategies))
                elif _named(name, "invariant") or _named(name, "optimize"):
                    kind = "invariant" if _named(name, "invariant") else "optimize"
                    (invariants if kind == "invariant" else optimizers).append(_check(cls, name, fn, kind))
    order = {name: i for i, name in enumerate(_definition_order(cls))}
    for group in (rules, inits, invariants, optimizers):
        group.sort(key=lambda r: order.get(r.name, 0))
    if not rules:
        raise MachineDefinitionError(
            _no_rules(
                cls, decorator_style, [k for k, group in (("invariants", invariants), ("initializers", inits)) if group]
            )
        )
    for lifecycle in LIFECYCLE:
        fn = getattr(cls, lifecycle, None)
        if fn is not None and not callable(fn):
            raise MachineDefinitionError(f"{cls.__name__}.{lifecycle} must be a method")
        if fn is not None:
            check_runnable(f"{cls.__name__}.{lifecycle}", lifecycle, fn)
    settings = _settings(cls)
    _rule_settings(cls, rules, settings)
    if "actors" in settings:
        where = f"{cls.__name__}.settings: actors"
        settings["actors"] = check_actors(settings["actors"], where, MachineDefinitionError)
    init = next(
        (k.__dict__["__init__"] for k in cls.__mro__ if "__init__" in k.__dict__ and k not in (object, StateMachine)),
        None,
    )
    init_params = []
    if init is not None and not inspect.isfunction(init):
        raise MachineDefinitionError(
            f"{cls.__name__}.__init__ must be a plain method: def __init__(cls, accounts, ...)"
        )
    if init is not None:
        check_runnable(f"{cls.__name__}.__init__", "__init__", init)
        params = list(inspect.signature(init).parameters.values())
        init_params = [p.name for p in params[1:] if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    warnings = tuple(misspelt(cls, decorator_style))
    return MachineSpec(
        cls, "decorator" if decorator_style else "brownie", rules, inits, invariants, init_params, dict(settings),
        init is not None, warnings, optimizers,
    )


# the naming convention: prefixes (rule_<name>, ...) and the lifecycle's exact names
PREFIXES = ("rule", "initialize", "invariant", "optimize")


def misspelt(cls: type, decorator_style: bool) -> list[str]:
    """A warning for each method whose name is close to a convention's but not it, naming the convention it
    resembles."""
    found = []
    for name, fn in _methods(cls).items():
        if name.startswith("_") or any(hasattr(fn, marker) for marker in MARKERS):
            continue
        like = next((f"{kind}" for kind in LIFECYCLE if near_miss(name, kind)), None)
        if like is None and not decorator_style and not any(_named(name, kind) for kind in PREFIXES):
            head, sep, _ = name.partition("_")
            for kind in PREFIXES:
                if near_miss(head, kind) or (not sep and name.startswith(kind) and name[len(kind) :][:1].isupper()):
                    like = f"{kind}_" if sep else kind
                    break
        if like is not None:
            found.append(
                f"{cls.__name__}.{name} looks like {like!r} misspelt, so it never runs: rename it "
                f"{_renamed(name, like)} (or give it a name that does not resemble one, if it is a helper)"
            )
    return found


def _renamed(name: str, like: str) -> str:
    if like.endswith("_"):
        return like + name.partition("_")[2]
    if like in PREFIXES and name.lower().startswith(like):
        rest = name[len(like):].lstrip("_")
        return f"{like}_{rest}" if rest else like
    return like


def _definition_order(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        for name in vars(klass):
            if name not in names:
                names.append(name)
    return names


def _methods(cls: type) -> dict[str, Callable]:
    """The class's functions by name, its own and inherited, as attribute lookup sees them."""
    found: dict[str, Callable] = {}
    for klass in cls.__mro__:
        if klass in (object, StateMachine):
            continue
        for name, value in vars(klass).items():
            if name not in found:
                found[name] = value
    return {name: fn for name, fn in found.items() if inspect.isfunction(fn)}


def _named(name: str, kind: str) -> bool:
    return name == kind or name.startswith(kind + "_")


def has_rules(cls: type) -> bool:
    """True when the class has at least one rule, its own or inherited."""
    decorator_style = issubclass(cls, StateMachine)
    return any(
        hasattr(fn, RULE_MARKER) if decorator_style else _named(name, "rule") for name, fn in _methods(cls).items()
    )


def is_machine(obj: Any) -> bool:
    """True for classes that are, or look like, state machines: collect() says what a look-alike lacks.

    A machine has rules (by name, or @rule on a StateMachine subclass), its own or inherited.
    A look-alike has no rules but invariants, initializers, evmstate decorators, or methods
    named test_* beside strategies.
    """
    if not inspect.isclass(obj) or obj is StateMachine:
        return False
    if issubclass(obj, StateMachine):
        return True
    methods = _methods(obj)
    if any(_named(name, "rule") for name in methods):
        return True
    if any(_named(name, kind) for name in methods for kind in ("invariant", "initialize")):
        return True
    if any(hasattr(fn, marker) for fn in methods.values() for marker in MARKERS):
        return True
    return bool(_strategies(obj)) and any(name.startswith("test_") for name in methods)


def _no_rules(cls: type, decorator_style: bool, others: list[str]) -> str:
    name = cls.__name__
    methods = _methods(cls)
    if not decorator_style and any(hasattr(fn, marker) for fn in methods.values() for marker in MARKERS):
        return (
            f"{name} uses @rule/@initialize/@invariant but does not subclass StateMachine: write class "
            f"{name}(StateMachine) and import StateMachine from evmstate."
        )
    tests = [m for m in methods if m.startswith("test_")]
    if tests and not decorator_style:
        renames = ", ".join(f"{m} to rule_{m[5:]}" for m in tests)
        return (
            f"{name} has no rules: rename {renames}. evmstate runs methods named rule or rule_<name> as rules; test_* "
            "names are pytest's."
        )
    what = f"{' and '.join(others)} but no rules" if others else "no rules"
    how = (
        "decorate a method with @rule(...)"
        if decorator_style
        else "name a method rule_<name> (Brownie style), or subclass StateMachine and decorate methods with @rule(...)"
    )
    return (
        f"{name} has {what}, so evmstate cannot run it: {how}. A class meant only as a base for machines is fine when "
        "a machine in the same files subclasses it."
    )
