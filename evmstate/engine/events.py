"""The events the engine emits, and the results it returns: every dataclass that leaves the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..compiler.vyper_warnings import CompileWarning
from ..errors import ExitCode  # noqa: F401  (every command's exit status; importable from here)
from ..search.canaries import Canary  # noqa: F401  (a machine's result holds them; importable from here)

if TYPE_CHECKING:  # types only: importing the events loads neither Hypothesis nor the contract layer
    from .recorded import RecordedStep
    from .tracebacks import ErrorInfo
    from ..search.coverage import CoverageReport
    from .trace import GasStats, Trace


Kind = Literal["machine", "test"]
# "interrupted": Ctrl-C stopped it before anything failed
Status = Literal["passed", "failed", "error", "interrupted"]


@dataclass(frozen=True)
class RunStarted:
    """Emitted once, before anything runs: the seed that reproduces this run with --seed, and where the settings came
    from."""

    seed: int
    settings: str = ""  # Config.origin: "moccasin.toml (contracts in src/)"
    # where saved failing examples (and, for a campaign, guidance runs) are replayed before the
    # seed's own search, so that the seed alone does not decide the search; None when nothing is
    fresh: bool = False  # --fresh: no example database and no corpus
    replayed_first: str | None = None


@dataclass(frozen=True)
class CompileStarted:
    """Emitted before the project's contracts are compiled (or read from the build cache)."""

    folder: str


@dataclass(frozen=True)
class CompileFinished:
    """Emitted once the contracts are built: how many, how many came from the build cache, how long it took, what vyper
    warned of."""

    contracts: int
    cached: int
    seconds: float
    errors: int = 0
    # once per source file and warning, from the build cache too (the artifacts keep them)
    warnings: tuple[CompileWarning, ...] = ()
    # said once: what the run cannot show of some contracts (precompiled ones have no source lines)
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class MachineStarted:
    """Emitted when a machine or property test starts running: the k-th (index) of total in this run."""

    name: str
    kind: Kind
    path: str
    index: int = 0  # from 1; 0 when run on its own
    total: int = 0
    max_examples: int = 0
    warnings: tuple[str, ...] = ()  # found when the machine was loaded: methods whose names look misspelt


@dataclass(frozen=True, kw_only=True)
class ExampleFinished:
    """Emitted after every run of a machine or test.

    examples counts what Hypothesis counts towards max_examples: valid runs until the first
    failure, that one included; it never goes past max_examples. runs counts every run:
    invalid ones, and those of shrinking.
    """

    name: str
    examples: int
    steps: int
    elapsed: float
    shrinking: bool
    path: str = ""
    runs: int = 0
    branches: int | None = None  # branch outcomes reached so far; None when coverage is not recorded
    # new small values stored in declared variables so far (search/feedback.py); None without guidance
    stages: int | None = None
    best: dict[str, int] | None = None  # the best value of each optimize method so far; None when the machine has none
    hits: int = 0  # runs so far that met a known failure (MachineFinished.hits), counted once each and gone past


@dataclass(frozen=True)
class FailureFound:
    """Emitted when the first failing run is found; shrinking starts. examples as in ExampleFinished."""

    name: str
    examples: int
    path: str = ""


@dataclass(frozen=True, kw_only=True)
class ShrinkProgress:
    """Emitted while shrinking, each time a failing program no longer than the best is found.

    steps is the length of the best failing program so far; runs counts the runs tried since
    the first failure (Hypothesis's shrink runs, then the replays of the step-deletion pass).
    """

    name: str
    steps: int
    examples: int
    runs: int = 0
    elapsed: float = 0.0
    phase: Literal["shrinking", "removing steps"] = "shrinking"
    path: str = ""


@dataclass
class FilterStats:
    """How often a filtered argument let its rule run, and how often no value matched."""

    enabled: int = 0
    skipped: int = 0


@dataclass
class RuleStats:
    calls: int = 0
    reverts: int = 0  # reverts caught by reverts()
    filters: dict[str, FilterStats] = field(default_factory=dict)
    transactions: int = 0  # transactions and deployments the rule sent
    transactions_reverted: int = 0  # of those, the ones that reverted, however the rule handled it
    gated: bool = False  # the rule has a precondition or a bundle argument: it may not be able to run at a step

    @property
    def never_changed_state(self) -> bool:
        """It sent transactions and every one of them reverted."""
        return self.transactions > 0 and self.transactions_reverted == self.transactions

    @property
    def unexpected_reverts(self) -> int:
        """Its transactions that reverted outside reverts(): caught by the rule itself (try/except), or not caught at
        all."""
        return max(0, self.transactions_reverted - self.reverts)

    @property
    def mostly_reverted(self) -> bool:
        """Most of its transactions reverted outside reverts(), though not all, over enough of them to tell: most of its
        steps tested nothing."""
        return (
            self.transactions >= MOSTLY_MIN and 2 * self.unexpected_reverts > self.transactions
            and not self.never_changed_state
        )


