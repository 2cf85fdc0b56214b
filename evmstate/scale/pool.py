"""Worker processes: how they start, what each loads, the loop each runs, and the pool the parent drives; never prints.

Workers load the project once and run the tasks the parent hands them one at a time. Everything
a worker says (its events, then the task's result) goes back over one queue, so the parent sees
each worker's messages in order and feeds them to one renderer. A machine's failure is shrunk in
its worker; the worker builds its record and the parent saves it, once.

How workers start (start_method): from a fork server where the platform has one (Linux, macOS),
else spawned (Windows); EVMSTATE_START_METHOD=spawn|forkserver|fork chooses. The fork server is
one process, started once per parent process (start_early: as soon as a run knows it will use
workers, before it discovers and compiles), that imports the evmstate modules the parent has
loaded, and with them Hypothesis, py-evm and eth-abi; each worker is forked from it, so it starts
with all of that imported instead of importing it again (about 1.5 s a worker). The fork server
is a fresh interpreter with no threads, so forking it is safe where forking the parent (which runs
rich's refresh thread, or Dask's) would not be. A worker then imports the user's machine modules
(discovery) and builds the project from the parent's compiled contracts (ProjectSource.build),
not from the build cache. Only modules the parent has loaded are preloaded. Which of evmstate's
modules a process has loaded changes no program (they add nothing to the constants Hypothesis
draws from, search/constants.py); the user's machine modules do add to them, and a worker loads
the same ones as the parent, so it runs a machine with the same programs for the same seed.

A worker forked from the fork server takes the parent's environment variables as they are when
it starts (as a spawned one has them), not as they were when the server started.

Ctrl-C: the fork server and the workers start with SIGINT ignored until a worker installs its own
handler, which stops the task it runs (see _Interrupts); the parent decides (workers.Grace).
SIGTERM and SIGHUP are Ctrl-C too (what `timeout`, a cancelled CI job or a closed terminal send,
often to the whole process group): the fork server ignores them as it does SIGINT, and a worker
takes them as it takes SIGINT, unless the parent ignores them (nohup). A worker ends at once
when the process that started it ends, however it ends (lifeline.watch_parent).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..compiler.sources import Build
from ..config import START_METHOD_VARIABLE, Config, Environment
from ..config_checks import cores, parse_workers  # noqa: F401  (parse_workers: importable from here; -n is read before evmstate.scale is imported)
from ..contracts.project import Project
from ..engine.discovery import Item, discover
from ..engine.settings import keep_hypothesis_storage
from ..errors import MachineDefinitionError, ResourceError, UsageError, from_ctrl_c
from .lifeline import STOP_SIGNALS, TIED_TO, watch_parent
from .shrinking import Lend, Loans, lending




# -- what a worker holds ---------------------------------------------------------


@dataclass(frozen=True)
class ProjectSource:
    """What a worker needs to load the project the parent runs: its config, and what to discover."""

    config: Config
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    # the evmstate modules the parent had loaded: a worker loads the same ones
    modules: tuple[str, ...] = ()
    # the parent's compiled contracts: a worker builds the project from them instead of from the
    # build cache (None: from the cache, as on a cluster's workers)
    build: Build | None = field(default=None, compare=False, repr=False)

    def open(self) -> "WorkerState":
        return open_source(self)


@dataclass
class WorkerState:
    """A loaded project and the machines and tests found in it, by id (path::name)."""

    config: Config
    project: Project
    items: dict[str, Item]


_opened: dict[Any, WorkerState] = {}


def open_source(source: ProjectSource) -> WorkerState:
    """The project source loaded in this process: discovered and compiled (from the cache) on first use."""
    if source not in _opened:
        for name in source.modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        keep_hypothesis_storage(source.config)
        found = discover(source.config, source.paths, source.keyword)
        project = Project(source.config, build=source.build)
        _opened[source] = WorkerState(source.config, project, {i.id: i for i in found.items})
    state = _opened[source]
    state.project.activate()
    return state


def loaded_modules() -> tuple[str, ...]:
    return tuple(sorted(n for n in list(sys.modules) if n.split(".")[0] in ("evmstate", "evmstate_cli")))


def absolute_paths(paths: tuple[str, ...]) -> tuple[str, ...]:
    """PATHS as discovery resolves them here, so that a process started elsewhere finds the same files."""
    out = []
    for raw in paths:
        text, sep, selector = raw.partition("::")
        out.append(str((Path.cwd() / text).resolve()) + sep + selector)
    return tuple(out)


# -- worker processes -------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """What a worker says: ready, event, done, interrupted, refused (a definition error) or crashed; killed (payload:
    its exit code) is said for it by the pool when a signal ended its process."""

    kind: str
    worker: int
    key: str | None = None
    payload: Any = None


# seconds after a KeyboardInterrupt Python could not raise until it comes again
AGAIN = 0.05


# what a campaign sends a worker whose machine failed in another shard: the search stops at its next
# run, never in the middle of Hypothesis's own bookkeeping, as a KeyboardInterrupt could
RETIRE_SIGNAL = getattr(signal, "SIGUSR1", None)


class _Interrupts:
    """SIGINT in a worker: a KeyboardInterrupt in the task it is running, once (again if Python could not raise it).

    One that comes while no task runs stops the next task as it begins: the parent counts a task
    as running once it has sent it, and a stop sent before the worker took it up (under load, a
    worker may take a moment to) would otherwise be lost, and the task run on unstopped. After a
    stop the parent sends no more tasks.

    RETIRE_SIGNAL: retired() says so until the next task.
    """

    def __init__(self) -> None:
        self.armed = False
        self.fired = False
        self.pending = False  # a stop that came between tasks
        self.retired = False

    def retire(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.retired = True

    def handler(self, signum: int, frame: Any) -> None:
        if not self.armed:
            self.pending = True
        elif not self.fired:
            self.fired = True
            raise KeyboardInterrupt

    def unraisable(self, unraisable: Any, previous: Callable[[Any], Any]) -> None:
        """sys.unraisablehook: a KeyboardInterrupt Python could not raise (it came in a garbage-collector callback, a
        __del__) comes again, where it can be raised.
        """
        if type(unraisable.exc_value) is KeyboardInterrupt and self.armed:
            threading.Timer(AGAIN, self.again).start()  # from another thread: handled once this hook has returned
            return
        previous(unraisable)

    def again(self) -> None:
        self.fired = False
        os.kill(os.getpid(), signal.SIGINT)

    @contextlib.contextmanager
    def arm(self) -> Iterator[None]:
        self.fired = False
        self.retired = False
        self.armed = True
        try:
            if self.pending:  # stopped before it began
                self.pending = False
                self.fired = True
                raise KeyboardInterrupt
            yield
        finally:
            self.armed = False


def _as_ctrl_c(signum: int, frame: Any) -> None:
    """A worker's SIGTERM and SIGHUP: handed to what handles Ctrl-C (SIGINT) at the moment."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signum, frame)


