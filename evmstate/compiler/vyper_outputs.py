"""What evmstate takes from one vyper compile, as plain JSON data.

Standalone: it imports only vyper and the standard library, so the same code runs in this process
under the installed vyper and, as a script, under another vyper release kept in its own folder:
`python -I -S vyper_outputs.py FOLDER` puts FOLDER first on the import path, reads a JSON list of
requests on stdin and prints a JSON object with the release and one result per request. Works
with vyper 0.4.0 and later.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # a release's own folder goes before anything else on the path
    sys.path[:0] = sys.argv[1:]

import vyper  # noqa: E402
from vyper import ast as vy_ast  # noqa: E402
from vyper.compiler import OUTPUT_FORMATS  # noqa: E402
from vyper.compiler.input_bundle import FileInput, FilesystemInputBundle  # noqa: E402
from vyper.compiler.phases import CompilerData  # noqa: E402
from vyper.compiler.settings import OptimizationLevel, Settings, anchor_settings  # noqa: E402
from vyper.evm.opcodes import EVM_VERSIONS  # noqa: E402
from vyper.exceptions import VyperException  # noqa: E402

VERSION: str = vyper.__version__
OUTPUTS = ("abi", "bytecode", "bytecode_runtime", "source_map", "source_map_runtime", "layout")
# a source's `# pragma experimental-codegen`: the word `pragma` blanked makes it a comment (a build with the legacy
# code generator)
_VENOM_PRAGMA = re.compile(
    r"^([ \t]*#[ \t]*)(pragma)([ \t]+(?:experimental-codegen|venom-experimental)\b)", re.MULTILINE
)


def own_settings(text: str, evm_version: str, optimize: str, experimental_codegen: bool | None = None) -> Any:
    """The project's settings, less those the source sets itself (# pragma optimize, # pragma evm-version): its own win,
    as with vyper's command line.

    A release that does not know the project's evm_version (vyper 0.4.1 stops at cancun)
    compiles for the newest one it knows. experimental_codegen, when given, builds with Venom
    (True) or the legacy code generator (False; a source's own pragma is blanked by compiler_data).
    """
    known = list(EVM_VERSIONS)  # oldest first
    if evm_version not in known and known:
        evm_version = known[-1]  # an older release stops before the newest forks: its newest runs on them
    settings = Settings(evm_version=evm_version, optimize=OptimizationLevel.from_string(optimize))
    if experimental_codegen is not None:
        settings = dataclasses.replace(settings, experimental_codegen=experimental_codegen)
    try:
        try:
            from vyper.ast.pre_parser import PreParser  # vyper 0.4.1 and later
        except ImportError:
            from vyper.ast.pre_parser import pre_parse  # vyper 0.4.0

            pragma = pre_parse(text)[0]
        else:
            parser = PreParser(is_interface=False)
            parser.parse(text)
            pragma = parser.settings
    except Exception:
        return settings  # vyper's own pass says what is wrong with the source
    settings = dataclasses.replace(
        settings,
        optimize=None if pragma.optimize is not None else settings.optimize,
        evm_version=None if pragma.evm_version is not None else settings.evm_version,
    )
    if getattr(pragma, "experimental_codegen", None) is not None:
        settings = dataclasses.replace(settings, experimental_codegen=None)  # the pragma says it
    return settings


class _OverlaidBundle(FilesystemInputBundle):
    """The file system, with some files read as given texts instead of from disk (a mutant of a source)."""

    def __init__(self, search_paths: list[Path], overlay: dict[str, str]) -> None:
        super().__init__(search_paths)
        self.overlay = overlay

    def _load_from_path(self, resolved_path: Path, original_path: Path) -> Any:
        text = self.overlay.get(str(resolved_path))
        if text is None:
            return super()._load_from_path(resolved_path, original_path)
        source_id = super()._generate_source_id(resolved_path)
        return FileInput(source_id, original_path, resolved_path, text)


def compiler_data(
    path: Path,
    search: list[str],
    evm_version: str,
    optimize: str,
    overlay: dict[str, str] | None = None,
    experimental_codegen: bool | None = None,
) -> tuple[Any, Any, Any]:
    """vyper's CompilerData for a source, its input bundle and the source's FileInput.

    overlay: resolved path -> text, files read as that text instead of from disk.
    experimental_codegen: Venom (True) or the legacy code generator (False, the source's own
    pragma read as a comment, its offsets unchanged), None as the source and vyper say.
    """
    # one bundle per source: source ids stay the same run to run
    bundle = (
        _OverlaidBundle([Path(p) for p in search], overlay)
        if overlay
        else FilesystemInputBundle([Path(p) for p in search])
    )
    file_input = bundle.load_file(path)
    compiled = file_input
    if experimental_codegen is False and _VENOM_PRAGMA.search(file_input.source_code):
        text = _VENOM_PRAGMA.sub(lambda m: m.group(1) + " " * len(m.group(2)) + m.group(3), file_input.source_code)
        bundle = _OverlaidBundle([Path(p) for p in search], {**(overlay or {}), str(file_input.resolved_path): text})
        compiled = bundle.load_file(path)  # the file as given stays the input (its hash keys the build cache)
    settings = own_settings(compiled.source_code, evm_version, optimize, experimental_codegen)
    return CompilerData(compiled, bundle, settings=settings), bundle, file_input


def resolve(request: dict[str, Any]) -> dict[str, Any]:
    """Only resolve a source's imports: {"inputs", "error"} (error None when they resolve)."""
    path = Path(request["path"])
    try:
        data, bundle, file_input = compiler_data(path, request["search"], request["evm_version"], request["optimize"])
        with vyper_warnings(path):  # the compile says them
            _resolve(data)
    except Exception as e:
        return {"inputs": {}, "error": error(e, path)}
    return {"inputs": inputs(data, bundle, file_input), "error": None}


def _resolve(data: Any) -> None:
    if hasattr(type(data), "resolved_imports"):  # vyper 0.4.1 and later resolve imports apart from the checks
        _ = data.resolved_imports
    else:
        _ = data.annotated_vyper_module


def _compiler_inputs(data: Any, bundle: Any) -> list[tuple[int, str, str | None]]:
    """(source id, resolved path, sha256 or None for a builtin interface) of every file a compile read, once vyper has
    resolved the imports."""
    resolved: Any = getattr(data, "resolved_imports", None)
    if hasattr(resolved, "compiler_inputs"):  # vyper 0.4.2 and later
        return [
            (i.source_id, str(i.resolved_path), None if i.from_builtin else i.sha256sum)
            for i in resolved.compiler_inputs
        ]
    # vyper 0.4.0 and 0.4.1 load builtins through a bundle of their own: this one holds the project's files
    found: list[tuple[int, str, str | None]] = []
    for resolved_path, source_id in dict(getattr(bundle, "_source_ids", {})).items():
        found.append((source_id, str(resolved_path), hashlib.sha256(Path(resolved_path).read_bytes()).hexdigest()))
    return found


def inputs(data: Any, bundle: Any, file_input: Any) -> dict[str, str]:
    """Every file a compile read, resolved, with its sha256: the source first, then its imports (not vyper's
    builtins)."""
    found = {str(file_input.resolved_path): file_input.sha256sum}
    with contextlib.suppress(Exception):  # the imports are not resolved when the source does not parse
        for _, path, sha in _compiler_inputs(data, bundle):
            if sha is not None:  # builtins come with the compiler, whose version is in the key
                found.setdefault(path, sha)
    return found


def _loaded_sources(data: Any, bundle: Any, file_input: Any, path: Path) -> dict[str, str]:
    """Every file vyper read for one compile (the contract and its imports), by source id."""
    found = {str(file_input.source_id): str(path)}
    for source_id, resolved_path, _ in _compiler_inputs(data, bundle):
        if source_id >= 0:  # builtin interfaces have no file
            found.setdefault(str(source_id), resolved_path)
    return found


def _source_maps(
    smap: dict[str, Any], main_source: int, limit: int | None = None
) -> tuple[dict[str, Any], dict[str, str], dict[str, int]]:
    """(pc -> position, pc -> check description, pc -> source id of imported code) from one vyper source map.

    limit drops pcs at or past it.
    """
    keep = (lambda pc: pc < limit) if limit is not None else (lambda pc: True)
    pc_pos = {str(k): list(v) for k, v in smap.get("pc_pos_map", {}).items() if keep(int(k))}
    errors = {str(k): v for k, v in smap.get("error_map", {}).items() if keep(int(k))}
    sources = {
        str(k): v[0]
        for k, v in smap.get("pc_ast_map", {}).items()
        if keep(int(k)) and v and v[0] != main_source and v[0] >= 0
    }
    return pc_pos, errors, sources


def storage_getters(module_t: Any) -> dict[str, dict[str, Any]]:
    """The exposed functions that are getters of public storage variables: name -> {"slot", "type"}.

    module_t is the compiled contract's ModuleT with its storage allocated. Its exposed functions
    are its own external functions, those it exports and the getters of its own public
    variables and of those it exports from modules. vyper builds a getter as a FunctionDef
    whose original node is the variable's declaration; the declaration's varinfo gives the
    location, the absolute slot and the type.
    """
    found: dict[str, dict[str, Any]] = {}
    for fn_t in module_t.exposed_functions:
        node = fn_t.decl_node
        decl = node if isinstance(node, vy_ast.VariableDecl) else getattr(node, "_original_node", None)
        if not isinstance(decl, vy_ast.VariableDecl) or not decl.is_public or decl.target.id != fn_t.name:
            continue
        varinfo = decl.target._metadata.get("varinfo")
        if varinfo is None or not varinfo.is_storage or varinfo.position is None:
            continue  # constants, immutables and transient variables are not in storage
        if node is not decl and varinfo.getter_ast is not node:
            continue
        found[fn_t.name] = {"slot": varinfo.position.position, "type": str(varinfo.typ)}
    return found


def _location(exc: Any) -> tuple[str | None, int | None]:
    """The file and line vyper's error points at, when it says."""
    if getattr(exc, "lineno", None):
        return getattr(exc, "resolved_path", None), exc.lineno
    for item in getattr(exc, "annotations", None) or ():
        node = item[1] if isinstance(item, tuple) else item
        if getattr(node, "lineno", None):
            module = getattr(node, "module_node", None)
            path = getattr(module, "resolved_path", None) if module is not None else None
            return (path if path not in (None, "<unknown>") else None), node.lineno
    return None, None


def error(exc: BaseException, path: Path) -> dict[str, Any]:
    """vyper's error as {"message", "path", "lineno", "type"}, the message led by file:line."""
    if not isinstance(exc, VyperException):  # vyper raises plain exceptions for some inputs (e.g. pragma conflicts)
        return {
            "message": f"{path}: {type(exc).__name__}: {exc}", "path": str(path), "lineno": None,
            "type": type(exc).__name__,
        }
    where_path, lineno = _location(exc)
    if where_path is None or Path(where_path) == path.resolve():
        where_path = str(path)  # the source itself, named as it was given
    where = f"{where_path}:{lineno}" if lineno else where_path
    message = f"{where}: {type(exc).__name__}: {str(exc).strip()}"
    return {"message": message, "path": str(where_path), "lineno": lineno, "type": type(exc).__name__}


_VYPER_DIR = os.path.dirname(os.path.abspath(vyper.__file__))


@contextlib.contextmanager
def vyper_warnings(path: Path) -> Any:
    """Collect what vyper warns of (a deprecation, a large array) as {"kind", "message", "path", "lineno"}, never
    printed.

    Yields the list it fills. Warnings raised outside vyper's own code are passed on as they came.
    """
    found: list[dict[str, Any]] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield found
    for w in caught:
        if not os.path.abspath(w.filename).startswith(_VYPER_DIR):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
            continue
        exc = w.message
        text = getattr(exc, "message", None) or str(exc)
        where_path, lineno = _location(exc) if isinstance(exc, Exception) else (None, None)
        # vyper sets a suggested fix apart in a ``` block: one line reads better
        message = " ".join(line.strip() for line in str(text).splitlines() if line.strip() and line.strip() != "```")
        found.append(
            {"kind": w.category.__name__, "message": message, "path": where_path or str(path), "lineno": lineno}
        )


def _hex(code: str) -> str:
    return code[2:] if code.startswith("0x") else code


def compile_source(request: dict[str, Any]) -> dict[str, Any]:
    """Compile one source: request {"path", "search", "evm_version", "optimize"} -> {"inputs", "error", "module_only",
    "outputs", "warnings"}.

    outputs holds the compile's part of an Artifact, in Artifact.to_dict's form; warnings, what
    vyper warned of (vyper_warnings). The request's optional "overlay" ({resolved path: text})
    gives files to read as that text, not from disk.
    """
    path = Path(request["path"])
    with vyper_warnings(path) as said:
        result = _compile(path, request)
    result["warnings"] = said
    return result


def _compile(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"inputs": {}, "error": None, "module_only": False, "outputs": None}
    try:
        data, bundle, file_input = compiler_data(
            path,
            request["search"],
            request["evm_version"],
            request["optimize"],
            request.get("overlay"),
            request.get("experimental_codegen"),
        )
        # from vyper 0.4.1 on: imports resolved, nothing checked yet
        result["inputs"] = inputs(data, bundle, file_input)
        with anchor_settings(data.settings):
            _ = data.annotated_vyper_module  # the whole import graph, type-checked
            result["inputs"] = inputs(data, bundle, file_input)  # vyper 0.4.0 knows them only now
            try:
                _ = data.compilation_target
            except VyperException as e:
                # Only the checks of a deployable contract failed (a module `uses:` state that
                # nothing `initializes:`): it is a library module, meant to be imported.
                return {**result, "error": error(e, path), "module_only": True}
            out = {name: OUTPUT_FORMATS[name](data) for name in OUTPUTS}
            getters = storage_getters(data.global_ctx)
    except Exception as e:
        return {**result, "error": error(e, path)}
    bytecode, runtime = _hex(out["bytecode"]), _hex(out["bytecode_runtime"])
    code, runtime_code = bytes.fromhex(bytecode), bytes.fromhex(runtime)
    main = file_input.source_id
    pc_pos, error_map, pc_source = _source_maps(out["source_map_runtime"], main)
    # the deploy map also covers the runtime code that the initcode copies out of itself
    initcode_size = code.find(runtime_code) if runtime_code else len(code)
    deploy_pc_pos, deploy_error_map, deploy_pc_source = _source_maps(
        out["source_map"], main, limit=initcode_size if initcode_size >= 0 else len(code)
    )
    result["outputs"] = {
        "abi": json.loads(json.dumps(out["abi"])),
        "bytecode": bytecode,
        "bytecode_runtime": runtime,
        "pc_pos": pc_pos,
        "error_map": error_map,
        "layout": json.loads(json.dumps(out.get("layout", {}), default=str)),
        "deploy_pc_pos": deploy_pc_pos,
        "deploy_error_map": deploy_error_map,
        "pc_source": pc_source,
        "deploy_pc_source": deploy_pc_source,
        "sources": _loaded_sources(data, bundle, file_input, path),
        "getters": getters,
        "codegen": "venom" if getattr(data.settings, "experimental_codegen", False) else "legacy",
    }
    return result


def syntax_tree(text: str) -> dict[str, Any]:
    """A source's syntax tree as plain data (vyper's node.to_dict()): each node's "ast_type", its
    position ("src": "start:length:source id", in characters of text) and its fields."""
    return vy_ast.parse_to_ast(text).to_dict()


def main() -> None:
    requests = json.load(sys.stdin)
    with contextlib.redirect_stdout(sys.stderr):  # whatever vyper prints stays out of the answer
        results = [compile_source(r) for r in requests]
    json.dump({"vyper": VERSION, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
