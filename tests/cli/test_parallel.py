"""evmstate run -n N: machines and tests over worker processes, one display, failures saved once."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from evmstate.scale import pool
from evmstate.scale.parallel import merge_shards
from evmstate.scale.pool import parse_workers
from evmstate.engine.events import MachineFinished, RuleStats
from evmstate.engine.settings import shard_examples, shard_seed, machine_seed
from evmstate.config import Environment
from evmstate.errors import UsageError

from evmstate_cli import launch

from .. import zygote
from ..conftest import copy_example, evmstate_exe
from .helpers import Forked, invoke, wait_for_markers
from .machines import WAITING

SMALL = ("--max-examples", "5", "--steps", "4")


def _results(path: Path) -> dict[str, dict]:
    return {r["name"]: r for r in json.loads(path.read_text())["results"]}


@pytest.mark.processes
def test_two_workers_run_every_machine_as_one_process_does_and_save_each_failure_once(example):
    code, out = invoke("run", "--seed", "4", *SMALL, "-n", "2", "--json", "par.json")
    assert code == 1, out
    parallel = _results(example / "par.json")
    failed = sum(r["status"] == "failed" for r in parallel.values())
    assert len(parallel) == 16 and failed >= 1
    assert out.count("seed: 4 — rerun with --seed 4") == 1
    assert out.count(f"{16 - failed} passed, {failed} failed") == 1
    saved = sorted(p.stem for p in (example / ".evmstate" / "failures").glob("*.json"))
    # a record per failure, and one per optimize method's best value (machines/share_vault.py), saved by the parent
    optima = [o["record_id"] for r in parallel.values() for o in r["optima"]]
    assert len(optima) == 1 and saved == sorted([*(r["failure_id"] for r in parallel.values() if r["status"] == "failed"), *optima])
    for rid in saved:
        assert out.count(f"replay with: evmstate replay {rid}") == 1
    # the same seed in one process (a fresh copy: no example database) runs each machine the same;
    # a process of its own, as the workers are: Hypothesis draws constants from the modules a
    # process loaded, and this test process has loaded many
    other = copy_example(example / "one")
    exe = evmstate_exe()
    done = zygote.run([exe, "run", "--seed", "4", *SMALL, "--json", "seq.json"], cwd=other)
    assert done.returncode == 1, done.stdout + done.stderr
    sequential = _results(other / "seq.json")
    assert list(parallel) == list(sequential)  # reports list machines in discovery order
    for name, r in sequential.items():
        p = parallel[name]
        assert (p["status"], p["seed"], p["examples"], p["steps"]) == (r["status"], r["seed"], r["examples"], r["steps"]), name
        if r["status"] == "failed":
            assert p["failure"]["program"] == r["failure"]["program"] and p["failure_id"] == r["failure_id"]


@pytest.mark.processes
def test_shards_split_a_machine_s_examples_over_seeds_and_report_its_first_failure(example):
    code, out = invoke("run", "machines/depositer.py", "--seed", "5", "--max-examples", "12", "--steps", "4", "--shards", "3", "-n", "2", "-v", "--json", "r.json")
    assert code == 1, out
    (result,) = _results(example / "r.json").values()
    assert result["status"] == "failed" and "shards: " in out
    assert result["failure"]["program"][-2:] == ["state.rule_deposit(address=accounts[0], value=1)", "state.rule_withdraw(address=accounts[0], value=0)"]
    (record,) = (example / ".evmstate" / "failures").glob("*.json")
    assert record.stem == result["failure_id"]
    data = json.loads(record.read_text())
    # the record holds the seed of the shard that found it: one of the three
    where = "machines/depositer.py::StateMachine"
    assert data["settings"]["hypothesis_seed"] in {shard_seed(5, where, i) for i in range(3)}
    assert data["settings"]["max_examples"] == 4
    code, out = invoke("replay", result["failure_id"])
    assert code == 1 and "still fails" in out


@pytest.mark.processes
def test_a_definition_error_in_a_worker_is_an_error_and_the_rest_still_runs(example):
    (example / "machines" / "bad.py").write_text("class BadMachine:\n    def rule_x(self, amt):\n        pass\n")
    code, out = invoke("run", "machines/bad.py", "machines/test_properties.py", "--max-examples", "2", "-n", "2")
    assert code == 2, out
    assert "BadMachine.rule_x: parameter 'amt' has no strategy" in out and "2 passed, 0 failed, 1 error" in out


def test_worker_counts():
    assert parse_workers("auto") >= 1 and parse_workers("3") == 3
    for bad in ("0", "-2", "many"):
        with pytest.raises(UsageError, match="auto for one per core"):
            parse_workers(bad)


def test_bad_worker_count_exits_2(example):
    code, out = invoke("run", "-n", "zero")
    assert code == 2 and "-n zero: give a number of worker processes" in out


def test_shard_seeds_and_examples():
    where = "machines/m.py::M"
    assert shard_seed(7, where) == machine_seed(7, where)
    assert len({shard_seed(7, where, i) for i in range(4)} | {machine_seed(7, where)}) == 5
    assert [shard_examples(50, i, 3) for i in range(3)] == [17, 17, 16]
    assert sum(shard_examples(7, i, 7) for i in range(7)) == 7


def test_merged_shards_add_up_and_report_the_first_failing_shard():
    def result(status: str, examples: int, calls: int, seed: int) -> MachineFinished:
        return MachineFinished(name="M", kind="machine", path="m.py", status=status, examples=examples, steps=examples * 2, elapsed=1.0, rules={"rule_a": RuleStats(calls=calls, reverts=1)}, seed=seed, statistics={"seed": seed})

    at, merged = merge_shards({2: result("failed", 3, 4, 12), 0: result("passed", 5, 6, 10), 1: result("failed", 4, 5, 11)}, 3, 2.5)
    assert at == 1 and merged.status == "failed" and merged.seed == 11
    assert (merged.examples, merged.steps, merged.elapsed) == (12, 24, 2.5)
    assert (merged.rules["rule_a"].calls, merged.rules["rule_a"].reverts) == (15, 3)
    assert merged.statistics == {"seed": 11, "shards": 3}
    at, merged = merge_shards({0: result("passed", 5, 6, 10)}, 2, 1.0)
    assert merged.statistics["shards"] == "1 of 2 ran"
    single = result("passed", 5, 6, 10)
    assert merge_shards({0: single}, 1, 9.0) == (0, single)


# a machine whose runs say that they are running: one marker file per worker process
@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_every_worker_and_exits_130(tmp_path, cli_env: dict[str, str]):
    project = copy_example(tmp_path / "p")
    (project / "machines" / "waiting.py").write_text(WAITING)
    proc = Forked(["run", "machines/waiting.py", "--max-examples", "100000", "--shards", "2", "-n", "2"], cwd=project, env=cli_env, merged=False)
    try:
        wait_for_markers(project, proc, 2)  # both workers are searching
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the whole group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, out + err
    assert "interrupted by Ctrl-C" in out and "Traceback" not in out + err
    for _ in range(50):  # the workers are gone with it
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("worker processes outlived evmstate run")


def test_the_display_follows_machines_running_at_once():
    import io

    from rich.console import Console

    from evmstate.engine.events import ExampleFinished, FailureFound, MachineStarted
    from evmstate_cli.render import Renderer

    out = io.StringIO()
    live = Console(file=out, force_terminal=True, width=120, no_color=True)
    with Renderer(live) as r:
        r(MachineStarted(name="A", kind="machine", path="machines/a.py", index=1, total=2, max_examples=10))
        r(MachineStarted(name="B", kind="machine", path="machines/b.py", index=2, total=2, max_examples=10))
        r(ExampleFinished(name="A", examples=3, steps=30, elapsed=1.0, shrinking=False, path="machines/a.py"))
        r(ExampleFinished(name="B", examples=5, steps=50, elapsed=1.0, shrinking=False, path="machines/b.py"))
        board = io.StringIO()
        Console(file=board, width=200, no_color=True).print(r.live.renderable)
        rows = board.getvalue().splitlines()
        assert "[1/2] machines/a.py::A  searching, examples 3/10, 30 steps" in rows[0]
        assert "[2/2] machines/b.py::B  searching, examples 5/10, 50 steps" in rows[1]
        r(MachineFinished(name="A", kind="machine", path="machines/a.py", status="passed", examples=3, steps=30, elapsed=1.0))
        assert [row.name for row in r.rows.values() if row.status is None] == ["B"]
    assert "✓ [1/2] machines/a.py::A" in out.getvalue()  # printed once it passed
    plain = io.StringIO()
    r = Renderer(Console(file=plain, width=120, no_color=True))
    r(MachineStarted(name="A", kind="machine", path="machines/a.py", index=1, total=2, max_examples=10))
    r(MachineStarted(name="B", kind="machine", path="machines/b.py", index=2, total=2, max_examples=10))
    r(FailureFound("A", 4, "machines/a.py"))
    assert plain.getvalue().startswith("[1/2] machines/a.py::A: falsified at example 4/10; shrinking")


def test_campaign_progress_line():
    from evmstate.scale.campaign import CampaignProgress
    from evmstate_cli.render_campaign import progress_text

    p = CampaignProgress(elapsed=75.0, budget=3600.0, shards=12, running=2, examples=300, steps=15000, failures=1, branches=None)
    assert progress_text(p) == "1m15s, 58m45s left: 12 shards (2 running), 300 runs, 15000 steps, 200 steps/s, 1 failure"
    p = CampaignProgress(elapsed=3725.0, budget=None, shards=80, running=2, examples=4000, steps=200000, failures=0, branches=1234)
    assert progress_text(p) == "1h02m05s: 80 shards (2 running), 4000 runs, 200000 steps, 54 steps/s, 1234 branches, 0 failures"
    p = CampaignProgress(elapsed=62.0, budget=60.0, shards=3, running=1, examples=40, steps=2000, failures=1, branches=None, shrinking=1)
    assert progress_text(p) == "1m02s, time is up: 1 shrinking a failure: 3 shards (1 running), 40 runs, 2000 steps, 32 steps/s, 1 failure"


@pytest.mark.processes
def test_a_worker_that_dies_is_an_internal_error_naming_what_it_ran(example):
    (example / "machines" / "dies.py").write_text("import os\n\nclass DyingMachine:\n    def rule_die(self):\n        os._exit(7)\n")
    # an internal error: main() prints it with its traceback and exits 3
    with pytest.raises(pool.WorkerCrashed, match=r"(?s)worker process 0 failed while running machines/dies.py::DyingMachine.*exited with code 7"):
        invoke("run", "machines/dies.py", "-n", "2")


def test_workers_start_from_a_fork_server_where_there_is_one_else_spawned(monkeypatch):
    monkeypatch.delenv("EVMSTATE_START_METHOD", raising=False)
    for methods, expected in ((["fork", "spawn", "forkserver"], "forkserver"), (["spawn", "fork", "forkserver"], "forkserver"), (["spawn"], "spawn")):
        monkeypatch.setattr(pool.multiprocessing, "get_all_start_methods", lambda methods=methods: methods)
        assert pool.start_method(Environment.read()) == expected
        assert launch.forkserver_chosen() == (expected == "forkserver")  # the command starts the server early only then
    monkeypatch.setattr(pool.multiprocessing, "get_all_start_methods", lambda: ["fork", "spawn", "forkserver"])
    for chosen in ("spawn", "fork", " ForkServer "):
        monkeypatch.setenv("EVMSTATE_START_METHOD", chosen)
        assert pool.start_method(Environment.read()) == chosen.strip().lower()
        assert launch.forkserver_chosen() == (chosen.strip().lower() == "forkserver")
    monkeypatch.setattr(pool.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    monkeypatch.setenv("EVMSTATE_START_METHOD", "forkserver")
    with pytest.raises(UsageError, match="EVMSTATE_START_METHOD=forkserver: worker processes start here by spawn"):
        pool.start_method(Environment.read())


@pytest.mark.processes
def test_spawned_workers_run_as_forked_ones(example, monkeypatch):
    # a budget that finds the Depositer bug, so that a failure's program is compared too
    args = ("run", "machines/depositer.py", "machines/test_properties.py", "--seed", "3", "--max-examples", "20", "--steps", "10", "-n", "2", "--json", "r.json")
    code, out = invoke(*args)
    other = copy_example(example / "spawned")  # no example database: the same search from the start
    monkeypatch.chdir(other)
    monkeypatch.setenv("EVMSTATE_START_METHOD", "spawn")
    code2, out2 = invoke(*args)
    assert (code, code2) == (1, 1), out + out2
    forked, spawned = _results(example / "r.json"), _results(other / "r.json")
    assert len(forked) == 3
    for name, r in forked.items():
        s = spawned[name]
        assert (s["status"], s["seed"], s["examples"], s["steps"]) == (r["status"], r["seed"], r["examples"], r["steps"]), name
        if r["status"] == "failed":
            assert s["failure"]["program"] == r["failure"]["program"] and s["failure_id"] == r["failure_id"]


def test_a_worker_builds_the_project_from_the_parent_s_compiled_contracts(example):
    from evmstate import config as config_mod
    from evmstate.contracts.project import Project

    cfg = config_mod.load()
    build = Project(cfg).build
    state = pool.ProjectSource(cfg, (str(example / "machines" / "erc20.py"),), build=build).open()
    assert state.project.build is build
    assert sorted(state.project.containers) == sorted(build.artifacts)


def test_the_command_starts_the_fork_server_when_its_arguments_ask_for_local_workers(monkeypatch):
    monkeypatch.setattr(launch, "_cores", lambda: 4)
    asks = {
        ("run",): 0,
        ("run", "-n", "1"): 0,
        ("run", "machines/erc20.py", "-n", "2"): 2,
        ("run", "-n3", "-q"): 3,
        ("run", "--workers=auto"): 4,
        ("run", "--workers", "auto", "--shards", "2"): 4,
        ("run", "-n", "zero"): 0,
        ("fuzz",): 4,
        ("fuzz", "-n", "1", "--time", "3s"): 1,
        ("fuzz", "--cluster", "tcp://h:8786"): 0,
        ("fuzz", "--cluster=tcp://h:8786", "-n", "2"): 0,
        ("replay", "-n", "2"): 0,
        ("--version",): 0,
        (): 0,
    }
    for args, n in asks.items():
        assert launch.local_workers(list(args)) == n, args


@pytest.mark.processes
def test_workers_see_the_environment_as_it_is_when_they_start(example, monkeypatch):
    (example / "machines" / "test_env.py").write_text(
        "import os\n\nfrom evmstate import given, strategy\n\n\n"
        "@given(amount=strategy('uint8'))\n"
        "def test_sees_the_variable(amount):\n"
        "    assert os.environ.get('EVMSTATE_TEST_VARIABLE') == 'set after the fork server started'\n"
    )
    pool.start_early(Environment.read())  # a fork server already running, started without the variable
    monkeypatch.setenv("EVMSTATE_TEST_VARIABLE", "set after the fork server started")
    code, out = invoke("run", "machines/test_env.py", "--max-examples", "2", "-n", "2")
    assert code == 0 and "1 passed, 0 failed" in out, out
