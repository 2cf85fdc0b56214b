from pathlib import Path

import pytest

from evmstate import ConfigError
from evmstate.config import Config, find_root, load


def test_defaults_without_a_file(tmp_path: Path):
    cfg = load(tmp_path)
    assert cfg.root == tmp_path.resolve()
    assert cfg.path is None
    assert cfg.accounts.count == 10 and cfg.accounts.balance == 100 * 10**18
    assert cfg.compiler.evm_version == "prague"
    assert cfg.hypothesis.max_examples == 50 and cfg.hypothesis.stateful_step_count == 50
    assert "explain" not in cfg.hypothesis.phases
    assert cfg.fuzz.call_gas_limit == 2**24 and cfg.fuzz.call_timeout == 1.0
    assert cfg.contracts_dir == tmp_path.resolve() / "contracts"


def test_root_is_found_by_walking_up(tmp_path: Path):
    (tmp_path / "evmstate.toml").write_text('[accounts]\ncount = 3\nbalance = "5 ether"\n')
    deep = tmp_path / "machines" / "sub"
    deep.mkdir(parents=True)
    assert find_root(deep) == tmp_path.resolve()
    cfg = load(deep)
    assert cfg.root == tmp_path.resolve()
    assert cfg.accounts.count == 3 and cfg.accounts.balance == 5 * 10**18


def test_every_section_loads(tmp_path: Path):
    (tmp_path / "evmstate.toml").write_text(
        """
[project]
contracts = "src"
machines = "tests/machines"
[compiler]
evm_version = "cancun"
[chain]
gas_price = "1 gwei"
timestamp = 1234
[hypothesis]
max_examples = 7
stateful_step_count = 9
seed = 42
derandomize = true
phases = ["generate", "shrink"]
deadline = 0
"""
    )
    cfg = load(tmp_path)
    assert cfg.contracts_dir == tmp_path.resolve() / "src"
    assert cfg.compiler.evm_version == "cancun"
    assert cfg.chain.gas_price == 10**9 and cfg.chain.timestamp == 1234
    h = cfg.hypothesis
    assert (h.max_examples, h.stateful_step_count, h.seed, h.derandomize, h.phases, h.deadline) == (7, 9, 42, True, ("generate", "shrink"), None)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[hypothesis]\nmax_exampels = 3\n", "Did you mean 'max_examples'"),
        ("[acounts]\ncount = 3\n", "Did you mean 'accounts'"),
        ("[accounts]\ncount = \"ten\"\n", r"\[accounts\] count must be a whole number, such as 10 \(the default\); got str .ten."),
        ("[accounts]\ncount = 0\n", "at least 1"),
        ("[compiler]\nevm_version = \"homer\"\n", "not supported"),
        ("[hypothesis]\nphases = [\"generate\", \"shrnk\"]\n", "Did you mean 'shrink'"),
        ("[accounts]\nbalance = \"1 bitcoin\"\n", "unknown unit"),
        ("[hypothesis\n", "not valid TOML"),
        ("hypothesis = 3\n", "must be a \\[hypothesis\\] table"),
        ("[compiler]\nsearch_paths = \"lib\"\n", r"\[compiler\] search_paths must be a list of folders"),
        ("[compiler]\nsearch_paths = [\"nope\"]\n", r"\[compiler\] search_paths: 'nope' is not a folder \(.*nope\). Create it, or remove it"),
        ("[compiler]\nsearch_pahts = []\n", "Did you mean 'search_paths'"),
        ("[chain]\ngas_limit = 100\n", r"\[chain\] gas_limit = 100 is below 21000, the gas every transaction pays before it runs: nothing could run. Use at least 21000 \(the default is 30000000\)"),
        ("[chain]\ngas_limit = 1.5\n", r"\[chain\] gas_limit must be a whole amount of gas, got float 1.5"),
        ("[fuzz]\ncall_gas_limit = 5000\n", r"\[fuzz\] call_gas_limit = 5000 is below 21000.*default is 16777216"),
        ("[fuzz]\ncall_gas_limit = 40000000\n", r"\[fuzz\] call_gas_limit = 40000000 is more than \[chain\] gas_limit = 30000000"),
        ("[fuzz]\ncall_timeout = \"1s\"\n", r"\[fuzz\] call_timeout must be a number of seconds, or 0 for no limit; got '1s'"),
        ("[fuzz]\ncall_timeout = -1\n", r"\[fuzz\] call_timeout must be a number of seconds"),
        ("[fuzz]\ncall_timout = 1\n", "Did you mean 'call_timeout'"),
        ("[fuzz]\nmax_exampels = 3\n", r"unknown key 'max_exampels' in \[fuzz\]. Did you mean 'max_examples'\? It is a key of \[hypothesis\]: write it under \[hypothesis\]"),
        ("[fuzz]\nshrink_time = \"soon\"\n", r"\[fuzz\] shrink_time must be a number of seconds .*\(or a duration such as \"30s\" or \"2m\"\), or 0 for no limit; got 'soon'"),
        ("[hypothesis]\nsuppress_health_check = [\"filter_to_much\"]\n", "unknown health check 'filter_to_much'. Did you mean 'filter_too_much'"),
        ("[hypothesis]\nsuppress_health_check = \"filter_too_much\"\n", r"suppress_health_check must be a list of health check names"),
    ],
)
def test_bad_config_names_the_file_and_the_fix(tmp_path: Path, text: str, message: str):
    (tmp_path / "evmstate.toml").write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load(tmp_path)
    assert "evmstate.toml" in str(info.value)