_worker_interrupts: _Interrupts | None = None  # in a worker process: its own


def retired() -> bool:
    """In a worker: whether the campaign asked it to stop searching its task (the machine failed in another shard)."""
    return _worker_interrupts is not None and _worker_interrupts.retired


def _worker_main(
    index: int, source: Any, inbox: Any, out: Any, environ: dict[str, str] | None = None,
    stops: tuple[int, ...] = (signal.SIGINT,),
) -> None:
    global _worker_interrupts
    watch_parent()
    interrupts = _worker_interrupts = _Interrupts()
    signal.signal(signal.SIGINT, interrupts.handler)
    if RETIRE_SIGNAL is not None:
        signal.signal(RETIRE_SIGNAL, interrupts.retire)
    # the stop signals the parent takes as Ctrl-C, to whatever handles Ctrl-C now; the others stay ignored
    for signum in stops:
        if signum != signal.SIGINT:
            signal.signal(signum, _as_ctrl_c)
    sys.unraisablehook = functools.partial(interrupts.unraisable, previous=sys.unraisablehook)
    if environ is not None:  # the parent's environment now, not as it was when the fork server started
        os.environ.clear()
        os.environ.update(environ)

    def send(kind: str, key: str | None = None, payload: Any = None) -> None:
        try:
            data = pickle.dumps(Message(kind, index, key, payload))
        except Exception:
            data = pickle.dumps(
                Message("crashed", index, key, f"cannot send the {kind} message:\n{traceback.format_exc()}")
            )
        out.put(data)

    started = time.perf_counter()
    try:
        state = source.open()
    except BaseException:
        send("crashed", None, traceback.format_exc())
        return
    send("ready", None, time.perf_counter() - started)
    while True:
        task = inbox.get()
        if task is None:
            break
        if isinstance(task, Lend):
            continue  # lent to a shrink that has ended
        key = task.key  # what the task's messages are about, while it runs
        try:
            with interrupts.arm(), lending(inbox, lambda kind, token: send(kind, key, token)):
                value = task.run(state, lambda e: send("event", key, e))
        except KeyboardInterrupt:
            send("interrupted", task.key)
        except MachineDefinitionError as exc:
            send("refused", task.key, str(exc))
        except BaseException as exc:
            if from_ctrl_c(exc):  # raised on the way out of what a Ctrl-C stopped: the interruption's
                send("interrupted", task.key)
            else:
                send("crashed", task.key, traceback.format_exc())
        else:
            send("done", task.key, value)


