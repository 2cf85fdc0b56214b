"""A bug that needs a 10-step interleaving is found with default settings and shrunk to it."""

import shutil
from pathlib import Path

import pytest

from evmstate.reports import failure_text

from .conftest import run_project

pytestmark = pytest.mark.slow
RING = Path(__file__).parent / "ring"

MINIMAL = """\
AssertionError: assert 0 == 1
  at {path}:22 in pop
    assert self.ring.pop().return_value == self.model.popleft()

Falsifying example (10 steps):
state = RingMachine()
state.push(value=0)
state.pop()
state.push(value=0)
state.pop()
state.push(value=0)
state.pop()
state.push(value=0)
state.pop()
state.push(value=1)
state.pop()"""

# the fifth push writes the slot past the last one (the tail wraps at 5), while the fifth pop reads
# the first push's slot (the head wraps at 4): the 0 pushed first comes back where the 1 belongs.
# Every value is as small as it can be but the one that tells the two slots apart
PROGRAMS = {0: MINIMAL, 1: MINIMAL}


@pytest.mark.parametrize("seed", sorted(PROGRAMS))
def test_ring_buffer_wrap_bug_shrinks_to_the_minimal_program(seed, monkeypatch, tmp_path):
    project = tmp_path / "ring"
    shutil.copytree(RING, project, ignore=shutil.ignore_patterns(".evmstate"))
    monkeypatch.chdir(project)
    summary, _ = run_project(project, "machines/ring.py", seed=seed)
    (result,) = summary.results
    assert result.status == "failed"
    program, trace = failure_text(result.failure).split("\n\nTrace:\n")
    assert program == PROGRAMS[seed].format(path="machines/ring.py")
    assert trace.count("state.pop()") == 5 and trace.count("Ring.pop()") == 5
