"""What the live row and the failure report say while and after shrinking."""

import io

from rich.console import Console

from evmstate.runner import FailureFound, MachineStarted, RunStarted, ShrinkProgress, ShrinkReport
from evmstate_cli.render import Renderer, shrink_text


def _renderer() -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    return Renderer(Console(file=out, width=200, no_color=True)), out


def test_the_row_shows_the_best_program_and_the_runs_tried_while_shrinking():
    r, out = _renderer()
    r(RunStarted(42))
    r(MachineStarted("M", "machine", "machines/m.py"))
    r(FailureFound("M", 3))
    r(ShrinkProgress("M", 9, 10, runs=7, elapsed=1.25))
    assert r.current.text().plain.endswith("shrinking 1.2s: best 9 steps, 7 runs tried")
    r(ShrinkProgress("M", 9, 40, runs=37, elapsed=6.0))
    assert r.current.text().plain.endswith("shrinking 6.0s: best 9 steps, 37 runs tried"), "the runs move on while the best stays"
    r(ShrinkProgress("M", 3, 40, runs=49, elapsed=6.5, phase="removing steps"))
    assert r.current.text().plain.endswith("removing steps 6.5s: best 3 steps, 49 runs tried")
    assert out.getvalue().startswith("seed: 42 — rerun with --seed 42\n")


def test_the_shrink_line_says_from_what_in_how_long():
    assert shrink_text(ShrinkReport(first_steps=17, hypothesis_steps=10, steps=3, seconds=5.94, runs=268, replays=14)) == (
        "shrunk from 17 to 3 steps in 5.9s (268 runs, 14 replays removing steps)"
    )
    assert shrink_text(ShrinkReport(first_steps=10, hypothesis_steps=10, steps=3, seconds=0.1, runs=1, replays=1, replayed=True)) == (
        "replayed a saved example; shrunk from 10 to 3 steps in 0.1s (1 run, 1 replay removing steps)"
    )
