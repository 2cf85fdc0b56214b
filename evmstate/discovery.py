"""Finds state machines and property tests by convention, importing machine modules."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Config
from .errors import UsageError
from .machine import is_machine
from .runner import LoadFailed


@dataclass(frozen=True)
class Item:
    """One runnable thing: a machine class or a property test function."""

    kind: str  # "machine" or "test"
    path: str
    name: str
    obj: Any


def _compare_message(left: Any, op: str, right: Any) -> str:
    return f"assert {left!r} {op} {right!r}"


_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


class _AssertRewriter(ast.NodeTransformer):
    """`assert a == b` without a message fails with "assert <a> == <b>", the compared values shown."""

    def __init__(self) -> None:
        self.count = 0

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        test = node.test
        if node.msg is not None or not isinstance(test, ast.Compare) or len(test.ops) != 1 or type(test.ops[0]) not in _OPS:
            return node
        self.count += 1
        left_name, right_name = f"_evmstate_l{self.count}", f"_evmstate_r{self.count}"
        new_test = ast.Compare(
            left=ast.NamedExpr(target=ast.Name(left_name, ast.Store()), value=test.left),
            ops=test.ops,
            comparators=[ast.NamedExpr(target=ast.Name(right_name, ast.Store()), value=test.comparators[0])],
        )
        msg = ast.Call(
            func=ast.Name("_evmstate_compare_message", ast.Load()),
            args=[ast.Name(left_name, ast.Load()), ast.Constant(_OPS[type(test.ops[0])]), ast.Name(right_name, ast.Load())],
            keywords=[],
        )
        return ast.copy_location(ast.Assert(test=new_test, msg=msg), node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        # walrus is not allowed directly in a class body; only rewrite inside functions
        node.body = [self.visit(n) if not isinstance(n, ast.Assert) else n for n in node.body]
        return node


def load_module(path: Path) -> Any:
    """Import a machine module from its path, with assert messages that show compared values."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    tree = ast.fix_missing_locations(_AssertRewriter().visit(tree))
    code = compile(tree, str(path), "exec")
    name = f"evmstate_machines.{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module._evmstate_compare_message = _compare_message  # type: ignore[attr-defined]
    sys.modules[name] = module
    parent = str(path.parent)
    added = parent not in sys.path
    if added:
        sys.path.insert(0, parent)
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        if added:
            sys.path.remove(parent)
    return module


def _import_error(path: Path, exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    if isinstance(exc, SyntaxError):
        return f"{path}:{exc.lineno}: cannot import: SyntaxError: {exc.msg}\n    {(exc.text or '').strip()}"
    if frames:
        f = frames[-1]
        return f"{path}:{f.lineno}: cannot import: {type(exc).__name__}: {exc}\n    {f.line}"
    return f"{path}: cannot import: {type(exc).__name__}: {exc}"


def _files(config: Config, paths: tuple[str, ...]) -> list[tuple[Path, str | None]]:
    if not paths:
        folder = config.machines_dir
        if not folder.is_dir():
            raise UsageError(f"no machines folder at {folder}. Create it and put state machines in it, or give paths: evmstate run path/to/machines.py")
        return [(p, None) for p in sorted(folder.rglob("*.py")) if not p.name.startswith("_")]
    out: list[tuple[Path, str | None]] = []
    for raw in paths:
        text, _, selector = raw.partition("::")
        p = Path(text)
        if not p.is_absolute():
            p = (Path.cwd() / p).resolve()
        if p.is_dir():
            out.extend((f, None) for f in sorted(p.rglob("*.py")) if not f.name.startswith("_"))
        elif p.is_file() and p.suffix == ".py":
            out.append((p, selector or None))
        else:
            raise UsageError(f"{raw}: no such machine file or folder. Give a .py file, a folder, or file.py::MachineName.")
    return out


def discover(config: Config, paths: tuple[str, ...] = (), keyword: str | None = None) -> tuple[list[Item], list[LoadFailed]]:
    """Machines (classes) and property tests (@given test_* functions) in the given files."""
    items: list[Item] = []
    errors: list[LoadFailed] = []
    files = _files(config, paths)
    _load_the_rest(config, {p.resolve() for p, _ in files})
    for path, selector in files:
        shown = _relative(path, config.root)
        try:
            module = load_module(path)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            errors.append(LoadFailed(shown, _import_error(path, exc)))
            continue
        found: list[Item] = []
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if is_machine(obj):
                found.append(Item("machine", shown, name, obj))
            elif name.startswith("test_") and callable(obj) and hasattr(obj, "hypothesis"):
                found.append(Item("test", shown, name, obj))
        if selector is not None:
            chosen = [i for i in found if i.name == selector]
            if not chosen:
                names = ", ".join(i.name for i in found) or "none"
                raise UsageError(f"{shown}::{selector}: no machine or property test named {selector!r}; found {names}")
            found = chosen
        if keyword:
            found = [i for i in found if _matches(keyword, i)]
        items.extend(found)
    return items, errors


def _load_the_rest(config: Config, selected: set[Path]) -> None:
    """Import the machines folder's modules that were not selected, ignoring their errors.

    Hypothesis draws some values from the constants in the source of every local module
    loaded so far: with every module of the project loaded whatever -k or the paths select,
    a machine given the same seed runs the same program alone or with the others.
    """
    folder = config.machines_dir
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob("*.py")):
        if path.name.startswith("_") or path.resolve() in selected:
            continue
        try:
            load_module(path)
        except Exception:
            pass  # not selected: its errors are not this run's


def _matches(expr: str, item: Item) -> bool:
    """-k: a substring of the name, with 'not', 'and', 'or' as in pytest."""
    words = expr.replace("(", " ( ").replace(")", " ) ").split()
    target = f"{item.path}::{item.name}".lower()
    py = []
    for w in words:
        if w in ("and", "or", "not", "(", ")"):
            py.append(w)
        else:
            py.append(repr(w.lower() in target))
    try:
        return bool(eval(" ".join(py), {"__builtins__": {}}))
    except SyntaxError:
        raise UsageError(f"-k {expr!r}: not a valid expression; use names with 'and', 'or', 'not'") from None


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