START_METHOD = START_METHOD_VARIABLE  # the environment variable that chooses how workers start


def start_method(environment: Environment) -> str:
    """How worker processes start: forkserver where the platform has it, else spawn; EVMSTATE_START_METHOD
    (Config.environment) chooses.
    """
    available = multiprocessing.get_all_start_methods()
    chosen = environment.start_method
    if chosen:
        if chosen not in available:
            raise UsageError(f"{START_METHOD}={chosen}: worker processes start here by {' or '.join(available)}")
        return chosen
    return "forkserver" if "forkserver" in available else "spawn"


@contextlib.contextmanager
def _stops_ignored() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP ignored while inside: a process started now starts ignoring them (an inherited SIG_IGN
    is kept).
    """
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _stops_taken() -> tuple[int, ...]:
    """The stop signals a worker takes as Ctrl-C: those this process does not ignore (nohup ignores SIGHUP)."""
    return tuple(
        signum for signum in STOP_SIGNALS if signum == signal.SIGINT or signal.getsignal(signum) != signal.SIG_IGN
    )


def start_early(environment: Environment) -> None:
    """Start the fork server now, when workers start from one: it imports what they need while this process goes on.

    Returns at once; the first worker started waits for what is left of the imports. The fork
    server lives as long as this process (later runs reuse it) and preloads the evmstate modules
    loaded now, so call this once the caller's own imports are done.
    """
    if start_method(environment) == "forkserver":
        start_fork_server(loaded_modules())


# the fork server's first preload, which ties it to the process that started it
TIE = "evmstate.scale.forkserver_tie"


def start_fork_server(preload: tuple[str, ...]) -> None:
    """Start multiprocessing's fork server (unless it runs), importing preload: modules this process loads too.

    It starts ignoring Ctrl-C, SIGTERM and SIGHUP, and so does each worker forked from it until the
    worker has its own handlers; it ends with this process (TIE), or once its workers have. It
    imports before it learns this process's sys.path (multiprocessing passes it, the server ignores
    it), with the folder it starts in first on its path: that is the standard library's, not this
    process's folder, where a project's files could stand for a package. (evmstate_cli.launch does
    the same before the CLI imports evmstate.)
    """
    from multiprocessing import forkserver

    if threading.current_thread() is threading.main_thread():  # the server dies with this thread, so with the run
        preload = (TIE, *preload)
    multiprocessing.set_forkserver_preload(list(preload))  # no effect once the server runs
    with _stops_ignored(), _in_folder(os.path.dirname(os.__file__)), _tied_to_this_process():
        forkserver.ensure_running()


@contextlib.contextmanager
def _tied_to_this_process() -> Iterator[None]:
    """This process's pid in the environment of a fork server started inside (TIE reads it), and then out of it."""
    os.environ[TIED_TO] = str(os.getpid())
    try:
        yield
    finally:
        os.environ.pop(TIED_TO, None)


