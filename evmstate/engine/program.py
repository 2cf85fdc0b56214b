"""The step semantics every runner of a machine shares: injected parameters, rules enabled or not,
invariants, routed results, how a step is shown and recorded, and the signals that stop a machine."""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, InvalidDefinition

from ..config_checks import ACTOR_KINDS
from ..contracts.actors import deploy as deploy_actors, that_matter
from ..contracts.project import Project
from ..domains import domain_of
from ..errors import CallTimeout, FailureRecordError, MachineDefinitionError, UsageError
from ..evm.base import hooks_of
from ..failures import Ref, decode_value, encode_value
from ..spec.machine import MachineSpec, RuleSpec
from ..spec.markers import Route, StateMachine, multiple
from . import delays
from .deployments import Resolver, contracts_behind
from .tracebacks import failed_invariant, harness_limit, machine_error, mark_invariant
from .verdicts import escaped, run_code
from .recorded import RecordedStep, call_line, program_lines, ref_of, step_lines


class OutOfTime(KeyboardInterrupt):
    """Raised before a run when the caller's stop() says the time is up: the machine ends as it stands.

    Never raised once a run has failed, so that every failure found is shrunk. A
    KeyboardInterrupt, because that is what Hypothesis lets through without saving or
    replaying the run it stopped.
    """


class ShrinkOutOfTime(KeyboardInterrupt):
    """Raised before a run of Hypothesis's shrinking once the shrink budget is spent: the shortest failing program so
    far is reported.

    A KeyboardInterrupt, for the reason OutOfTime is one.
    """


