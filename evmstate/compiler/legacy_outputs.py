"""What evmstate takes from a vyper 0.2.x or 0.3.x compile, as plain JSON data, in vyper_outputs' shape.

Those releases have no modules: a source compiles alone, and what it imports (`import a.b as
Foo`, `from . import Bar`, an ABI in `Foo.json`) are interfaces, whose functions it may call.
Their outputs are those of their command line (`vyper -f abi,bytecode,bytecode_runtime,
source_map,layout`): the source map is the runtime code's (`pc_pos_map`, and from 0.3.4 on an
`error_map` naming the compiler's checks), and the layout gives each storage variable's slot.
The deploy code's positions are read from the same compile's deploy assembly, kept only when
it assembles to the very bytes of the deploy code.

Standalone: the import scan (imports, find_interface) needs only the standard library, and
evmstate runs it in its own process to key the build cache; the compile runs as a script under
the release, kept in its own folder: `python -I -S legacy_outputs.py FOLDER...` puts the folders
first on the import path, reads a JSON list of requests on stdin and prints a JSON object with
the release and one result per request.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import re
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # a release's own folder goes before anything else on the path
    sys.path[:0] = sys.argv[1:]

# vyper 0.2/0.3's two import statements, at the start of a line (module level)
_IMPORT = re.compile(r"^import\s+([\w.]+)\s+as\s+(\w+)\s*(?:#.*)?$")
_FROM = re.compile(r"^from\s+(\.*)([\w.]*)\s+import\s+(\w+)\s*(?:#.*)?$")
BUILTIN = "vyper.interfaces"
OUTPUTS = ("abi", "bytecode", "bytecode_runtime", "source_map", "layout")


def imports(text: str) -> dict[str, str]:
    """The interfaces a source imports: name -> the path it gives, as vyper 0.3's
    extract_file_interface_imports writes it ("a/b", "./c", "../d"); builtin interfaces left out."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if m := _IMPORT.match(line):
            found[m.group(2)] = m.group(1).replace(".", "/")
        elif (m := _FROM.match(line)) and not (not m.group(1) and m.group(2) == BUILTIN):
            level, module, name = len(m.group(1)), m.group(2), m.group(3)
            base = "../" * (level - 1) if level > 1 else ("./" if level == 1 else "")
            found[name] = f"{base}{module.replace('.', '/')}/{name}" if module else f"{base}{name}"
    return found


def find_interface(source: Path, written: str, search: list[str]) -> Path | None:
    """The file an import names: next to the source, then (unless the path is relative) in the
    search folders, highest precedence last in search as vyper_outputs takes them; a .vy file
    before a .json ABI, and the folder's .json for an ethPM manifest's `from Manifest import Name`."""
    bases = [source.resolve().parent]
    if not written.startswith("."):
        bases += [Path(p) for p in reversed(search)]
    for base in bases:
        for candidate in (base / written, (base / written).parent):
            for suffix in (".vy", ".json"):
                path = candidate.with_name(candidate.name + suffix)
                if path.is_file():
                    return path.resolve()
    return None


def scan(path: Path, search: list[str]) -> tuple[dict[str, str], dict[str, Path], str | None]:
    """(every file the source compiles from with its sha256, the interfaces by name, the first import not found)."""
    data = path.read_bytes()
    inputs = {str(path.resolve()): hashlib.sha256(data).hexdigest()}
    found: dict[str, Path] = {}
    missing = None
    for name, written in imports(data.decode("utf-8", errors="replace")).items():
        where = find_interface(path, written, search)
        if where is None:
            missing = missing or written
            continue
        found[name] = where
        inputs.setdefault(str(where), hashlib.sha256(where.read_bytes()).hexdigest())
    return inputs, found, missing


def inputs_of(path: Path, search: list[Path]) -> dict[Path, str]:
    """Every file a 0.2.x/0.3.x source compiles from (itself and the interfaces it imports, found as its release finds
    them): path -> sha256."""
    return {Path(p): h for p, h in scan(path, [str(p) for p in search])[0].items()}