# the transactions a rule must have sent before most of them reverting is worth a warning
MOSTLY_MIN = 20


@dataclass(frozen=True, kw_only=True)
class Failure:
    """A falsified machine or test: the error and the shrunk program."""

    name: str
    path: str
    error: ErrorInfo
    program: list[str]  # the printed program, one line each
    steps: int
    recorded: tuple[RecordedStep, ...] = ()  # the program as data (a property test: its example as one step)
    interrupted: bool = False
    # what ended shrinking before it was done (an internal error, a budget...), None when it ran to
    # its end: the program is then the shortest failing one found so far and may not be minimal
    stopped: str | None = None
    # lines the report adds under the program (candidates left out while shrinking, a hint)
    notes: tuple[str, ...] = ()
    shrink: "ShrinkReport | None" = None
    # the reported program replayed once: each step's calls, events, gas, reverts, and its output
    trace: Trace | None = None

    # the error's parts, as readers of a failure name them
    @property
    def error_type(self) -> str:
        return self.error.type

    @property
    def message(self) -> str:
        return self.error.message

    @property
    def invariant(self) -> str | None:
        return self.error.invariant

    @property
    def location(self) -> str | None:
        return self.error.location

    @property
    def traceback(self) -> str:
        return self.error.traceback

    @property
    def revert_reason(self) -> str | None:
        return self.error.revert_reason

    @property
    def call_failure(self) -> dict[str, Any] | None:
        return self.error.call_failure


# Failure.stopped when the settings leave Hypothesis's shrink phase out: the program is reported as the search found it
NOT_SHRUNK = '[hypothesis] phases, which leaves out "shrink"'


@dataclass(frozen=True, kw_only=True)
class ShrinkReport:
    """How the reported program was shrunk: from how many steps, in how long, in how many runs."""

    first_steps: int  # the first failing program found
    hypothesis_steps: int  # after Hypothesis's shrinking
    steps: int  # after the step-deletion pass
    seconds: float  # from the first failure to the reported program
    runs: int  # Hypothesis's shrink runs
    replays: int  # the deletion pass's replays
    replayed: bool = False  # the failure came from the example database (already shrunk)
    passes: dict[str, tuple[int, float]] = field(default_factory=dict)  # evmstate's passes: name -> (replays, seconds)
    # what each pass spent and took off the program: name -> (work, steps, bits of numbers and waits) (shrink.outcome)
    gains: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    tried: tuple[str, ...] = ()  # the passes that ran; shrinking ends when a round of them changes nothing
    # the backend evmstate's passes replayed candidates on, when not the run's ("revm"); the program is the run's
    replayed_on: str = ""
    # "1-minimal", "minimal among programs that delete up to two steps", or "" when shrinking stopped early
    minimality: str = "1-minimal"
    # processes that replayed candidates at once (-n: helpers on idle workers' slots), this one included
    workers: int = 1
    helped: int = 0  # of the replays, those the helpers ran


@dataclass(frozen=True, kw_only=True)
class Optimum:
    """The best value an optimize method reached, and the shortest program found reaching it (engine/optimize)."""

    name: str  # the method
    value: int
    program: list[str]
    recorded: list[RecordedStep]
    seconds: float  # when a run first reached it, from the machine's start
    runs: int  # the runs before that one
    found_steps: int  # the program's steps before shrinking
    stopped: str | None = None  # what ended its shrinking early, if anything
    record_id: str | None = None  # its record in the failure store
    record: Any = None  # in a campaign's worker, the failures.FailureRecord the campaign keeps (a worker saves nothing)


