"""The evmstate.toml `evmstate init` writes shows every key with the value evmstate uses when it is left out."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

from evmstate import config as config_mod
from evmstate.scaffold.project import CONFIG, EXAMPLES, KEYS, config_template

LINE = re.compile(r"^# (\w+) = (.*?)(?:\s+# (.*))?$")


def shown(text: str) -> dict[str, dict[str, tuple[str, str]]]:
    """{section: {key: (value as written, comment)}} of the commented-out settings."""
    found: dict[str, dict[str, tuple[str, str]]] = {}
    section = None
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
            found[section] = {}
        elif section is not None and (m := LINE.match(line)):
            assert m.group(1) not in found[section], f"[{section}] {m.group(1)} is shown twice"
            found[section][m.group(1)] = (m.group(2), m.group(3) or "")
    return found


def test_every_key_evmstate_reads_is_shown_once():
    keys = shown(CONFIG)
    assert set(keys) == set(config_mod.SECTIONS)
    for section, cls in config_mod.SECTIONS.items():
        known = {f.name for f in dataclasses.fields(cls) if not f.metadata.get("internal")}
        assert set(keys[section]) == known, f"[{section}]: {set(keys[section]) ^ known}"


def test_the_values_shown_are_the_defaults_and_the_examples_say_so(tmp_path: Path):
    keys = shown(CONFIG)
    data = {section: {key: tomllib.loads(f"v = {value}")["v"] for key, (value, _) in table.items() if (section, key) not in EXAMPLES} for section, table in keys.items()}
    loaded = config_mod.from_dict(data, root=tmp_path)
    for section in config_mod.SECTIONS:
        assert getattr(loaded, section) == getattr(config_mod.Config(root=tmp_path), section), f"[{section}] as init shows it is not the default"
    for (section, key), value in EXAMPLES.items():
        assert keys[section][key][1].startswith("e.g.: "), f"[{section}] {key} is an example, and must say so"
        config_mod.from_dict({section: {key: value}}, root=tmp_path)  # a value evmstate takes
    assert sum("e.g.: " in comment for table in keys.values() for _, comment in table.values()) == len(EXAMPLES)


def test_the_waits_between_steps_say_the_default_span():
    (_, time), (_, blocks) = shown(CONFIG)["fuzz"]["max_time_delay"], shown(CONFIG)["fuzz"]["max_block_delay"]
    assert "(4 years, log scale)" in time and "(4 years of 12 s blocks)" in blocks
    assert config_mod.FuzzConfig().max_time_delay == 4 * 365 * 86_400


def test_the_template_is_made_from_the_keys_it_lists():
    assert CONFIG == config_template() and set(KEYS) == set(config_mod.SECTIONS)
