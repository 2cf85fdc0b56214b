"""A machine's settings = {...} read once, when it is loaded: typed, and checked then."""

import pytest

from evmstate.engine.discovery import Item
from evmstate.engine.settings import MachineSettings
from evmstate.errors import MachineDefinitionError


def test_the_keys_are_sorted_by_who_reads_them():
    given = {"max_examples": 7, "phases": ["generate"], "guidance": False, "max_time_delay": 0, "shrink_time": 5, "seed": 3}
    parsed = MachineSettings.parse(given, "Vault")
    assert parsed.hypothesis == {"max_examples": 7, "phases": ["generate"], "seed": 3}
    assert parsed.search == {"guidance": False, "max_time_delay": 0}
    assert parsed.shrink_time == 5 and parsed.shrink_seconds(60) == 5
    assert MachineSettings.parse({}, "Vault").shrink_seconds(60) == 60  # [fuzz] shrink_time then
    # a duration as --time takes one
    assert MachineSettings.parse({"shrink_time": "1m30s"}, "Vault").shrink_time == 90


@pytest.mark.parametrize(
    "given, message",
    [
        ({"max_exmaples": 5}, "Vault.settings: unknown key 'max_exmaples'. Did you mean 'max_examples'?"),
        ({"max_examples": "many"}, "Vault.settings: "),
        ({"suppress_health_check": ["too_slow_please"]}, "Vault.settings: suppress_health_check: 'too_slow_please' is not a health check"),
        ({"guidance": "yes"}, "Vault.settings: guidance must be True or False, got 'yes'"),
        ({"max_block_delay": -1}, "Vault.settings: max_block_delay must be a whole number from 0 (no delays)"),
        ({"shrink_time": "soon"}, "Vault.settings: shrink_time"),
    ],
)
def test_a_bad_setting_is_a_definition_error_when_the_machine_is_read(given, message):
    with pytest.raises(MachineDefinitionError) as error:
        MachineSettings.parse(given, "Vault")
    assert message in str(error.value)


def test_an_item_reads_its_machine_once(monkeypatch):
    import evmstate.engine.discovery as discovery

    class Counted:
        settings = {"max_examples": 3}

        def rule_a(self):
            pass

    reads = []
    original = discovery.collect
    monkeypatch.setattr(discovery, "collect", lambda cls: reads.append(cls) or original(cls))
    item = Item("machine", "machines/counted.py", "Counted", Counted)
    assert item.settings.hypothesis == {"max_examples": 3} and item.asks == () and item.spec.name == "Counted"
    assert item.settings is item.settings and item.spec is item.spec
    assert reads == [Counted]