@dataclass(frozen=True, kw_only=True)
class MachineFinished:
    """Emitted when a machine or test is done: passed, failed or errored."""

    name: str
    kind: Kind
    path: str
    status: Status
    examples: int  # as ExampleFinished counts them
    steps: int
    elapsed: float
    rules: dict[str, RuleStats] = field(default_factory=dict)
    failure: Failure | None = None
    error: str | None = None
    statistics: dict[str, Any] = field(default_factory=dict)
    failure_id: str | None = None
    seed: int | None = None  # the Hypothesis seed this machine or test ran with
    runs: int = 0  # every run, shrinking and invalid ones included
    max_examples: int = 0
    internal: bool = False  # with status "error": evmstate itself failed (error holds its traceback)
    # with status "error": the machine's or test's own code is at fault (engine.verdicts.is_mistake), not the
    # contract nor a limit of evmstate; `evmstate mutate` counts no kill for it
    broken: bool = False
    rejected: int = 0  # runs thrown away by assume() or reject() before any failed
    # branch outcomes first reached in the last quarter of the runs (None without coverage, or
    # with fewer than MIN_RUNS runs): above 0 in a passing machine, the search was still
    # finding new code when its budget ran out, and a longer one may find more
    late_branches: int | None = None
    # the same for new kinds of state: a variable that holds a phase, a level, a flag (one that
    # took at most search.feedback.KINDS small values over the search, not an amount) storing a
    # value it never held, progress that reaches no new branch
    late_stages: int | None = None

    @property
    def still_rising(self) -> bool:
        """Passed while still reaching new branches or new kinds of state in its last runs: its budget was too small to
        tell."""
        return self.status == "passed" and bool(self.late_branches or self.late_stages)

    # found when the machine was loaded (methods whose names look misspelt); see also warnings
    load_warnings: tuple[str, ...] = ()
    # a differential run's: the sides' labels, what the comparison told apart (the compiler's, not the contract's),
    # the expected differences met and, asked for, the gas of both sides per function (evm/differential.py notes())
    differential: dict[str, Any] | None = None
    # seconds per phase that ran, in order: search, shrink (Hypothesis), shrink (evmstate), explain, trace
    phases: dict[str, float] = field(default_factory=dict)
    # the properties that said whether what they checked was interesting, by rule or invariant
    canaries: dict[str, Canary] = field(default_factory=dict)
    # rules left out on purpose, and why ("ERC20Mock has no mint()"): not "never ran"
    left_out: dict[str, str] = field(default_factory=dict)
    optima: tuple[Optimum, ...] = ()  # the best value of each optimize method (engine/optimize)
    # runs that met a failure known before (RunSetup.known), by the id it is counted under, once per run: the run went
    # on past it
    hits: dict[str, int] = field(default_factory=dict)
    # the failure's identity (failures.FailureIdentity) as its first run raised it, before shrinking (which may show it
    # to be a known one)
    found_as: Any = None

    @property
    def never_run(self) -> list[str]:
        return [name for name, s in self.rules.items() if s.calls == 0 and name not in self.left_out]

    def why_never_run(self, name: str) -> str:
        """Why a rule never ran: the machine ended before a step drew it, or its precondition or bundle kept it out."""
        ended = {"failed": "failed", "error": "stopped at an error", "interrupted": "was interrupted"}.get(self.status)
        if ended is not None and self.steps == 0:
            return f"the machine {ended} before its first step"
        if ended is not None and not self.rules[name].gated:
            return (
                f"the machine {ended} after {self.steps} step{'' if self.steps == 1 else 's'}, before any step drew it"
            )
        if self.rules[name].gated:
            return "its precondition never held or its bundle stayed empty"
        return "no step drew it in the runs it had (raise max_examples or stateful_step_count)"

    @property
    def all_reverted(self) -> list[str]:
        """Rules that ran, sent transactions, and saw every one of them revert: they never changed the state."""
        return [name for name, s in self.rules.items() if s.never_changed_state and not self.meant_to_revert(name)]

    def meant_to_revert(self, name: str) -> bool:
        """The rule said (through its canary) that its transactions are meant to revert: a check that a call fails."""
        return name in self.canaries and self.canaries[name].reverting

    @property
    def unexercised(self) -> list[str]:
        """Properties checked, but never on the state they exist to check: they passed without testing anything."""
        return [name for name, c in self.canaries.items() if c.checked and not c.interesting]

    @property
    def warnings(self) -> list[str]:
        """What a pass (or a failure) should not hide: misspelt conventions, rules that never ran or never changed the
        state."""
        return [*self.load_warnings, *self.run_warnings]

    @property
    def mostly_reverted(self) -> list[str]:
        """Rules most of whose transactions reverted outside reverts(), though not all, nor meant to."""
        return [name for name, s in self.rules.items() if s.mostly_reverted and not self.meant_to_revert(name)]

    @property
    def run_warnings(self) -> list[str]:
        """Rules that never ran, whose every transaction reverted, or most of whose transactions reverted
        unexpected; once passed, properties never checked on the state they exist to check."""
        out = []
        for name in self.never_run:
            out.append(f"{self.name}.{name} never ran: {self.why_never_run(name)}")
        for name in self.all_reverted:
            s = self.rules[name]
            runs = "once" if s.calls == 1 else f"{s.calls} times"
            out.append(
                f"{self.name}.{name} ran {runs} and every transaction it sent reverted ({s.transactions} of "
                f"{s.transactions}): it never changed the state"
            )
        for name in self.mostly_reverted:
            s = self.rules[name]
            share = 100 * s.unexpected_reverts // s.transactions
            out.append(
                f"{self.name}.{name}: {s.unexpected_reverts} of its {s.transactions} transactions reverted ({share}%) "
                "outside reverts(): most of its steps "
                "changed nothing. Add a precondition for when it can succeed, "
                "or narrow its strategies to values that can; a revert it means to check belongs in `with reverts(...)`"
            )
        if self.status == "passed":
            for name in self.unexercised:
                c = self.canaries[name]
                times = "once" if c.checked == 1 else f"{c.checked} times"
                what = c.what or "the state it checks"
                out.append(
                    f"{self.name}.{name} was checked {times} but never on {what}: it passed without testing anything"
                )
        return out


