"""Mutants of one Vyper source, made on its syntax tree: each is one span of the text replaced.

The tree is vyper's own (vyper_outputs.syntax_tree: every node with its "src", the characters it
spans in the text), so a mutant never touches a comment, a string or a type: it replaces the
span of one node (or the operator between two), and keeps the number of lines, so that every
other line keeps its number in the mutant's source maps and the report.

Operators (OPERATORS): comparisons (< and <=, > and >=, == and !=), arithmetic (+ and -, * and //,
also in += and -=), integer literals one up and one down, an assert or raise removed, a state
write removed, a log removed, @nonreentrant or @payable removed, msg.sender and tx.origin swapped,
an argument or variable replaced by another of the same type in scope, += and -= made =, True
and False flipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

Node = dict[str, Any]

OPERATORS = (
    "comparison",
    "arithmetic",
    "off by one",
    "assert removed",
    "raise removed",
    "state write removed",
    "log removed",
    "decorator removed",
    "sender swapped",
    "variable swapped",
    "augmented assignment",
    "boolean flipped",
)

_COMPARISONS = {"<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="]}
_ARITHMETIC = {"+": ["-"], "-": ["+"], "*": ["//"], "//": ["*"]}
_AUGMENTED = {"+=": ["-="], "-=": ["+="], "*=": ["//="], "//=": ["*="]}
# every binary operator token: the one before an operand is found among them, then mutated if it has mutants
_EVERY_OPERATOR = (
    "<", "<=", ">", ">=", "==", "!=", "+", "-", "*", "//", "/", "%", "**", "&", "|", "^", "<<", ">>", "in", "not in",
)
_REMOVABLE_DECORATORS = ("nonreentrant", "payable")
_SENDERS = {"msg.sender": "tx.origin", "tx.origin": "msg.sender"}
# mutating methods of a storage DynArray: a call of one is a state write
_WRITING_METHODS = ("append", "pop")


@dataclass(frozen=True)
class Mutant:
    """One change to one source: text[start:start + length] becomes replacement."""

    path: str  # the source file, resolved
    start: int  # in characters of the text
    length: int
    replacement: str
    operator: str  # one of OPERATORS
    line: int  # the first line changed (1-based)
    end_line: int
    function: str  # the function it is in; "" at module level (a constant)
    before: str  # the changed lines as they were, each stripped, joined by spaces
    after: str  # the same lines in the mutant ("" when they are gone)
    # the lines whose coverage says whether a run reaches the change (a decorator: its whole function)
    reach: tuple[int, int] = (0, 0)

    def apply(self, text: str) -> str:
        """The mutant's source."""
        return text[: self.start] + self.replacement + text[self.start + self.length :]

    @property
    def diff(self) -> str:
        """The change as one line: before → after."""
        return f"{self.before}  →  {self.after or '(removed)'}"


def span(node: Node) -> tuple[int, int]:
    """(start, end) of a node in characters of its source."""
    start, length, _ = node["src"].split(":")
    return int(start), int(start) + int(length)


def children(node: Node) -> Iterator[tuple[str, Node]]:
    """(field, child) of every node directly below node, in field order."""
    for key, value in node.items():
        if isinstance(value, dict) and "ast_type" in value:
            yield key, value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and "ast_type" in item:
                    yield key, item


# fields that hold types, not values: nothing below them is mutated
_TYPE_FIELDS = ("annotation", "returns")


@dataclass
class _Scope:
    """The names a point of a function can read, with their types (the annotation's text)."""

    names: dict[str, str] = field(default_factory=dict)


