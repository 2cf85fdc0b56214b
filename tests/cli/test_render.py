"""What the live rows, the plain lines and the failure report say while and after a run."""

import io
import typing

from rich.console import Console

from evmstate.engine.events import (
    CompileFinished,
    CompileStarted,
    ExampleFinished,
    FailureFound,
    LoadFailed,
    MachineFinished,
    MachineStarted,
    NothingFound,
    RunFinished,
    RunStarted,
    RunSummary,
    ShrinkProgress,
    ShrinkReport,
)
from evmstate.engine.trace import GasStats
from evmstate_cli.render import CTRL_C_NOTE, Renderer, Row, spinner
from evmstate_cli.texts import shrink_text


def _renderer(**kwargs) -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    return Renderer(Console(file=out, width=1_000_000, no_color=True), **kwargs), out


def test_the_row_counts_examples_towards_max_examples_while_searching():
    r, _ = _renderer()
    r(MachineStarted(name="M", kind="machine", path="machines/m.py", index=2, total=5, max_examples=200))
    r(ExampleFinished(name="M", examples=37, steps=1850, elapsed=10.0, shrinking=False, path="machines/m.py", runs=41))
    row = r.current
    assert row.label == "[2/5] machines/m.py::M"
    assert row.progress(now=row.started + 12.5) == ["searching", "examples 37/200", "1850 steps", "185 steps/s", "12.5s"]
    (line,) = row.live(now=row.started + 12.5)
    assert line.plain.startswith(spinner(row.started + 12.5) + " [2/5] machines/m.py::M  searching, examples 37/200")


def test_the_row_shows_the_branches_hit_while_searching():
    r, _ = _renderer()
    r(MachineStarted(name="M", kind="machine", path="machines/m.py", index=1, total=1, max_examples=50))
    r(ExampleFinished(name="M", examples=3, steps=150, elapsed=1.0, shrinking=False, path="machines/m.py", runs=3, branches=1))
    assert r.current.progress(now=r.current.started + 2.0) == ["searching", "examples 3/50", "150 steps", "1 branch hit", "150 steps/s", "2.0s"]
    r(ExampleFinished(name="M", examples=4, steps=200, elapsed=1.5, shrinking=False, path="machines/m.py", runs=4, branches=12))
    assert "12 branches hit" in r.current.progress(now=r.current.started + 2.0)


def test_the_row_shows_the_best_program_and_the_runs_tried_while_shrinking():
    r, out = _renderer()
    r(RunStarted(42))
    r(MachineStarted(name="M", kind="machine", path="machines/m.py", index=1, total=1, max_examples=50))
    r(FailureFound("M", 3, "machines/m.py"))
    r(ShrinkProgress(name="M", steps=9, examples=3, runs=7, elapsed=1.25, path="machines/m.py"))
    row = r.current
    assert row.progress()[:4] == ["shrinking", "examples 3/50", "best 9 steps", "7 runs tried"]
    r(ShrinkProgress(name="M", steps=9, examples=3, runs=37, elapsed=6.0, path="machines/m.py"))
    assert row.progress()[3] == "37 runs tried", "the runs move on while the best stays"
    r(ShrinkProgress(name="M", steps=3, examples=3, runs=49, elapsed=6.5, phase="removing steps", path="machines/m.py"))
    assert row.progress()[:4] == ["removing steps", "examples 3/50", "best 3 steps", "49 runs tried"]
    first, note = row.live(now=row.started + 7)
    assert note.plain.strip() == CTRL_C_NOTE
    assert out.getvalue().startswith("seed: 42 — rerun with --seed 42\n")


def test_the_spinner_turns_with_the_clock_not_with_events():
    frames = {spinner(t / 10) for t in range(10)}
    assert len(frames) == 10, "a slow step still shows a moving spinner"


def test_rows_are_kept_per_machine_so_several_can_run_at_once():
    r, _ = _renderer()
    r(MachineStarted(name="A", kind="machine", path="machines/a.py", index=1, total=2, max_examples=10))
    r(MachineStarted(name="B", kind="machine", path="machines/b.py", index=2, total=2, max_examples=10))
    r(ExampleFinished(name="A", examples=4, steps=40, elapsed=1.0, shrinking=False, path="machines/a.py", runs=4))
    r(ExampleFinished(name="B", examples=7, steps=70, elapsed=1.0, shrinking=False, path="machines/b.py", runs=7))
    assert r.rows[("machines/a.py", "A")].examples == 4 and r.rows[("machines/b.py", "B")].examples == 7


