"""The import scan that tells whether the build cache holds a source: every file it compiles from, found as vyper
finds them, each text parsed once per process."""

from __future__ import annotations

import copy
import dataclasses
import warnings
from pathlib import Path
from typing import Any

from vyper.compiler.input_bundle import FilesystemInputBundle
from vyper.semantics.analysis import imports as vyper_imports

from . import releases
from ..files import Bounded

# sha256 of the text -> vyper's AST of that file, used only to find its imports; and (resolved path, sha256) -> that AST
# placed at the path. A copy of a project (a test's, a worker's) holds the same texts at other paths: it is parsed once
_PARSED: Bounded[str, Any] = Bounded(1025)
_PLACED: Bounded[tuple[str, str], Any] = Bounded(2049)


def _placed(parsed: Any, file: Any) -> Any:
    """The module parsed from the same text at another path, at file's path: a copy of its top node (which relative
    imports and import cycles are told by), sharing the statements below it, which the scan only reads."""
    module = copy.copy(parsed)
    module.resolved_path, module.source_id = file.resolved_path.as_posix(), file.source_id
    module.path = module.resolved_path
    return module


class _ImportScan(vyper_imports.ImportAnalyzer):
    """vyper's own import resolution, parsing each text once per process.

    Only for telling whether the cache holds a source: a compile resolves again with a fresh
    CompilerData, whose ASTs the type checker may annotate.
    """

    def _ast_from_file(self, file: Any) -> Any:
        key = (str(file.resolved_path), file.sha256sum)
        if key not in _PLACED:
            parsed = _PARSED.get(file.sha256sum)
            if parsed is None:
                # read past the version pragmas: a source pinned to another release has the same imports
                parsed = _PARSED[file.sha256sum] = super()._ast_from_file(
                    dataclasses.replace(file, contents=releases.without_version_pragmas(file.contents))
                )
            here = str(parsed.resolved_path) == file.resolved_path.as_posix()
            _PLACED[key] = parsed if here else _placed(parsed, file)
        return _PLACED[key]


def _inputs_of(file_input: Any, imports: Any) -> dict[Path, str]:
    inputs = {Path(file_input.resolved_path): file_input.sha256sum}
    for item in imports.compiler_inputs:
        if not item.from_builtin:  # builtins come with the compiler, whose version is in the key
            inputs.setdefault(Path(item.resolved_path), item.sha256sum)
    return inputs


def scan(path: Path, search: list[Path]) -> tuple[dict[Path, str], bool]:
    """Every file path compiles from, found as CompilerData finds them (the file's own folder first), and whether it
    exposes anything."""
    bundle = FilesystemInputBundle(list(search))
    file_input = bundle.load_file(path)
    with warnings.catch_warnings():
        # what vyper warns of while parsing is said by the compile (vyper_outputs), once per source
        warnings.simplefilter("ignore")
        with bundle.search_path(Path(file_input.resolved_path).parent):
            analyzer = _ImportScan(bundle, vyper_imports._ImportGraph(), None)
            analyzer.toplevel_module = analyzer._ast_from_file(file_input)
            analyzer.resolve_imports()
    return _inputs_of(file_input, analyzer), _exposes(analyzer.toplevel_module)


def _exposes(module: Any) -> bool:
    """Whether a parsed source has something to deploy: an external function, an `exports:` or a public variable.

    A source with none of them (snekmate's math, ecdsa) compiles to an empty contract: a library module.
    """
    for node in getattr(module, "body", ()):
        kind = type(node).__name__
        if kind == "ExportsDecl" or (kind == "VariableDecl" and getattr(node, "is_public", False)):
            return True
        if kind == "FunctionDef" and any(
            getattr(d, "id", None) == "external" for d in getattr(node, "decorator_list", ())
        ):
            return True
    return False
