"""User modules loaded as machine files are: machines, and the deployments file.

Each is imported from its path with assert messages that show the compared values, and an
import that fails is told as the user's error, with their traceback.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import io
import sys
import tokenize
import traceback
from pathlib import Path
from typing import Any

from ..errors import from_ctrl_c
from ..files import Undecodable, decode
from ..values import format_value
from .tracebacks import describe_error


def _compare_message(left: Any, op: str, right: Any) -> str:
    return f"assert {format_value(left)} {op} {format_value(right)}"


_OPS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}


class _AssertRewriter(ast.NodeTransformer):
    """`assert a == b` without a message fails with "assert <a> == <b>", the compared values shown."""

    def __init__(self) -> None:
        self.count = 0

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        test = node.test
        if (
            node.msg is not None or not isinstance(test, ast.Compare) or len(test.ops) != 1
            or type(test.ops[0]) not in _OPS
        ):
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
            args=[
                ast.Name(left_name, ast.Load()), ast.Constant(_OPS[type(test.ops[0])]),
                ast.Name(right_name, ast.Load()),
            ],
            keywords=[],
        )
        return ast.copy_location(ast.Assert(test=new_test, msg=msg), node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        # walrus is not allowed directly in a class body; only rewrite inside functions
        node.body = [self.visit(n) if not isinstance(n, ast.Assert) else n for n in node.body]
        return node


def load_module(path: Path) -> Any:
    """Import a machine module from its path, with assert messages that show compared values."""
    source = read_source(path)
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
    except BaseException as exc:
        sys.modules.pop(name, None)
        if from_ctrl_c(exc):  # a Ctrl-C while its classes were being made comes out as Python's RuntimeError
            raise KeyboardInterrupt from exc
        raise
    finally:
        if added:
            sys.path.remove(parent)
    return module


def read_source(path: Path) -> str:
    """A machine file's text, in the encoding it declares (PEP 263; else UTF-8): a SyntaxError at the line that cannot
    be read, as Python's own import raises.
    """
    data = path.read_bytes()
    try:
        try:
            encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        # its first lines are not UTF-8 (decode() says where), or declare an encoding Python does not know
        except SyntaxError as e:
            decode(data)
            raise SyntaxError(
                f"cannot read: {e}; declare an encoding Python knows, or none (UTF-8)", (str(path), None, None, None)
            ) from None
        return decode(data, encoding)
    except Undecodable as e:
        raise SyntaxError(f"cannot read: {e.problem}", (str(path), e.line or None, e.column or None, None)) from None


def import_error(path: Path, shown: str, exc: BaseException) -> str:
    """Where the import failed in the machine file, and the user's traceback when it went deeper."""
    if isinstance(exc, SyntaxError) and exc.filename == str(path):
        where = f"{shown}:{exc.lineno}" if exc.lineno else shown
        return f"{where}: cannot import: SyntaxError: {exc.msg}" + (
            f"\n    {exc.text.strip()}" if exc.text and exc.text.strip() else ""
        )
    # the last of the file's frames only (walked, not extracted: a recursion holds thousands)
    walked = traceback.walk_tb(exc.__traceback__)
    mine = [(frame, line) for frame, line in walked if frame.f_code.co_filename == str(path)]
    frames = traceback.StackSummary.extract(iter(mine[-1:]))
    head = f"{shown}:{frames[-1].lineno}: cannot import: " if frames else f"{shown}: cannot import: "
    error_type, message, _, tb = describe_error(exc)
    text = f"{head}{error_type}: {message}"
    if frames:
        text += f"\n    {frames[-1].line}"
    deeper = [line for line in tb.splitlines() if line.startswith("  File ")]
    # the line above says where: the traceback is for code the machine called (other files, or calls within it), not
    # for a class body's line (its two frames: the module's and the class's)
    elsewhere = [line for line in deeper if not line.startswith((f'  File "{shown}"', f'  File "{path}"'))]
    if elsewhere or len(deeper) > 2 or (deeper and not frames):
        text += "\nTraceback (user code):\n" + tb.rstrip()
    return text