def test_off_a_terminal_lines_are_whole_and_printed_once():
    r, out = _renderer(progress_every=0.0)
    long_path = "machines/" + "very_" * 30 + "long.py"
    name = "AMachineWithAVeryLongNameIndeed" * 3
    r(CompileStarted("contracts"))
    r(CompileFinished(3, 2, 0.5))
    r(MachineStarted(name=name, kind="machine", path=long_path, index=1, total=1, max_examples=20))
    r(ExampleFinished(name=name, examples=1, steps=10, elapsed=0.1, shrinking=False, path=long_path, runs=1))
    r(MachineFinished(name=name, kind="machine", path=long_path, status="passed", examples=20, steps=200, elapsed=2.0, runs=23, max_examples=20))
    lines = out.getvalue().splitlines()
    assert lines[0] == "compiled 3 contracts in 0.5s (2 from the build cache)"
    assert lines[1].startswith(f"… [1/1] {long_path}::{name}  searching, examples 1/20, 10 steps")
    assert lines[2] == f"✓ [1/1] {long_path}::{name}  examples 20/20, 200 steps, 100 steps/s, 2.0s"


def test_a_finished_failure_counts_its_shrink_runs_apart():
    row = Row("M", "machines/m.py", "machine", 1, 3, 50)
    row.examples, row.runs, row.steps, row.elapsed, row.status = 3, 58, 527, 7.0, "failed"
    assert row.final().plain == "✗ [1/3] machines/m.py::M  examples 3/50, 55 shrink runs, 527 steps, 75 steps/s, 7.0s"
    test = Row("test_x", "machines/t.py", "test", 2, 3, 100)
    test.examples, test.runs, test.elapsed, test.status = 100, 100, 0.3, "passed"
    assert test.final().plain == "✓ [2/3] machines/t.py::test_x  examples 100/100, 0.3s", "a property test has no steps"


def test_the_shrink_line_says_from_what_in_how_long():
    passes = {"chunks": (11, 0.42), "values": (25, 0.31), "pairs": (3, 0.0)}
    assert shrink_text(ShrinkReport(first_steps=17, hypothesis_steps=17, steps=3, seconds=1.74, runs=2, replays=39, passes=passes, minimality="minimal among programs that delete up to two steps")) == (
        "shrunk from 17 to 3 steps, minimal among programs that delete up to two steps, in 1.7s (2 Hypothesis runs, chunks 11 replays 0.4s, values 25 replays 0.3s, pairs 3 replays 0.0s)"
    )
    assert shrink_text(ShrinkReport(first_steps=10, hypothesis_steps=10, steps=3, seconds=0.1, runs=1, replays=1, replayed=True, passes={"singles": (1, 0.01)})) == (
        "replayed a saved example; shrunk from 10 to 3 steps, 1-minimal (no single step can be removed), in 0.1s (1 Hypothesis run, singles 1 replay 0.0s)"
    )
    # Hypothesis's own shrinking (an argument evmstate cannot make smaller), then the deletion pass
    assert shrink_text(ShrinkReport(first_steps=9, hypothesis_steps=4, steps=4, seconds=5.94, runs=268, replays=0)) == (
        "shrunk from 9 to 4 steps, 1-minimal (no single step can be removed), in 5.9s (268 Hypothesis runs)"
    )
    assert shrink_text(ShrinkReport(first_steps=1, hypothesis_steps=1, steps=1, seconds=0.04, runs=53, replays=0), "test") == "shrunk in 0.0s (53 runs)"
    stopped = shrink_text(ShrinkReport(first_steps=9, hypothesis_steps=9, steps=4, seconds=1.0, runs=9, replays=2, minimality=""), minimal=False)
    assert "minimal" not in stopped, "a shrink stopped early claims nothing"


def test_every_event_has_a_method_of_its_renderer():
    """Renderers dispatch by the event's type (CompileFinished -> _on_compile_finished): an event without one would vanish."""
    from evmstate.engine.events import Event
    from evmstate.mutate.report import BaselineFinished, MutantFinished, MutateFinished, MutateStarted
    from evmstate.scale.events import CampaignEvent
    from evmstate_cli.render import _method_name
    from evmstate_cli.render_mutate import MutateRenderer
    from evmstate_cli.render_campaign import CampaignRenderer

    assert _method_name(ShrinkReport) == "_on_shrink_report"
    for renderer, kinds in ((Renderer, typing.get_args(Event)), (CampaignRenderer, typing.get_args(CampaignEvent))):
        assert len(kinds) > 10
        missing = [k.__name__ for k in kinds if not callable(getattr(renderer, _method_name(k), None))]
        assert not missing, f"{renderer.__name__} has no method for {missing}"
    for kind in (MutateStarted, BaselineFinished, MutantFinished, MutateFinished, RunStarted, CompileFinished, LoadFailed, NothingFound):
        assert callable(getattr(MutateRenderer, _method_name(kind), None)), kind.__name__


def test_the_run_ends_with_gas_coverage_and_the_summary_on_its_terminal_event():
    r, out = _renderer()
    passed = MachineFinished(name="M", kind="machine", path="m.py", status="passed", examples=1, steps=1, elapsed=0.1)
    r(RunFinished(RunSummary(results=[passed], gas=GasStats()), ("r.json",)))
    assert out.getvalue() == "gas: no contract was called\nwrote r.json\n1 passed, 0 failed\n"
    r, out = _renderer()
    r(RunFinished(RunSummary(nothing="no state machines or property tests found")))
    assert out.getvalue() == "", "NothingFound said it: no summary line"
    r(object())  # an event no method takes is ignored
    assert out.getvalue() == ""