def test_search_paths_are_folders_relative_to_the_root(tmp_path: Path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "vendor" / "pkgs").mkdir(parents=True)
    (tmp_path / "evmstate.toml").write_text('[compiler]\nsearch_paths = ["lib", "vendor/pkgs"]\n')
    cfg = load(tmp_path / "vendor")
    assert cfg.compiler.search_paths == ("lib", "vendor/pkgs")
    assert cfg.search_paths == (tmp_path.resolve() / "lib", tmp_path.resolve() / "vendor" / "pkgs")
    assert Config(root=tmp_path).search_paths == ()


def test_config_is_frozen():
    cfg = Config()
    with pytest.raises(Exception):
        cfg.accounts.count = 3  # type: ignore[misc]


def test_fuzz_limits_load(tmp_path: Path):
    (tmp_path / "evmstate.toml").write_text("[chain]\ngas_limit = 50000000\n[fuzz]\ncall_gas_limit = 40000000\ncall_timeout = 2\n")
    cfg = load(tmp_path)
    assert (cfg.fuzz.call_gas_limit, cfg.fuzz.call_timeout) == (40_000_000, 2.0)
    (tmp_path / "evmstate.toml").write_text("[fuzz]\ncall_timeout = 0\n")
    assert load(tmp_path).fuzz.call_timeout == 0.0
    # the shrink budget in seconds, or as a duration, as `evmstate fuzz --time` takes one
    for given, seconds in (("5", 5.0), ('"30s"', 30.0), ('"2m"', 120.0), ("0", 0.0)):
        (tmp_path / "evmstate.toml").write_text(f"[fuzz]\nshrink_time = {given}\n")
        assert load(tmp_path).fuzz.shrink_time == seconds, given


def test_suppressed_health_checks_load(tmp_path: Path):
    (tmp_path / "evmstate.toml").write_text('[hypothesis]\nsuppress_health_check = ["filter_too_much"]\n')
    assert load(tmp_path).hypothesis.suppress_health_check == ("filter_too_much",)


def _moccasin(root: Path, text: str = "", folders: tuple[str, ...] = ("src",)) -> None:
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "moccasin.toml").write_text(text)