class _Maker:
    """Walks one source's tree and collects its mutants."""

    def __init__(self, path: str, text: str, tree: Node) -> None:
        self.path = path
        self.text = text
        self.tree = tree
        self.starts = [0]  # the character where each line starts
        for m in re.finditer("\n", text):
            self.starts.append(m.end())
        self.found: list[Mutant] = []
        self.function = ""
        self.function_lines = (0, 0)
        self.modules: set[str] = set()  # names of imported modules: their variables are state too

    # -- positions -----------------------------------------------------------------------

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def source(self, node: Node) -> str:
        a, b = span(node)
        return self.text[a:b]

    def type_of(self, annotation: Node | None) -> str:
        return re.sub(r"\s+", "", self.source(annotation)) if annotation is not None else ""

    def add(self, start: int, end: int, replacement: str, operator: str, reach: tuple[int, int] | None = None) -> None:
        """A mutant replacing text[start:end]; the replacement keeps the number of lines."""
        first, last = self.line_of(start), self.line_of(max(start, end - 1))
        replacement += "\n" * max(0, self.text.count("\n", start, end) - replacement.count("\n"))
        line_start, line_end = (
            self.starts[first - 1], self.starts[last] - 1 if last < len(self.starts) else len(self.text),
        )
        before = " ".join(s.strip() for s in self.text[line_start:line_end].splitlines() if s.strip())
        changed = self.text[line_start:start] + replacement + self.text[end:line_end]
        after = " ".join(s.strip() for s in changed.splitlines() if s.strip() and not s.strip().startswith("#"))
        if after == before:
            return
        self.found.append(
            Mutant(
                self.path, start, end - start, replacement, operator, first, last, self.function, before, after,
                reach or (first, last),
            )
        )

    def before(self, right: Node, tokens: Iterable[str]) -> tuple[str, int] | None:
        """The operator token written just before an operand (brackets and blanks between them), and where it stands.

        Found from the right operand's start: vyper's end positions are off inside some
        statements (a log's arguments), its start positions are not.
        """
        at = span(right)[0]
        while at > 0 and self.text[at - 1] in " \t\n(\\":
            at -= 1
        for token in sorted(tokens, key=len, reverse=True):
            start = at - len(token)
            if start >= 0 and self.text[start:at] == token and (start == 0 or self.text[start - 1] not in "<>=!*/+-"):
                return token, start
        return None

    # -- the walk ------------------------------------------------------------------------

    def run(self) -> list[Mutant]:
        body = self.tree.get("body", [])
        for node in body:
            if node["ast_type"] in ("Import", "ImportFrom"):
                self.modules.add(node.get("alias") or node.get("name") or "")
        for node in body:
            kind = node["ast_type"]
            if kind == "VariableDecl" and node.get("is_constant") and node.get("value") is not None:
                self.function, self.function_lines = "", (0, 0)
                self.expression(node["value"], _Scope())
            elif kind == "FunctionDef":
                self.function_def(node)
        self.found.sort(key=lambda m: (m.start, m.length, OPERATORS.index(m.operator), m.replacement))
        return self.found

    def function_def(self, node: Node) -> None:
        self.function = node["name"]
        a, b = span(node)
        first = min([self.line_of(span(d)[0]) for d in node.get("decorator_list", [])] + [self.line_of(a)])
        self.function_lines = (first, self.line_of(max(a, b - 1)))
        for decorator in node.get("decorator_list", []):
            target = decorator.get("func", decorator) if decorator["ast_type"] == "Call" else decorator
            if target.get("id") in _REMOVABLE_DECORATORS:
                start, end = span(decorator)
                if start > 0 and self.text[start - 1] == "@":
                    self.add(start - 1, end, "", "decorator removed", reach=self.function_lines)
        scope = _Scope()  # arguments and local variables: what "variable swapped" draws from
        for arg in node.get("args", {}).get("args", []):
            scope.names[arg["arg"]] = self.type_of(arg.get("annotation"))
        self.block(node.get("body", []), scope)

    def block(self, statements: list[Node], outer: _Scope) -> None:
        scope = _Scope(dict(outer.names))  # what a block declares ends with it
        for statement in statements:
            self.statement(statement, scope)

    def whole_lines(self, start: int, end: int) -> bool:
        """Whether text[start:end] is whole statements: only blanks before it on its first line, only blanks or a
        comment after it on its last.

        vyper's positions are off inside some statements (a log's arguments): a span that is not
        where the text says it is makes no mutant.
        """
        before = self.text[self.starts[self.line_of(start) - 1] : start]
        line_end = self.text.find("\n", end)
        after = self.text[end : line_end if line_end >= 0 else len(self.text)].strip()
        return not before.strip() and (not after or after.startswith("#"))

    def statement(self, node: Node, scope: _Scope) -> None:
        kind = node["ast_type"]
        start, end = span(node)
        if not self.whole_lines(start, end):
            pass
        elif kind == "Assert":
            self.add(start, end, "pass", "assert removed")
        elif kind == "Raise":
            self.add(start, end, "pass", "raise removed")
        elif kind == "Log":
            self.add(start, end, "pass", "log removed")
        elif kind in ("Assign", "AugAssign") and self.writes_state(node["target"]):
            self.add(start, end, "pass", "state write removed")
        elif kind == "Expr" and self.appends_to_state(node.get("value")):
            self.add(start, end, "pass", "state write removed")
        if kind == "AugAssign":
            self.augmented(node)
        if kind == "For":
            self.for_loop(node, scope)
            return
        for key, child in children(node):
            if key in _TYPE_FIELDS:
                continue
            if key in ("body", "orelse"):
                continue
            if key == "target" and kind in ("Assign", "AugAssign", "AnnAssign"):
                self.target(child, scope)
                continue
            self.expression(child, scope)
        for key in ("body", "orelse"):
            if isinstance(node.get(key), list) and node[key]:
                self.block(node[key], scope)
        if kind == "AnnAssign" and node["target"]["ast_type"] == "Name":
            scope.names[node["target"]["id"]] = self.type_of(node.get("annotation"))

    def for_loop(self, node: Node, scope: _Scope) -> None:
        self.expression(node["iter"], scope)
        inner = _Scope(dict(scope.names))
        target = node.get("target") or {}
        if target.get("ast_type") == "AnnAssign" and target.get("target", {}).get("ast_type") == "Name":
            inner.names[target["target"]["id"]] = self.type_of(target.get("annotation"))
        self.block(node.get("body", []), inner)

    def target(self, node: Node, scope: _Scope) -> None:
        """An assignment's target: the indexes it reads are mutated, the names it writes are not."""
        if node["ast_type"] == "Name":
            return
        for key, child in children(node):
            if node["ast_type"] == "Tuple" or (
                key == "value" and child["ast_type"] in ("Name", "Attribute", "Subscript")
            ):
                self.target(child, scope)
            else:
                self.expression(child, scope)

    def root(self, node: Node) -> Node | None:
        found: Node | None = node
        while found is not None and found["ast_type"] in ("Attribute", "Subscript"):
            found = found.get("value")
        return found

    def writes_state(self, target: Node) -> bool:
        if target["ast_type"] == "Tuple":
            return any(self.writes_state(t) for t in target.get("elements", []))
        root = self.root(target)
        return (
            root is not None and root is not target and root.get("ast_type") == "Name"
            and (root.get("id") == "self" or root.get("id") in self.modules)
        )

    def appends_to_state(self, call: Node | None) -> bool:
        if not call or call["ast_type"] != "Call" or call["func"]["ast_type"] != "Attribute":
            return False
        return call["func"].get("attr") in _WRITING_METHODS and self.writes_state(call["func"]["value"])

    def augmented(self, node: Node) -> None:
        found = self.before(node["value"], _AUGMENTED)
        if found is None:
            return
        token, start = found
        for other in _AUGMENTED[token]:
            self.add(start, start + len(token), other, "arithmetic")
        if token in ("+=", "-="):
            self.add(start, start + len(token), "=", "augmented assignment")

    # -- expressions -----------------------------------------------------------------------

    def expression(self, node: Node, scope: _Scope, parent: Node | None = None) -> None:
        kind = node["ast_type"]
        start, end = span(node)
        if kind == "Compare":
            self.operator(node, _COMPARISONS, "comparison")
        elif kind == "BinOp" and node["op"]["ast_type"] != "Pow":
            self.operator(node, _ARITHMETIC, "arithmetic")
        elif kind == "Int" and not (
            parent is not None and parent["ast_type"] == "BinOp" and parent["op"]["ast_type"] == "Pow"
        ):
            value = node["value"]
            if value < 0 and start > 0 and self.text[start - 1] == "-":
                start -= 1
            written = _INTEGER.match(self.text, start)
            end = written.end() if written else end
            if _literal(self.text[start:end]) == value:  # where vyper says it is
                self.add(start, end, str(value + 1), "off by one")
                if value != 0:
                    self.add(start, end, str(value - 1), "off by one")
        elif kind == "NameConstant" and isinstance(node.get("value"), bool):
            if self.text[start:end] == str(node["value"]):
                self.add(start, end, "False" if node["value"] else "True", "boolean flipped")
        elif kind == "Attribute" and self.text[start:end] in _SENDERS:
            self.add(start, end, _SENDERS[self.text[start:end]], "sender swapped")
            return
        elif (
            kind == "Name" and node.get("id") in scope.names
            and self.text[start : start + len(node["id"])] == node["id"]
        ):
            end = start + len(node["id"])  # vyper's end is off inside a log's arguments
            own = scope.names[node["id"]]
            for other, typ in sorted(scope.names.items()):
                if other != node["id"] and typ == own and typ:
                    self.add(start, end, other, "variable swapped")
            return
        for key, child in children(node):
            if key in _TYPE_FIELDS:
                continue
            if kind == "Call" and key == "func":
                if child["ast_type"] == "Attribute":  # a method's object is read: x.f() of an interface value
                    self.expression(child["value"], scope, child)
                continue
            if (
                kind == "Attribute" and key == "value" and child["ast_type"] == "Name"
                and child.get("id") not in scope.names
            ):
                continue  # self.x, module.x, msg.value: not a value to swap
            self.expression(child, scope, node)

    def operator(self, node: Node, table: dict[str, list[str]], name: str) -> None:
        found = self.before(node["right"], _EVERY_OPERATOR)
        if found is None or found[0] not in table:
            return
        token, start = found
        for other in table[token]:
            self.add(start, start + len(token), other, name)


_INTEGER = re.compile(r"-?(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|\d[\d_]*)")


def _literal(text: str) -> int | None:
    """The value of an integer literal as written (-5, 1_000, 0x10), None when text is not one."""
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        return None


def make_mutants(path: str, text: str, tree: Node) -> list[Mutant]:
    """Every mutant of one source, in the order of the text."""
    return _Maker(path, text, tree).run()
