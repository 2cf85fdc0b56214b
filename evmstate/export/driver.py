"""A machine driven by hand, as an exported pytest test drives it: `state.rule(...)` runs a rule, then invariants."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable

from ..contracts.project import Project
from ..errors import UsageError
from ..spec.machine import MachineSpec, collect
from ..engine.loader import load_module
from ..engine.program import (
    InitFailed,
    SetupFailed,
    check_all_invariants,
    init_class,
    new_machine,
    produced,
    restore_class,
    set_up,
)
from ..engine.verdicts import escaped


class MachineDriver:
    """One instance of a machine, set up, whose rules are called as the printed program calls them.

    `state.rule_x(a=1)` runs the rule with those arguments (its wait is the program's `chain.sleep`
    line before it), then checks every invariant, as a step of `evmstate run` does; it returns the
    value the rule put into a bundle (a tuple of them when it put several), else what it returned.
    """

    def __init__(self, spec: MachineSpec, machine: Any) -> None:
        self._spec = spec
        self._machine = machine
        self._rules = {r.name: r for r in (*spec.initializers, *spec.rules)}

    def __getattr__(self, name: str) -> Callable[..., Any]:
        rules = self.__dict__.get("_rules", {})
        if name not in rules:
            known = ", ".join(rules) or "none"
            raise AttributeError(
                f"{self._spec.name} has no rule {name!r} (renamed since the test was exported?); its rules: {known}"
            )
        return lambda **arguments: self._step(name, arguments)

    def _step(self, name: str, arguments: dict[str, Any]) -> Any:
        rule = self._rules[name]
        try:
            result = rule.function(self._machine, **arguments)
        except BaseException as exc:
            wrapped = escaped(exc)
            if wrapped is None:
                raise
            raise wrapped from None
        check_all_invariants(self._spec, self._machine)
        values = [value for _, value in produced(rule, result)]
        if not values:
            return result
        return values[0] if len(values) == 1 else tuple(values)


@contextlib.contextmanager
def driven(project: Project) -> Any:
    """Inside, a function (path, name) -> MachineDriver: the machine `name` of the module at path (from the root).

    Its class-level __init__ runs with the project's accounts, contracts and deployments, then a new
    instance's setup() and the invariants; on leaving, the instance's context managers close and the
    class attributes __init__ set are put back. The caller reverts the chain.
    """
    opened: list[tuple[type, dict[str, Any], contextlib.ExitStack]] = []

    def machine(path: str | Path, name: str) -> MachineDriver:
        source = project.config.root / path
        if not source.is_file():
            raise UsageError(f"evmstate_machine: no machine module {path} under {project.config.root}")
        cls = getattr(load_module(source), name, None)
        if not isinstance(cls, type):
            raise UsageError(
                f"evmstate_machine: {path} has no machine class {name!r} (renamed since the test was exported?)"
            )
        spec = collect(cls)
        before = dict(vars(cls))
        instance = new_machine(spec)
        opened.append((cls, before, instance._evmstate_stack))
        try:
            init_class(spec, project)
            set_up(instance)
        except (InitFailed, SetupFailed) as failed:
            raise failed.error from None  # the machine's own exception, with its traceback
        check_all_invariants(spec, instance)
        return MachineDriver(spec, instance)

    try:
        yield machine
    finally:
        for cls, before, stack in reversed(opened):
            stack.close()
            restore_class(cls, before)