def _interface_code(name: str, path: Path) -> dict[str, Any]:
    """An interface as vyper 0.3's compile_codes takes it (what its command line reads from the file)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".json":
        return {"type": "vyper", "code": text}
    contents = json.loads(text)
    if isinstance(contents, dict) and "contractTypes" in contents:  # an ethPM manifest
        return {"type": "json", "code": contents["contractTypes"][name]["abi"]}
    if isinstance(contents, dict) and isinstance(contents.get("abi"), list):
        return {"type": "json", "code": contents["abi"]}
    return {"type": "json", "code": contents}


# -- the compile, under the release ------------------------------------------------


def _settings(text: str, evm_version: str, optimize: str, accepted: Any) -> dict[str, Any]:
    """compile_codes' keyword arguments for the project's settings, as the release takes them.

    A 0.3.x release compiles for the project's EVM version or its own default, whichever is
    older (0.3.10's default is shanghai, 0.3.7's paris): newer ones were experimental there.
    What the source sets itself (`# pragma evm-version`, `# pragma optimize`, 0.3.10) wins.
    """
    try:
        from vyper.evm import opcodes
    except ImportError:  # vyper 0.2.12 and before
        from vyper import opcodes  # type: ignore[no-redef]

    known = opcodes.EVM_VERSIONS
    default = opcodes.DEFAULT_EVM_VERSION
    if evm_version not in known or known[evm_version] > known[default]:
        evm_version = default
    if "settings" not in accepted:
        # every release before 0.3.10 takes evm_version (through its evm_wrapper); from 0.3.1 no_optimize
        return {
            "evm_version": evm_version,
            **({"no_optimize": optimize == "none"} if "no_optimize" in accepted else {}),
        }
    from vyper.ast.pre_parser import pre_parse
    from vyper.compiler.settings import OptimizationLevel, Settings

    pragma = None
    with contextlib.suppress(Exception):  # vyper's own pass says what is wrong with the source
        pragma = pre_parse(text)[0]
    settings = Settings(evm_version=evm_version, optimize=OptimizationLevel.from_string(optimize))
    if pragma is not None and getattr(pragma, "evm_version", None) is not None:
        settings.evm_version = None
    if pragma is not None and getattr(pragma, "optimize", None) is not None:
        settings.optimize = None
    return {"settings": settings}


def _deploy_map(data: Any) -> dict[str, Any]:
    """The deploy code's pc -> position and pc -> check, with the code they belong to, from the compile's deploy
    assembly."""
    try:
        from vyper.ir import compile_ir as assembler
    except ImportError:
        try:
            from vyper.lll import compile_lll as assembler  # type: ignore[no-redef]  # vyper 0.2.13 to 0.3.1
        except ImportError:
            from vyper import compile_lll as assembler  # type: ignore[no-redef]  # vyper 0.2.12 and before
    accepted = inspect.signature(assembler.assembly_to_evm).parameters
    made = []
    for flag in ("insert_compiler_metadata", "insert_vyper_signature", None):
        if flag is None or flag in accepted:
            code, maps = assembler.assembly_to_evm(data.assembly, **({flag: True} if flag else {}))
            made.append(
                {
                    "code": code.hex(),
                    "pc_pos_map": {str(k): list(v) for k, v in maps.get("pc_pos_map", {}).items() if v},
                    "error_map": {str(k): v for k, v in maps.get("error_map", {}).items()},
                }
            )
    return {"candidates": made}


def _location(exc: Any) -> int | None:
    if getattr(exc, "lineno", None):
        return exc.lineno
    for item in getattr(exc, "annotations", None) or ():
        node = item[1] if isinstance(item, tuple) else item
        if getattr(node, "lineno", None):
            return node.lineno
    return None


def error(exc: BaseException, path: Path) -> dict[str, Any]:
    """vyper's error as {"message", "path", "lineno", "type"}, the message led by file:line."""
    lineno = _location(exc)
    where = f"{path}:{lineno}" if lineno else str(path)
    return {
        "message": f"{where}: {type(exc).__name__}: {str(exc).strip()}", "path": str(path), "lineno": lineno,
        "type": type(exc).__name__,
    }


def _hex(code: str) -> bytes:
    return bytes.fromhex(code[2:] if code.startswith("0x") else code)


