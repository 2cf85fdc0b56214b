from pathlib import Path

import pytest

from evmstate import CompileError
from evmstate.compiler import CompileStats, compile_project

from ..conftest import HERE


def test_compiles_every_source_with_abi_code_and_source_map(tmp_path: Path):
    stats = CompileStats()
    arts = compile_project(HERE / "contracts", tmp_path / "build", stats=stats)
    assert set(arts) == {"Depositer", "Token", "Vault"}
    assert sorted(stats.compiled) == ["Depositer", "Token", "Vault"] and stats.cached == []
    dep = arts["Depositer"]
    assert {e["name"] for e in dep.abi if e["type"] == "function"} == {"deposited", "deposit_for", "withdraw_from"}
    assert dep.bytecode and dep.bytecode_runtime and dep.pc_pos
    assert dep.layout["storage_layout"]["deposited"]["slot"] == 0


def test_second_run_compiles_nothing_and_a_change_recompiles(tmp_path: Path):
    src = tmp_path / "contracts"
    src.mkdir()
    (src / "A.vy").write_text("@external\ndef f() -> uint256:\n    return 1\n")
    (src / "B.vy").write_text("@external\ndef g() -> uint256:\n    return 2\n")
    compile_project(src, tmp_path / "build")
    warm = CompileStats()
    first = compile_project(src, tmp_path / "build", stats=warm)
    assert warm.compiled == [] and sorted(warm.cached) == ["A", "B"]
    (src / "A.vy").write_text("@external\ndef f() -> uint256:\n    return 3\n")
    changed = CompileStats()
    second = compile_project(src, tmp_path / "build", stats=changed)
    assert "A" in changed.compiled
    assert second["A"].bytecode != first["A"].bytecode
    other = CompileStats()
    compile_project(src, tmp_path / "build", evm_version="cancun", stats=other)
    assert sorted(other.compiled) == ["A", "B"], "settings are part of the cache key"


def test_a_damaged_cache_entry_is_rebuilt(tmp_path: Path):
    src = tmp_path / "contracts"
    src.mkdir()
    (src / "A.vy").write_text("@external\ndef f() -> uint256:\n    return 1\n")
    compile_project(src, tmp_path / "build")
    for f in (tmp_path / "build").iterdir():
        f.write_text("{not json")
    stats = CompileStats()
    arts = compile_project(src, tmp_path / "build", stats=stats)
    assert stats.compiled == ["A"] and arts["A"].bytecode


def test_type_error_names_file_and_line_and_keeps_vyper_message(tmp_path: Path):
    src = tmp_path / "contracts"
    src.mkdir()
    (src / "Bad.vy").write_text("x: uint256\n\n@external\ndef f() -> uint256:\n    return self.y\n")
    with pytest.raises(CompileError) as info:
        compile_project(src, tmp_path / "build")
    err = info.value
    assert err.lineno == 5 and err.path.endswith("Bad.vy")
    assert f"{src / 'Bad.vy'}:5" in str(err)
    assert "Storage variable 'y' has not been declared" in str(err)
    assert "return self.y" in str(err)


def test_syntax_error_names_file_and_line(tmp_path: Path):
    src = tmp_path / "contracts"
    src.mkdir()
    (src / "Broken.vy").write_text("@external\ndef f() -> uint256\n    return 1\n")
    with pytest.raises(CompileError) as info:
        compile_project(src, tmp_path / "build")
    assert "Broken.vy:2" in str(info.value)


def test_two_contracts_with_one_name_are_refused(tmp_path: Path):
    src = tmp_path / "contracts"
    (src / "sub").mkdir(parents=True)
    (src / "A.vy").write_text("@external\ndef f():\n    pass\n")
    (src / "sub" / "A.vy").write_text("@external\ndef f():\n    pass\n")
    with pytest.raises(CompileError, match="already exists"):
        compile_project(src, tmp_path / "build")