@dataclass(frozen=True)
class LoadFailed:
    """Emitted when a machine module cannot be imported, a machine cannot be defined, or a contract does not compile."""

    path: str
    message: str
    # False for a contract that does not compile and that machines ask for: their errors count it
    counted: bool = True


@dataclass(frozen=True)
class StoreWarning:
    """Emitted when something the run keeps its state in (the example database, a failure record, the build cache, a
    campaign's corpus) could not be reached or written, and the run goes on without it: what, where, why and what to do.

    Never a verdict: the machines' results and the exit code are as they would be with the store. Each store
    is told once per process; the commands' summaries hold each message once.
    """

    message: str


@dataclass(frozen=True)
class NothingFound:
    """Emitted when no machine or property test was found: what was looked for, and the naming rules."""

    message: str


@dataclass
class RunSummary:
    """How a whole run went: each machine's and test's result, the load errors, and what was asked for besides (gas,
    coverage)."""

    results: list[MachineFinished] = field(default_factory=list)
    load_errors: list[LoadFailed] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C stopped the run; results hold what finished, and where it stopped
    nothing: str | None = None  # why nothing ran, when nothing was found
    seed: int | None = None  # the run's seed: --seed reproduces the run
    gas: GasStats | None = None  # with RunOptions.gas: gas per contract function over the whole run
    coverage: CoverageReport | None = None  # with RunOptions.coverage: lines and branches reached over the whole run
    stopped_in: str | None = None  # what Ctrl-C interrupted: "discovery", "compiling", or a machine's path::name
    total: int = 0  # machines and tests selected to run
    # what vyper warned of, once per source file and warning
    warnings: list[CompileWarning] = field(default_factory=list)
    store_warnings: list[str] = field(default_factory=list)  # each StoreWarning's message, once: what the run kept not

    @property
    def exit_code(self) -> ExitCode:
        """Passed, falsified, errors in the user's machines or tests, evmstate failed, nothing found (as pytest), or
        Ctrl-C."""
        if any(r.internal for r in self.results):
            return ExitCode.INTERNAL_ERROR
        if any(r.status == "failed" for r in self.results):
            return ExitCode.FAILED
        if self.interrupted:
            return ExitCode.INTERRUPTED
        if self.load_errors or any(r.status == "error" for r in self.results):
            return ExitCode.USAGE_ERROR
        if not self.results:
            return ExitCode.NOTHING_FOUND
        return ExitCode.OK


@dataclass(frozen=True)
class RunFinished:
    """Emitted once at the end of a run, after Ctrl-C too: its summary, and the report files written (--junit-xml,
    --json, coverage)."""

    summary: RunSummary
    written: tuple[str, ...] = ()


# -- replaying and shrinking saved failures (evmstate replay, shrink, failures) ---------------------

# how a replayed failure ends
# an optimum's record: "reaches" its saved value (or more) again, or "falls short" of it
Verdict = Literal["still fails", "fails differently", "fixed", "reaches", "falls short"]
# a saved failure checked by replaying it quietly: a Verdict, or why it could not be replayed
CheckVerdict = Literal[
    "still fails", "fails differently", "fixed", "reaches", "falls short", "cannot replay", "unreadable"
]
# how `evmstate shrink` ends: "minimal" when nothing went, "stopped" when the budget ended it again
ShrinkVerdict = Literal["shrunk", "minimal", "stopped", "fixed", "fails differently"]