def test_a_moccasin_project_gives_the_contracts_folder_and_moccasin_s_search_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    _moccasin(tmp_path, "[project]\nout = \"out\"\n", ("src", "lib/github", "lib/pypi"))
    cfg = load(tmp_path / "src")
    root = tmp_path.resolve()
    assert cfg.root == root and cfg.path is None and cfg.sources == (root / "moccasin.toml",)
    assert cfg.contracts_dir == root / "src" and cfg.machines_dir == root / "machines"
    # moccasin's order, the first winning: [root, src, lib/github, lib/pypi, lib]; a missing folder is left out
    assert cfg.compiler.search_paths == (".", "src", "lib/github", "lib/pypi", "lib")
    assert cfg.origin == "moccasin.toml (contracts in src/)"
    _moccasin(tmp_path, "[project]\nsrc = \"contracts/vyper\"\nlib = \"deps\"\n", ("contracts/vyper", "deps/pypi"))
    cfg = load(tmp_path)
    assert cfg.compiler.search_paths == (".", "contracts/vyper", "deps/pypi", "deps")
    assert cfg.origin == "moccasin.toml (contracts in contracts/vyper/)"


def test_moccasin_toml_wins_over_pyproject_toml_as_moccasin_merges_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.moccasin.project]\nsrc = "a"\nlib = "deps"\n')
    assert load(tmp_path).contracts_dir.name == "a"
    assert load(tmp_path).origin == "pyproject.toml [tool.moccasin] (contracts in a/)"
    (tmp_path / "moccasin.toml").write_text('[project]\nsrc = "b"\n')
    cfg = load(tmp_path)
    assert cfg.contracts_dir.name == "b" and cfg.origin == "moccasin.toml and pyproject.toml [tool.moccasin] (contracts in b/)"
    (tmp_path / "deps").mkdir()
    assert load(tmp_path).compiler.search_paths == (".", "deps"), "lib from pyproject.toml, src from moccasin.toml"


def test_a_plain_pyproject_toml_is_not_a_moccasin_project(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.black]\nline-length = 100\n')
    assert find_root(tmp_path) is None
    cfg = load(tmp_path)
    assert cfg.sources == () and cfg.contracts_dir.name == "contracts"
    assert cfg.origin.startswith("defaults, no evmstate.toml or moccasin.toml found")


def test_evmstate_toml_over_moccasin_and_the_nearest_project_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    _moccasin(tmp_path, "[project]\nsrc = \"src\"\n", ("src", "lib/pypi", "vendor"))
    (tmp_path / "evmstate.toml").write_text('[hypothesis]\nmax_examples = 3\n')
    cfg = load(tmp_path)
    assert cfg.hypothesis.max_examples == 3 and cfg.contracts_dir.name == "src" and cfg.compiler.search_paths == (".", "src", "lib/pypi", "lib")
    assert cfg.origin == "evmstate.toml over moccasin.toml (contracts in src/)"
    (tmp_path / "evmstate.toml").write_text('[project]\ncontracts = "vendor"\n[compiler]\nsearch_paths = ["lib/pypi"]\n')
    cfg = load(tmp_path)
    assert cfg.contracts_dir.name == "vendor" and cfg.compiler.search_paths == ("lib/pypi",), "what evmstate.toml says wins"
    inner = tmp_path / "sub"
    _moccasin(inner, "", ("src",))
    assert load(inner / "src").root == inner.resolve() and load(inner).sources == (inner.resolve() / "moccasin.toml",)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[project]\nsrc = 3\n", r"moccasin.toml: \[project\] src must be a folder"),
        ("[project]\nsrc = \"/abs\"\n", r"relative to the project root; give a relative folder"),
        ("project = 1\n", "project must be a \\[project\\] table"),
        ("[project\n", "not valid TOML"),
    ],
)
def test_bad_moccasin_settings_name_the_file(tmp_path: Path, text: str, message: str):
    (tmp_path / "moccasin.toml").write_text(text)
    with pytest.raises(ConfigError, match=message):
        load(tmp_path)