def _positions(smap: dict[str, Any], limit: int | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    keep = (lambda pc: int(pc) < limit) if limit is not None else (lambda pc: True)
    pc_pos = {str(k): list(v) for k, v in smap.get("pc_pos_map", {}).items() if v and keep(k)}
    errors = {str(k): v for k, v in smap.get("error_map", {}).items() if keep(k)}
    return pc_pos, errors


def getters(layout: dict[str, Any], abi: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The public getters of storage variables: name -> {"slot", "type"}.

    In these releases a function may not share a storage variable's name, so an ABI function
    named after a variable in the storage layout is that variable's getter.
    """
    storage = layout.get("storage_layout", layout) if isinstance(layout, dict) else {}
    functions = {e.get("name"): e for e in abi if e.get("type") == "function"}
    found = {}
    for name, var in storage.items():
        if (
            name in functions
            and isinstance(var, dict)
            and isinstance(var.get("slot"), int)
            and var.get("location", "storage") == "storage"
        ):
            found[name] = {"slot": var["slot"], "type": _as_returned(str(var.get("type", "")), functions[name])}
    return found


def _as_returned(typ: str, entry: dict[str, Any]) -> str:
    """The variable's type with its value as the getter returns it: an interface-typed variable (`IThing`) holds an
    address, an enum a uint256."""
    keys = []
    typ = re.sub(
        r"^(HashMap\[.*\])(\[[^\[\]]*\])$",
        lambda m: m.group(1) if m.group(1).endswith(m.group(2)[:-1] + "]") else m.group(0), typ,
    )
    while typ.startswith("HashMap[") and typ.endswith("]") and ", " in typ:
        key, _, typ = typ[len("HashMap[") : -1].partition(", ")
        keys.append(key)
    outputs = entry.get("outputs") or []
    if len(outputs) == 1 and outputs[0].get("type") in ("address", "uint256") and re.fullmatch(r"[A-Z]\w*", typ):
        typ = outputs[0]["type"]
    for key in reversed(keys):
        typ = f"HashMap[{key}, {typ}]"
    return typ


def compile_source(request: dict[str, Any]) -> dict[str, Any]:
    """Compile one source: request {"path", "search", "evm_version", "optimize"} -> {"inputs", "error", "module_only",
    "outputs"}."""
    import vyper
    from vyper.compiler import OUTPUT_FORMATS

    path = Path(request["path"])
    result: dict[str, Any] = {"inputs": {}, "error": None, "module_only": False, "outputs": None}
    missing = None
    try:
        inputs, found, missing = scan(path, request["search"])
        result["inputs"] = inputs
        text = path.read_text(encoding="utf-8")
        interfaces = {name: _interface_code(name, where) for name, where in found.items()}
        formats = [f for f in OUTPUTS if f in OUTPUT_FORMATS]
        OUTPUT_FORMATS["evmstate_deploy_map"] = _deploy_map
        accepted = inspect.signature(vyper.compile_codes).parameters
        name = str(path)
        kwargs = _settings(text, request["evm_version"], request["optimize"], accepted)
        out = vyper.compile_codes(
            {name: text}, [*formats, "evmstate_deploy_map"], interface_codes={name: interfaces}, **kwargs
        )[name]
    except Exception as e:
        if missing is not None and "interface" in str(e).lower():
            return {
                **result,
                "error": {
                    "message": f"{path}: ModuleNotFound: cannot find the interface {missing!r} (.vy or .json)",
                    "path": str(path), "lineno": None, "type": "ModuleNotFound",
                },
            }
        return {**result, "error": error(e, path)}
    code, runtime = _hex(out["bytecode"]), _hex(out["bytecode_runtime"])
    pc_pos, error_map = _positions(out["source_map"])
    initcode_size = code.find(runtime) if runtime else len(code)
    initcode_size = initcode_size if initcode_size >= 0 else len(code)
    deploy_pc_pos: dict[str, Any] = {}
    deploy_errors: dict[str, str] = {}
    for made in out["evmstate_deploy_map"]["candidates"]:
        if bytes.fromhex(made["code"])[:initcode_size] == code[:initcode_size]:
            deploy_pc_pos, deploy_errors = _positions(made, limit=initcode_size)
            break
    layout = json.loads(json.dumps(out.get("layout", {}), default=str))
    abi = json.loads(json.dumps(out["abi"]))
    result["outputs"] = {
        "abi": abi,
        "bytecode": code.hex(),
        "bytecode_runtime": runtime.hex(),
        "pc_pos": pc_pos,
        "error_map": error_map,
        "layout": layout,
        "deploy_pc_pos": deploy_pc_pos,
        "deploy_error_map": deploy_errors,
        "pc_source": {},
        "deploy_pc_source": {},
        "sources": {"0": str(path)},
        "getters": getters(layout, abi),
    }
    return result


def main() -> None:
    import vyper

    requests = json.load(sys.stdin)
    with contextlib.redirect_stdout(sys.stderr):  # whatever vyper prints stays out of the answer
        results = [compile_source(r) for r in requests]
    json.dump({"vyper": vyper.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