@contextlib.contextmanager
def _in_folder(folder: str) -> Iterator[None]:
    """In folder while inside (a process started now starts there), then back; nowhere else if this folder cannot be
    opened.
    """
    try:
        here = os.open(".", os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        os.chdir(folder)
        yield
    finally:
        os.fchdir(here)
        os.close(here)


class WorkerCrashed(RuntimeError):
    """Raised in the parent when a worker process fails outside the user's code (an internal error)."""


def worker_killed(message: Message, pid: int | None) -> ResourceError:
    """The error of a worker whose process a signal ended (message.kind "killed"): neither the machine's doing nor
    evmstate's.
    """
    try:
        name = signal.Signals(-message.payload).name
    except ValueError:
        name = f"signal {-message.payload}"
    where = f"while running {message.key}" if message.key else "while loading the project"
    return ResourceError(
        f"worker process {message.worker} (pid {pid}) was killed by {name} {where}: "
        "something outside evmstate ended it (the "
        "kernel's out-of-memory killer sends SIGKILL). The run stops here; "
        "failures saved before it are kept. Run again, "
        "with fewer worker processes (-n) if memory is short.",
        where=f"worker process {message.worker}",
    )


class Pool:
    """Worker processes (started by start_method()), each loading source once; tasks go to idle workers one at a time.
    """

    def __init__(self, source: Any, workers: int, slots: int | None = None) -> None:
        method = start_method(source.config.environment)
        ctx = multiprocessing.get_context(method)
        self.out = ctx.Queue()
        self.inboxes = [ctx.Queue() for _ in range(workers)]
        environ = dict(os.environ) if method == "forkserver" else None
        stops = _stops_taken()
        self.processes = [
            ctx.Process(
                target=_worker_main, args=(i, source, self.inboxes[i], self.out, environ, stops),
                name=f"evmstate-worker-{i}", daemon=True,
            )
            for i in range(workers)
        ]
        self.ready: set[int] = set()
        self.busy: dict[int, Any] = {}  # worker -> the task it runs
        self.dead: set[int] = set()
        self.startup: list[float] = []  # seconds each worker took to load the project
        self.slots = max(workers, slots or 0)  # processes that may run at once: workers, and helpers lent to a shrink
        self.loans = Loans()
        if method == "forkserver":
            # the workers take Ctrl-C as the fork server does (start_early): ignored until each has
            # its handler. Starting one waits while the server still imports; Ctrl-C counts meanwhile
            start_early(source.config.environment)
            starting: Any = contextlib.nullcontext()
        else:
            # started ignoring Ctrl-C (and SIGTERM, SIGHUP) until the worker installs its own
            # handlers: a Ctrl-C while one starts up does not kill it with a traceback
            starting = _stops_ignored()
        try:
            with starting:
                for p in self.processes:
                    p.start()
        except BaseException:
            self.close(0.0)
            raise

    def idle(self) -> list[int]:
        return sorted(self.ready - set(self.busy) - self.dead)

    def send(self, worker: int, task: Any) -> None:
        self.busy[worker] = task
        self.inboxes[worker].put(task)

    def lend(self) -> None:
        """The slots no worker uses, to the workers shrinking a failure (scale/shrinking.py): call once no task is left
        to start.
        """
        self.loans.lend(self.slots - len(self.busy), lambda worker, loan: self.inboxes[worker].put(loan))

    def receive(self, timeout: float) -> list[tuple[Message, Any]]:
        """The messages that arrived within timeout, each with the task it is about; a dead worker says crashed."""
        messages: list[Message] = []
        try:
            messages.append(pickle.loads(self.out.get(timeout=timeout)))
            while True:
                messages.append(pickle.loads(self.out.get_nowait()))
        except queue.Empty:
            pass
        if not messages:
            for i, p in enumerate(self.processes):
                if i not in self.dead and p.exitcode is not None:
                    self.dead.add(i)
                    task = self.busy.get(i)
                    key = task.key if task is not None else None
                    if p.exitcode < 0:  # a signal from outside (the kernel's out-of-memory killer, a kill -9)
                        messages.append(Message("killed", i, key, p.exitcode))
                    else:
                        messages.append(Message("crashed", i, key, f"worker process {i} exited with code {p.exitcode}"))
        out = []
        for m in messages:
            if m.kind in ("shrinking", "shrunk"):  # a worker's shrink, for the loans of spare slots
                self.loans.heard(m.worker, m.kind, m.payload)
                continue
            if m.kind not in ("event", "ready"):
                self.loans.ended(m.worker)
            if m.kind == "ready":
                self.ready.add(m.worker)
                self.startup.append(m.payload)
            out.append((m, self.busy.get(m.worker) if m.kind == "event" else self.busy.pop(m.worker, None)))
        return out

    def interrupt(self, workers: list[int] | None = None, signum: int = signal.SIGINT) -> None:
        """SIGINT to every busy worker (or to those given): what it runs stops as a Ctrl-C stops it in one process."""
        for i in list(self.busy) if workers is None else workers:
            with contextlib.suppress(OSError):
                if self.processes[i].pid is not None and self.processes[i].exitcode is None:
                    os.kill(self.processes[i].pid, signum)

    def retire(self, workers: list[int]) -> None:
        """Ask these workers to stop searching at their next run (see retired()); where the platform has no
        RETIRE_SIGNAL, SIGINT.
        """
        self.interrupt(workers, RETIRE_SIGNAL if RETIRE_SIGNAL is not None else signal.SIGINT)

    def close(self, timeout: float = 5.0) -> None:
        """Ask every worker to stop, wait for it, and kill those that do not (SIGTERM would be a Ctrl-C to them)."""
        for i, inbox in enumerate(self.inboxes):
            if self.processes[i].exitcode is None:
                with contextlib.suppress(Exception):
                    inbox.put(None)
        started = [p for p in self.processes if p.pid is not None]  # all, unless starting one failed
        deadline = time.monotonic() + timeout
        for p in started:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in started:
            if p.exitcode is None:
                p.kill()
                p.join(1.0)
        for q in (self.out, *self.inboxes):
            q.close()
            q.cancel_join_thread()
