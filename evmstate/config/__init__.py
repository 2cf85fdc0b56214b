"""evmstate.toml -> frozen dataclasses. Unknown keys get "did you mean".

In a moccasin project (moccasin.toml, or [tool.moccasin] in pyproject.toml) the contracts folder
and the compiler's search path are moccasin's; an evmstate.toml beside it sets the rest, and wins
where both say something.

sections.py holds the settings as data, keys.py checks one key's value, load.py finds and reads the
files. `evmstate.config` is where the settings are read from (the CLI, the docs, the machines' own
settings): the names below are its public ones, and the bounds it passes on from config_checks.
"""

from __future__ import annotations

from ..config_checks import (
    DELAY_KEYS, MAX_DELAY, MAX_STEPS, RUNNING_PHASES, check_delay, check_interval, check_shrink_time, check_weight,
    parse_mode,
)
from ..errors import ConfigError
from .keys import FUZZ_CHECKS, GAS_KEYS, KIND_NAMES, MIN_GAS, WEI_KEYS, check_fork, check_key
from .load import find_root, from_dict, load, moccasin_config, moccasin_files
from .sections import (
    AccountsConfig, BACKENDS, BackendConfig, CALL_CACHE_MODES, CONFIG_NAME, ChainConfig, CompilerConfig, Config,
    DatabaseConfig, DifferentialConfig, Environment, FEEDBACK_VARIABLE, FORK_TAGS, ForkConfig, FuzzConfig,
    HypothesisConfig, MOCCASIN_NAME, NATIVE_VARIABLE, PHASES, PYPROJECT_NAME, ProjectConfig, REDIS_SCHEMES, SECTIONS,
    SHRINK_ON_REVM_VARIABLE, START_METHOD_VARIABLE, health_checks, shown,
)

__all__ = [
    "AccountsConfig", "BACKENDS", "BackendConfig", "CALL_CACHE_MODES", "CONFIG_NAME", "ChainConfig", "CompilerConfig",
    "Config", "ConfigError", "DELAY_KEYS", "DatabaseConfig", "DifferentialConfig", "Environment", "FEEDBACK_VARIABLE",
    "FORK_TAGS", "FUZZ_CHECKS", "ForkConfig", "FuzzConfig", "GAS_KEYS", "HypothesisConfig", "KIND_NAMES", "MAX_DELAY",
    "MAX_STEPS", "MIN_GAS", "MOCCASIN_NAME", "NATIVE_VARIABLE", "PHASES", "PYPROJECT_NAME", "ProjectConfig",
    "REDIS_SCHEMES", "RUNNING_PHASES", "SECTIONS", "SHRINK_ON_REVM_VARIABLE", "START_METHOD_VARIABLE", "WEI_KEYS",
    "check_delay", "check_fork", "check_interval", "check_key", "check_shrink_time", "check_weight", "find_root",
    "from_dict", "health_checks", "load", "moccasin_config", "moccasin_files", "parse_mode", "shown",
]
