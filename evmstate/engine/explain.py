"""Failures found on one backend explained on another: divergences between revm and py-evm, and reverts
replayed on py-evm for their source lines."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from ..contracts.project import Project
from ..failures import decode_value
from ..spec import MachineSpec
from . import delays
from .tracebacks import ErrorInfo, FailureSignature, describe_call, describe_error
from .events import Failure
from .program import Diverged, InitFailed, init_class, live_program_lines, provide, run_program


def divergence_failure(name: str, path: str, project: Project, diverged: Diverged) -> Failure:
    d = diverged.divergence
    steps = diverged.steps
    index = d.index - steps[-1].first_call if steps else d.index
    where = f"step {len(steps)} ({steps[-1].line()})" if steps else "before the first step"
    call = describe_call(project, d.sender, d.to, d.data, d.value)
    kind = {"transact": "transaction", "call": "call"}.get(d.kind, "read")
    message = f"revm and py-evm differ at {where}, in its call {index} (a {kind}): {call}\n  {d.what}"
    lines = live_program_lines(name, steps)
    return Failure(
        name=name, path=path, error=ErrorInfo("BackendDivergence", message), program=lines, steps=len(steps),
        recorded=tuple(s.recorded() for s in steps),
    )


def with_message(failure: Failure, message: str) -> Failure:
    return dataclasses.replace(failure, error=dataclasses.replace(failure.error, message=message))


def test_explained_on_py_evm(fn: Any, project: Project, failure: Failure) -> Failure:
    """A property test's failing example run again on py-evm, for source lines (see explained_on_py_evm)."""
    if not failure.recorded:
        return failure
    reference = project.reference()
    error = None
    try:
        args = {
            k: decode_value(v, accounts=reference.accounts, refs={}) for k, v in failure.recorded[0].arguments.items()
        }
        kwargs = provide([n for n in inspect.signature(fn).parameters if n not in args], reference, failure.name)
        with reference.backend.anchor():
            fn.hypothesis.inner_test(**kwargs, **args)
    except Exception as exc:
        error = exc
    return with_reference_error(failure, error, None)


def with_reference_error(failure: Failure, error: BaseException | None, problem: str | None) -> Failure:
    """The failure as py-evm reported it when it failed the same way; else the first report, with a note."""
    if error is not None and FailureSignature.of(error) == FailureSignature.of_error(failure.error):
        # py-evm's message, location and explained call; the revert reason stays the first backend's
        again = ErrorInfo.of(error)
        return dataclasses.replace(
            failure,
            error=dataclasses.replace(
                again, type=failure.error_type, invariant=failure.invariant, revert_reason=failure.revert_reason
            ),
        )
    if problem is None:
        first_line = (describe_error(error)[1].splitlines() or [""])[0] if error is not None else ""
        problem = "it passes" if error is None else f"it fails differently: {type(error).__name__}: {first_line}"
    note = (
        f"\n(Replayed on py-evm for its source lines, the program does not fail the same way: {problem}. "
        "The backends differ here: run with --backend-check.)"
    )
    return with_message(failure, failure.message + note)


def explained_on_py_evm(
    spec: MachineSpec, project: Project, failure: Failure, init_args: tuple[Any, ...] | None
) -> Failure:
    """The failure's program replayed on py-evm, whose failed calls name their source line, check and dev comment.

    A backend without per-opcode hooks (revm) reports reverts by their data alone; the replay
    makes the report as explained as on py-evm. Should py-evm not fail the same way, the
    report keeps the first backend's error and says so.
    """
    reference = project.reference()
    if init_args is not None:
        # __init__ was given the project's objects (pytest's fixtures): the reference's own, by kind
        same = {id(project.accounts): reference.accounts, id(project.chain): reference.chain}
        same.update({id(c): reference.provide(name) for name, c in project.containers.items()})
        others = [type(a).__name__ for a in init_args if id(a) not in same]
        if others:
            note = (
                "\n(Not replayed on py-evm, so reverts show no source lines: "
                f"__init__ takes objects that exist only on this chain: {', '.join(others)}.)"
            )
            return with_message(failure, failure.message + note)
        init_args = tuple(same[id(a)] for a in init_args)
    cls = spec.cls
    saved = dict(vars(cls))  # the class-level __init__ rebinds class attributes: put them back after
    backend = reference.backend
    outer = backend.snapshot()
    ran = None
    problem = None
    try:
        init_class(spec, reference, init_args)
        ran = run_program(spec, reference, failure.recorded)
    except InitFailed as failed:
        problem = f"{type(failed.error).__name__}: {failed.error}"
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    finally:
        backend.revert(outer)
        backend.release(outer)
        for key in [k for k in vars(cls) if k not in saved]:
            delattr(cls, key)
        for key, value in saved.items():
            if vars(cls).get(key, value) is not value:
                setattr(cls, key, value)
    return with_reference_error(failure, ran.error if ran is not None else None, problem)


def time_hint(failure: Failure, project: Project) -> str | None:
    """A line for a revert in a view call or an invariant that the program's waits lead to: the clock moving may be the
    cause.

    A contract that expects the clock to stand still between calls (a price feed an off-chain
    keeper refreshes) fails once evmstate lets time pass, where a test that never moves the clock passes.
    """
    waits = [step.delay for step in failure.recorded]
    if (
        all(w == delays.NO_DELAY for w in waits) or failure.call_failure is None
        or "contract" not in failure.call_failure
    ):
        return None
    contract, function = failure.call_failure.get("contract"), failure.call_failure.get("function")
    artifact = project.artifacts.get(contract) if contract else None
    view = artifact is not None and any(
        e.get("name") == function and e.get("stateMutability") in ("view", "pure")
        for e in artifact.abi
        if e.get("type") == "function"
    )
    if failure.invariant is None and not view:
        return None
    seconds, blocks = sum(w[0] for w in waits), sum(w[1] for w in waits)
    moved = " and ".join(x for x in (f"{seconds} s" if seconds else "", f"{blocks} blocks" if blocks else "") if x)
    needs = "needs" if failure.stopped is None else "may need"
    return (
        f"this failure {needs} the program's waits (the clock moved {moved}): a revert in "
        f"{'an invariant' if failure.invariant else 'a view call'} after time passed. "
        "If the contract expects the clock to stand "
        'still between calls (a price feed refreshed off-chain), set settings = {"max_time_delay": 0, '
        '"max_block_delay": 0} on the machine'
    )
