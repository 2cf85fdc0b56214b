"""Hypothesis's pool of local constants holds the user's code only, never evmstate's own.

Hypothesis sometimes draws a value from the literals (numbers, strings, bytes) in the source of
the "local" modules loaded: those outside site-packages and the standard library, tests
excluded. evmstate's own modules are local in an editable install (a checkout, CI) and not in a
wheel install (a user's), so a seed gave other programs depending on how evmstate was
installed. So the pool is the user's machines and whatever else of theirs is loaded, never
evmstate's modules (nor the CLI's), however evmstate was installed: what a wheel install did.

Hypothesis has no public way to choose the pool. The providers module (the alternative-backend
interface, guidance.py's too) asks one function, `is_local_module_file(path)`, whether a
loaded module's file counts; this wraps it to say no for evmstate's files. It must be in place
before Hypothesis first reads a module of evmstate's, which it does only when a test draws (or
when pytest collects). Importing this module imports no Hypothesis (`evmstate --help` loads it);
the wrap is made by Hypothesis itself as it is imported, through its documented "hypothesis" entry
point (pyproject.toml names leave_evmstate_out), and again by evmstate/__init__.py where Hypothesis
was imported first or an entry point was not installed. tests/unit/test_constants.py checks the
pool, and tests/cli/test_wheel_install.py compares the programs a seed gives from a wheel and from
a checkout.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def _folders() -> tuple[str, ...]:
    """The folders of evmstate's packages (the library and the CLI, which may lie apart)."""
    found = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # evmstate/, above search/
    spec = importlib.util.find_spec("evmstate_cli")  # finds the folder; imports nothing
    if spec is not None and spec.submodule_search_locations:
        found.extend(spec.submodule_search_locations)
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in found)


def is_evmstate_file(path: str) -> bool:
    """Whether path is a source file of evmstate or its CLI."""
    return os.path.realpath(path).startswith(FOLDERS)


FOLDERS = _folders()


PROVIDERS = "hypothesis.internal.conjecture.providers"


def leave_evmstate_out(only_if_loaded: bool = False) -> None:
    """Keep evmstate's own modules out of Hypothesis's local constants, however it was installed.

    only_if_loaded: only where Hypothesis's providers module is loaded already (no import of it).
    """
    if only_if_loaded and PROVIDERS not in sys.modules:
        return
    from hypothesis.internal.conjecture import providers

    check = getattr(providers, "is_local_module_file", None)
    if check is None or getattr(check, "leaves_evmstate_out", False):
        return  # a Hypothesis without local constants, or done already

    def is_local_module_file(path: str) -> bool:
        return not is_evmstate_file(path) and check(path)

    is_local_module_file.leaves_evmstate_out = True  # type: ignore[attr-defined]
    providers.is_local_module_file = is_local_module_file