@dataclass(frozen=True)
class ReplayStarted:
    """Emitted before a saved failure is replayed: which one, and what cut its shrinking short, if anything did."""

    id: str
    path: str
    name: str
    interrupted: bool = False
    stopped: str | None = None


@dataclass(frozen=True)
class ReplayStep:
    """One replayed step and what it did."""

    index: int
    line: str
    return_value: str | None = None
    events: list[str] = field(default_factory=list)
    reverts: list[str] = field(default_factory=list)
    error: str | None = None
    invariant: str | None = None
    # writes to the chain no transaction made (chain.set_storage(...), chain.deal(...)), as lines that make them again
    chain: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ReplayResult:
    """How the replay ended, and the sources changed since the failure was recorded."""

    verdict: Verdict
    error_type: str | None = None
    message: str | None = None
    changed: list[str] = field(default_factory=list)
    value: int | None = None  # an optimum's record: the highest value its program reached now (None: none)
    saved: int | None = None  # and the value saved with it

    @property
    def exit_code(self) -> ExitCode:
        """0 when fixed, or for an optimum (not a failure, whatever value it reaches); 1 when it still fails."""
        return ExitCode.OK if self.verdict in ("fixed", "reaches", "falls short") else ExitCode.FAILED


@dataclass(frozen=True)
class ReplayFinished:
    """Emitted when the replay ends: its result, and the error the record holds ("Type: message")."""

    id: str
    result: ReplayResult
    recorded: str


@dataclass(frozen=True)
class ShrinkStarted:
    """Emitted before `evmstate shrink` goes on shrinking a saved failure of so many steps."""

    id: str
    path: str
    name: str
    steps: int


@dataclass(frozen=True, kw_only=True)
class ShrinkFinished:
    """Emitted when `evmstate shrink` ends: the record saved now (new_id; the old one is gone) and its program, or why
    nothing was saved."""

    verdict: ShrinkVerdict
    id: str
    new_id: str
    program: tuple[str, ...] = ()
    steps: int = 0
    report: ShrinkReport | None = None
    stopped: str | None = None  # what stopped shrinking this time (the budget)
    message: str = ""  # "fails differently": how it fails now
    recorded: str = ""  # "fails differently": the error the record holds
    unsaved: str | None = None  # why the shorter program could not be saved (new_id is then the record's id, unchanged)
    interrupted: bool = False  # Ctrl-C stopped it: the program is the shortest found until then

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.verdict == "fixed" else ExitCode.FAILED


@dataclass(frozen=True)
class SavedFailure:
    """A saved failure as `evmstate failures` lists it; an unreadable record has only its id and error."""

    id: str
    error: str  # "Type: the message's first line", or "unreadable: why"
    machine: str = "-"  # path::name, and a note when its shrinking was cut short
    created: float | None = None
    sources: str = "-"  # "changed" or "same" since the failure was recorded
    replay: str = "-"  # with --check: the verdict shown ("still fails", "cannot replay: why")
    verdict: str = ""  # with --check: the verdict alone (CheckVerdict); "unreadable" for a record that cannot be read


@dataclass(frozen=True)
class FailurePruned:
    """Emitted by `evmstate failures prune` for each saved failure: removed (or would be, on a dry run) or kept, and
    why."""

    id: str
    removed: bool
    shown: str  # the check's verdict and reason


class Interrupted(KeyboardInterrupt):
    """Raised when Ctrl-C stops a machine or test before anything failed; result says how far it got."""

    def __init__(self, result: MachineFinished) -> None:
        super().__init__(f"{result.path}::{result.name} interrupted")
        self.result = result


Event = (
    RunStarted | CompileStarted | CompileFinished | MachineStarted | ExampleFinished | FailureFound | ShrinkProgress
    | MachineFinished | LoadFailed | NothingFound | RunFinished | StoreWarning
)
# what engine.item.prepare, the prologue every command shares, emits
PrologueEvent = LoadFailed | NothingFound | CompileStarted | CompileFinished | StoreWarning
# what `evmstate replay`, `shrink` and `failures prune` emit
ReplayEvent = ReplayStarted | ReplayStep | ReplayFinished | ShrinkStarted | ShrinkFinished | FailurePruned