class Stopped(BaseException):
    """Raised inside a run to stop the machine at once: an error, not a failure to shrink.

    A BaseException, so Hypothesis neither shrinks nor saves it and lets it through. mistake:
    the machine's own code is at fault (verdicts.is_mistake), not the contract nor a limit of evmstate.
    """

    def __init__(self, message: str, mistake: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.mistake = mistake


class Crashed(BaseException):
    """Raised inside a run when evmstate's own chain fails (its cause says how): an internal error, never shrunk."""


class Diverged(BaseException):
    """Raised inside a run when revm and py-evm disagreed on a call (--backend-check): stops at once, unshrunk."""

    def __init__(self, divergence: Any, steps: list[Step]) -> None:
        super().__init__(divergence.what)
        self.divergence = divergence
        self.steps = list(steps)


@functools.lru_cache(maxsize=256)
def index_strategy(n: int) -> st.SearchStrategy[int]:
    """An index into n values, shrinking toward the first."""
    return st.integers(min_value=0, max_value=n - 1)


def raise_if_diverged(backend: Any) -> None:
    """A differential run's divergence that the machine's code caught and went on from: raised again, the failure it
    is."""
    hooks = hooks_of(backend).differential
    if hooks is not None:
        hooks.raise_pending()


def differential_notes(backend: Any) -> dict[str, Any] | None:
    """What a differential run's comparison told apart since it last said, None on any other run."""
    hooks = hooks_of(backend).differential
    return hooks.notes() if hooks is not None else None


def stop_if_diverged(backend: Any, steps: list[Step]) -> None:
    divergence = backend.divergence
    if divergence is not None:
        raise Diverged(divergence, steps)


# errors in how a machine or test is written, not in what it found; never shrunk
DEFINITION_ERRORS = (UsageError, MachineDefinitionError, InvalidArgument, InvalidDefinition)


@dataclass
class Step:
    """A step being run under Hypothesis: its rule, the values drawn for it (a Ref for a bundle value), the bundle
    values it produced.
    """

    rule: str
    values: dict[str, Any] = field(default_factory=dict)  # raw values, Ref for bundle entries
    results: list[str] = field(default_factory=list)
    first_call: int = 0  # calls the backend had made before the step (--backend-check counts them)
    delay: delays.Delay = delays.NO_DELAY  # (seconds, blocks) the chain moved on before the call

    def recorded(self) -> RecordedStep:
        """The step as a recorded program holds it."""
        return RecordedStep(
            self.rule, {k: encode_value(v) for k, v in self.values.items()}, tuple(self.results), self.delay
        )

    def line(self) -> str:
        """The step's call as a program shows it."""
        return call_line(self.rule, self.values, self.results)

    def lines(self) -> list[str]:
        """The step as a program shows it: the chain.sleep()/chain.mine() lines of its delay, then its call."""
        return step_lines(self.rule, self.values, self.results, self.delay)


def live_program_lines(name: str, steps: Iterable[Step]) -> list[str]:
    """A machine's program, as its steps ran under Hypothesis."""
    return program_lines(name, (line for s in steps for line in s.lines()))


def raised_in(name: str, exc: BaseException, steps: list[Step]) -> str:
    """Machine.method that raised exc: the invariant it failed in, else the last step's rule."""
    invariant = failed_invariant(exc)
    if invariant is not None:
        return f"{name}.{invariant}"
    return f"{name}.{steps[-1].rule}" if steps else name


def stop_error(
    name: str, exc: Exception, steps: list[Step], mistake: bool, shorter: Callable[[], list[str] | None] | None = None
) -> Stopped | None:
    """What stops a run when exc is a mistake of the machine or a limit of evmstate's; None when it is neither.

    shorter: a shorter program that raises the mistake (its lines, without the instance's), or None.
    """
    if mistake:
        lines = shorter() if shorter is not None else None
        program = program_lines(name, lines) if lines is not None else live_program_lines(name, steps)
        return Stopped(machine_error(raised_in(name, exc, steps), exc, program), mistake=True)
    if isinstance(exc, CallTimeout):
        # evmstate could not tell how the call ends: not a failure to shrink or save
        return Stopped(harness_limit(name, exc, live_program_lines(name, steps)))
    return None


def provide(names: Iterable[str], project: Project, where: str) -> dict[str, Any]:
    """The project's accounts, chain, contracts and deployments, by parameter name; a clear error for any other name.

    Each deployment asked for, directly or through another, runs once.
    """
    return Resolver(project).provide(names, where)


def holds(r: RuleSpec, machine: Any) -> bool:
    preconditions = r.preconditions
    if not preconditions:
        return True  # most rules and invariants, every step: no generator to start
    try:
        for p in preconditions:
            if not p(machine):
                return False
    except BaseException as exc:
        wrapped = escaped(exc)
        if wrapped is None:
            raise
        raise wrapped from None
    return True


def check_all_invariants(
    spec: MachineSpec, machine: Any, past: Callable[[Exception], bool] | None = None, broken: set[str] | None = None,
    only: frozenset[str] | None = None,
) -> None:
    """Check every invariant whose precondition holds; a failure names its invariant.

    Keep-going (example.py): invariants in broken are not checked; one that fails so that past(error) says it is a known
    failure joins them, and the others are checked on. only: the invariants checked, the others left out (None: all;
    the shrinker's focused replays, shrink/trials.py).
    """
    for inv in spec.invariants:
        if (broken and inv.name in broken) or (only is not None and inv.name not in only):
            continue
        if not holds(inv, machine):
            continue
        try:
            inv.function(machine)
        except BaseException as e:
            wrapped = escaped(e)
            mark_invariant(wrapped or e, inv.name)
            if wrapped is None:
                if past is not None and broken is not None and isinstance(e, Exception) and past(e):
                    broken.add(inv.name)
                    continue
                raise
            raise wrapped from None


def routed(result: Any) -> list[Route]:
    """The routes a rule returned: one route(...), or a tuple of them."""
    if isinstance(result, Route):
        return [result]
    if isinstance(result, tuple) and result and all(isinstance(x, Route) for x in result):
        return list(result)
    return []


def produced(rule: RuleSpec, result: Any) -> list[tuple[str, Any]]:
    """(bundle name, value) of every value a rule's result puts into a bundle, in the order they are labelled.

    Routes send each value to the bundle they name; otherwise every target bundle of the
    rule gets every value (several with multiple(...)).
    """
    routes = routed(result)
    if routes:
        return [(rt.bundle.name, rt.value) for rt in routes]
    if not rule.targets:
        return []
    values = result.values if isinstance(result, multiple) else (result,)
    return [(target.name, value) for target in rule.targets for value in values]


def new_machine(spec: MachineSpec) -> Any:
    """A new instance of the machine's class, as every run starts (the class-level __init__ ran once, before)."""
    machine = object.__new__(spec.cls)
    machine._evmstate_stack = contextlib.ExitStack()
    if not hasattr(machine, "enter"):
        machine.enter = StateMachine.enter.__get__(machine)  # Brownie-style machines get it too
    return machine


class InitFailed(Exception):
    """Raised when the machine's class-level __init__ raises: an error in the user's code."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def init_class(spec: MachineSpec, project: Project, init_args: tuple[Any, ...] | None = None) -> None:
    """The class-level __init__, once, as Brownie runs it: init_args positionally, or parameters injected by name.

    The actors the machine asks for are deployed first (contracts/actors.py), the chain before __init__ otherwise
    untouched.
    Raises MachineDefinitionError for a parameter the project cannot provide, InitFailed when __init__ raises.
    """
    deploy_actors(project, *actor_kinds(spec, project.config, _machine_codes(spec, project)))
    if not spec.has_init:
        return
    kwargs = {} if init_args is not None else provide(spec.init_params, project, f"{spec.name}.__init__")
    try:
        if init_args is not None:
            run_code(spec.cls.__init__, spec.cls, *init_args)
        else:
            run_code(spec.cls.__init__, spec.cls, **kwargs)
    except Exception as exc:
        raise InitFailed(exc) from exc


def _machine_codes(spec: MachineSpec, project: Project) -> list[bytes]:
    """The runtime code of the contracts the machine's __init__ asks for (and those its deployments ask for); of every
    compiled contract where it names none (a machine that deploys through `project`)."""
    names = [n for n in contracts_behind(spec.init_params, project) if n in project.artifacts]
    return [project.artifacts[n].bytecode_runtime for n in names or project.artifacts]


def actor_kinds(
    spec: MachineSpec, config: Any, codes: list[bytes] | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the actors to deploy, those strategy("address") draws by default): the machine's settings' actors, else
    [fuzz] actors, and every kind a rule's strategy("address", actors=...) names. Where the settings ask for every kind
    (true), those that matter to the project's contracts (codes: their runtime code; actors.that_matter) are drawn by
    default, and every kind is deployed."""
    drawn = tuple(spec.settings["actors"]) if "actors" in spec.settings else tuple(config.fuzz.actors)
    every = drawn == ACTOR_KINDS
    if every and codes is not None:
        drawn = that_matter(drawn, codes)
    named: list[str] = []
    for r in (*spec.initializers, *spec.rules):
        for p in r.params:
            domain = domain_of(p.strategy) if p.strategy is not None else None
            wanted = getattr(domain, "actors", None)
            named += ACTOR_KINDS if wanted is True else wanted if isinstance(wanted, tuple) else ()
    return tuple(dict.fromkeys((*(ACTOR_KINDS if every else drawn), *named))), drawn


def restore_class(cls: type, before: dict[str, Any]) -> None:
    """Put back the class attributes __init__(cls) set (the deployed contracts, which hold the project and its chain).

    The machine's module outlives its run (Hypothesis keeps the modules it read constants from), and
    with it whatever the class holds.
    """
    for name, value in list(vars(cls).items()):
        if name not in before:
            with contextlib.suppress(AttributeError, TypeError):
                delattr(cls, name)
        elif before[name] is not value:
            with contextlib.suppress(AttributeError, TypeError):
                setattr(cls, name, before[name])


class SetupFailed(Exception):
    """Raised when the machine's setup() raises: an error in the user's code, not a failure of the program."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def set_up(machine: Any) -> None:
    """Run the machine's setup(), if it has one; raises SetupFailed when it raises."""
    setup = getattr(machine, "setup", None)
    if callable(setup):
        try:
            run_code(setup)
        except Exception as exc:
            raise SetupFailed(exc) from exc


def tear_down(machine: Any) -> None:
    """Run the machine's teardown(), if it has one (after a run that passed)."""
    teardown = getattr(machine, "teardown", None)
    if callable(teardown):
        run_code(teardown)


# -- recorded programs, run without Hypothesis ------------------------------------


class InvalidProgram(Exception):
    """Raised when a step cannot run where it stands: its preconditions or bundle filters do not hold."""


@dataclass
class ProgramOutcome:
    """How a recorded program ran: the error (None if everything passed), where, and its lines."""

    error: BaseException | None
    at: int  # 0: setup or the first invariant check; i: the i-th step; len(steps) + 1: teardown
    lines: list[str]  # one per step run: its delay's lines and its call, joined by newlines


def _enabled(rule: Any, machine: Any, args: dict[str, Any], labels: dict[str, str]) -> bool:
    """Whether the rule's preconditions and the filters of its bundle arguments hold now."""
    try:
        return holds(rule, machine) and all(
            p.predicate is None or p.predicate(args[p.name]) for p in rule.params if p.name in labels
        )
    except BaseException as exc:
        if escaped(exc) is None and not isinstance(exc, Exception):
            raise
        return False  # a precondition that cannot even be evaluated here does not hold


def run_program(
    spec: MachineSpec,
    project: Project,
    steps: Sequence[RecordedStep],
    *,
    strict: bool = False,
    before: Callable[[int], None] | None = None,
    after: Callable[[int, str, Any, BaseException | None], None] | None = None,
) -> ProgramOutcome:
    """Run recorded steps on a new machine, from the chain as it is now, without Hypothesis.

    The caller runs the class-level __init__ and reverts the chain. With strict, a step whose
    rule's preconditions or bundle filters do not hold raises InvalidProgram: Hypothesis could
    not have run that program. before(i) and after(i, line, result, error) watch each step.
    """
    player = Player(spec, project, strict=strict)
    machine = new_machine(spec)
    with machine._evmstate_stack:
        set_up(machine)
        try:
            check_all_invariants(spec, machine)
            raise_if_diverged(project.backend)
        except Exception as exc:
            if after is not None:
                after(0, "setup", None, exc)
            return ProgramOutcome(exc, 0, player.lines)
        for index, step in enumerate(steps, 1):
            try:
                result = player.step(machine, index, step, before)
            except (InvalidProgram, FailureRecordError):
                raise  # not a program Hypothesis could have run, or a record that cannot be read
            except Exception as exc:
                if after is not None:
                    after(index, player.lines[-1], None, exc)
                return ProgramOutcome(exc, index, player.lines)
            if after is not None:
                after(index, player.lines[-1], result, None)
        try:
            tear_down(machine)
        except Exception as exc:
            if after is not None:
                after(len(steps) + 1, "teardown", None, exc)
            return ProgramOutcome(exc, len(steps) + 1, player.lines)
    return ProgramOutcome(None, len(steps) + 1, player.lines)


class Player:
    """Recorded steps played one by one on a machine: their values rebuilt, bundle values named, lines kept.

    refs (bundle labels to values) and lines (each step as a program shows it) are the Python
    side of a program's state besides the machine itself; a checkpoint (replayer.py) copies them.
    """

    def __init__(
        self, spec: MachineSpec, project: Project, *, strict: bool = False, only: frozenset[str] | None = None
    ) -> None:
        self.spec = spec
        self.project = project
        self.strict = strict
        self.only = only  # the invariants checked after each step (None: all of them)
        self.by_name = {r.name: r for r in (*spec.initializers, *spec.rules)}
        self.refs: dict[str, Any] = {}
        self.lines: list[str] = []

    def step(self, machine: Any, index: int, step: RecordedStep, before: Callable[[int], None] | None = None) -> Any:
        """Play one recorded step (its wait, its rule, its results into bundles, the invariants) and return the rule's
        result.

        Raises InvalidProgram (strict) when the rule may not run here; anything the step raises.
        """
        project = self.project
        rule = self.by_name[step.rule]
        args = {k: decode_value(v, accounts=project.accounts, refs=self.refs) for k, v in step.arguments.items()}
        labels = {k: label for k, v in step.arguments.items() if (label := ref_of(v)) is not None}
        delay = step.delay
        if self.strict and not _enabled(rule, machine, args, labels):
            raise InvalidProgram(f"step {index}: {rule.name} is not enabled here")
        shown = {k: Ref(labels[k]) if k in labels else v for k, v in args.items()}
        self.lines.append("\n".join(step_lines(rule.name, shown, step.results, delay)))
        if before is not None:
            before(index)
        delays.wait(project.backend, delay)
        try:
            result = rule.function(machine, **args)
        except BaseException as exc:
            wrapped = escaped(exc)
            if wrapped is None:
                raise
            raise wrapped from None
        raise_if_diverged(project.backend)
        routes = produced(rule, result)
        values = [value for _, value in routes] or [result]
        # labels were given target by target, value by value (as the run loop names them)
        for i, label in enumerate(step.results):
            if self.strict and routes and label.rsplit("_", 1)[0] != routes[i % len(routes)][0]:
                # the contract answered otherwise: the value went to another bundle than the program says
                raise InvalidProgram(f"step {index}: {rule.name} routed {label} to {routes[i % len(routes)][0]}")
            self.refs[label] = values[i % len(values)]
        check_all_invariants(self.spec, machine, only=self.only)
        raise_if_diverged(project.backend)
        return result
