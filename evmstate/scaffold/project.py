"""evmstate init: a new project with an example contract, a machine in each style and a property test.

In a moccasin project it adds a machines/ folder and nothing else: the contracts, settings and
.gitignore stay theirs. No file it writes is named test_*.py or *_test.py, so `mox test`
(pytest) does not collect the machines folder's files as its own tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import config as config_mod
from ..errors import ResourceError, UsageError

# What init's evmstate.toml says of each key, section by section, in this order. The values are
# not written here: each line shows the key's default, read from config.py's dataclasses, so that
# the file cannot say another value than the one evmstate uses; EXAMPLES gives a value to the keys
# that have none worth showing (left out, evmstate picks or needs nothing).
KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "project": (
        ("contracts", "folder of .vy sources"), ("machines", "folder of state machines and property tests"),
        ("deployments", "functions deploying what machines ask for by name"),
        ("artifacts", "contracts compiled elsewhere: Foundry, ape, Brownie build files"),
    ),
    "compiler": (
        ("evm_version", "london, paris, shanghai, cancun or prague"), ("optimize", "gas, codesize or none"),
        ("search_paths", 'extra folders to import from, e.g. ["lib"]; installed packages are searched too'),
        ("experimental_codegen", "build every contract with vyper's Venom code generator (docs/differential.md)"),
        ("contracts", "one contract's code generator, over its pragma and experimental_codegen"),
    ),
    "accounts": (("count", "funded accounts: accounts[0] .. accounts[{last}]"), ("balance", "each account's balance")),
    "chain": (
        ("chain_id", ""), ("gas_limit", "gas per block"),
        ("gas_price", "transactions are charged gas_used * gas_price"),
        ("timestamp", "genesis time; every run starts from the same chain"),
    ),
    "hypothesis": (
        ("max_examples", "runs per machine"), ("stateful_step_count", "steps per run"),
        ("deadline", "milliseconds per example; 0 for none"),
        ("seed", "fix the search; left out, each run picks one and prints it"), ("derandomize", ""),
        ("phases", 'add "explain" for more detail, slower'),
        ("print_blob", "print Hypothesis's reproduction blob with a failure"),
        ("suppress_health_check", '["filter_too_much"]: let assume() throw away most runs'),
    ),
    "fuzz": (
        ("call_gas_limit", "gas per call (2**24, EIP-7825's cap) unless a call passes gas="),
        ("call_timeout", "seconds (CPU time) py-evm runs a call before revm runs it to its end; 0 for no limit"),
        ("call_cache", 'view calls answered from a cache while what they read is unchanged; "off", "check"'),
        ("dictionary_weight", "share of strategy() draws taken from values the contracts know; 0 turns it off"),
        ("guidance", "keep and extend the runs that reach code no run reached before"),
        ("max_time_delay", "seconds one step may wait before its call ({time}, log scale); 0 turns it off"),
        ("max_block_delay", "blocks one step may wait before its call ({blocks} of 12 s blocks); 0 turns it off"),
        (
            "shrink_time",
            "seconds of work (1000 replayed steps a second) shrinking a failure may take; "
            "then the shortest program so far is reported (0: no limit)",
        ),
        (
            "actors",
            'contract accounts strategy("address") draws too: ["rejects-ether", "reenters", ...], or true for all',
        ),
        (
            "invariant_interval",
            "the invariants after every N-th step and at each run's end; "
            "a failing run is played again, every step checked",
        ),
    ),
    "backend": (
        (
            "name",
            'or "revm", calls run in Rust: pip install "evmstate[revm]" (evmstate fuzz, '
            "when no name is set: revm if installed)",
        ),
        ("check", "true: every call on revm and py-evm side by side, first difference reported"),
    ),
    "database": (("url", "Hypothesis's example database: a folder, or redis://host:6379/0 to share it"),),
    "fork": (
        ("url", "a node's JSON-RPC URL: runs start from its chain (docs/fork.md); left out, from a fresh chain"),
        ("block", 'the block to fork at: a number, or "latest", "safe", "finalized"'),
        ("chain_id", "the chain the node must be on; 0: whichever it is"),
        ("timeout", "seconds to wait for each answer of the node"),
    ),
    "differential": (
        (
            "mode",
            '"codegen", "compiler:A,B" or "sources:OLD:NEW": every call on two builds (docs/differential.md); "": off',
        ),
        ("storage", "also compare the storage slots either build wrote"),
        ("gas", "report the gas of both builds per function"),
        ("revert_reasons", "a different revert reason when both builds revert is a divergence"),
        ("expected", 'differences meant to be there, e.g. [{{ function = "Vault.fee", aspect = "return data" }}]'),
    ),
}
# keys shown with an example value: they have no default worth showing
EXAMPLES: dict[tuple[str, str], Any] = {
    ("hypothesis", "seed"): 1234,
    ("fork", "url"): "http://127.0.0.1:8545",
    ("compiler", "contracts"): {"Vault": {"experimental_codegen": True}},
}
ETHER = 10**18
YEAR = 365 * 86_400
BLOCKS_PER_DAY = 86_400 // 12


def toml_value(value: Any) -> str:
    """A setting's value as evmstate.toml writes it."""
    if value is None:
        return "0"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):  # an inline table; its keys are bare names
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return repr(value)


def _days(days: float) -> str:
    """A span of days as a reader says it: "4 years", "a week", "30 days"."""
    if days % 365 == 0:
        years = int(days // 365)
        return "a year" if years == 1 else f"{years} years"
    if days % 7 == 0:
        weeks = int(days // 7)
        return "a week" if weeks == 1 else f"{weeks} weeks"
    return f"{days:g} days"


def _shown(section: str, key: str, value: Any) -> str:
    if (section, key) in config_mod.WEI_KEYS and value and value % ETHER == 0:
        return json.dumps(f"{value // ETHER} ether")
    return toml_value(value)


def config_template() -> str:
    """The evmstate.toml init writes: every key, commented out, with its default (EXAMPLES: an example)."""
    lines = [
        '# evmstate project settings. Every key is optional; the values shown are the defaults ("e.g.": '
        "an example, the key has none)."
    ]
    for section, keys in KEYS.items():
        defaults = config_mod.SECTIONS[section]()
        lines += ["", f"[{section}]"]
        for key, comment in keys:
            example = (section, key) in EXAMPLES
            value = EXAMPLES[(section, key)] if example else getattr(defaults, key)
            comment = comment.format(
                last=getattr(defaults, "count", 1) - 1,
                time=_days(getattr(defaults, "max_time_delay", 0) / 86_400),
                blocks=_days(getattr(defaults, "max_block_delay", 0) / BLOCKS_PER_DAY),
            )
            comment = f"e.g.: {comment}" if example else comment
            line = f"# {key} = {_shown(section, key, value)}"
            lines.append(f"{line:<29} # {comment}" if comment else line)
    return "\n".join(lines) + "\n"


CONFIG = config_template()

CONTRACT = '''# pragma version ~=0.4.3
# A counter that anyone may increase and only the owner may reset.

owner: public(address)
count: public(uint256)
last_caller: public(address)


@deploy
def __init__():
    self.owner = msg.sender


@external
def increase(_by: uint256):
    assert _by > 0, "Nothing to add"
    self.count += _by
    self.last_caller = msg.sender


@external
def reset():
    assert msg.sender == self.owner, "Only the owner"
    self.count = 0
'''

BROWNIE_MACHINE = '''"""A state machine in Brownie's style: methods named rule_*, invariant_*, strategies by name."""

from evmstate import reverts, strategy


class CounterMachine:
    by = strategy("uint256", max_value=1000)
    caller = strategy("address")

    def __init__(cls, accounts, Counter):
        # runs once; then every run starts from the chain as it is now
        cls.accounts = accounts
        cls.counter = Counter.deploy({"from": accounts[0]})

    def setup(self):
        self.count = 0

    def rule_increase(self, by, caller):
        if by == 0:
            with reverts("Nothing to add"):
                self.counter.increase(by, {"from": caller})
        else:
            self.counter.increase(by, {"from": caller})
            self.count += by

    def rule_reset(self, caller):
        if caller == self.accounts[0]:
            self.counter.reset({"from": caller})
            self.count = 0
        else:
            with reverts("Only the owner"):
                self.counter.reset({"from": caller})

    def invariant_count(self):
        assert self.counter.count() == self.count
'''

DECORATOR_MACHINE = '''"""The same contract with the decorator style: rules, preconditions and a bundle of callers."""

from evmstate import Bundle, StateMachine, invariant, precondition, rule, strategy


class CounterCallers(StateMachine):
    callers = Bundle("callers")

    def __init__(cls, accounts, Counter):
        cls.counter = Counter.deploy({"from": accounts[0]})

    def setup(self):
        self.count = 0

    @rule(target=callers, caller=strategy("address"), by=strategy("uint256", min_value=1, max_value=100))
    def increase(self, caller, by):
        self.counter.increase(by, {"from": caller})
        self.count += by
        return caller

    @precondition(lambda self: self.count > 0)
    @rule(caller=callers)
    def last_caller_is_recorded(self, caller):
        self.counter.increase(1, {"from": caller})
        self.count += 1
        assert self.counter.last_caller() == caller

    @invariant()
    def count_matches(self):
        assert self.counter.count() == self.count
'''

PROPERTY_TEST = '''"""A property test: each example runs on a fresh chain."""

from evmstate import given, reverts, strategy


@given(by=strategy("uint256", min_value=1, max_value=10**6), caller=strategy("address"))
def test_increase_adds_exactly(Counter, accounts, by, caller):
    counter = Counter.deploy({"from": accounts[0]})
    counter.increase(by, {"from": caller})
    assert counter.count() == by


@given(caller=strategy("address"))
def test_only_the_owner_resets(Counter, accounts, caller):
    counter = Counter.deploy({"from": accounts[0]})
    if caller == accounts[0]:
        counter.reset({"from": caller})
    else:
        with reverts("Only the owner"):
            counter.reset({"from": caller})
'''

MOCCASIN_MACHINE = '''\
"""A state machine for the Counter of `mox init` (src/Counter.vy): methods named rule_*, invariant_*."""

from evmstate import strategy


class CounterMachine:
    new_number = strategy("uint256", max_value=10**6)

    def __init__(cls, accounts, Counter):
        # runs once; then every run starts from the chain as it is now
        cls.counter = Counter.deploy({"from": accounts[0]})

    def setup(self):
        self.number = 0

    def rule_set_number(self, new_number):
        self.counter.set_number(new_number)
        self.number = new_number

    def rule_increment(self):
        self.counter.increment()
        self.number += 1

    def invariant_number(self):
        assert self.counter.number() == self.number
'''

MOCCASIN_PROPERTIES = '''\
"""Property tests: each example runs on a fresh chain. Not named test_*.py, so that `mox test` leaves them to \
evmstate."""

from evmstate import given, strategy


@given(new_number=strategy("uint256"))
def test_set_number_stores_it(Counter, accounts, new_number):
    counter = Counter.deploy({"from": accounts[0]})
    counter.set_number(new_number)
    assert counter.number() == new_number


@given(new_number=strategy("uint256", max_value=2**256 - 2))
def test_increment_adds_one(Counter, accounts, new_number):
    counter = Counter.deploy({"from": accounts[0]})
    counter.set_number(new_number)
    counter.increment()
    assert counter.number() == new_number + 1
'''

MOCCASIN_TEMPLATE = '''"""A state machine to fill in: write one per contract (or per feature) beside this file.

evmstate runs classes with rule_* methods (Brownie's style) or StateMachine subclasses with
@rule methods, and @given functions named test_*. Files here are never named test_*.py, so
that `mox test` (pytest) does not collect them as its own tests.

    from evmstate import strategy

    class MyTokenMachine:
        amount = strategy("uint256", max_value=10**24)
        to = strategy("address")

        def __init__(cls, accounts, MyToken):         # contracts are asked for by name
            cls.token = MyToken.deploy({"from": accounts[0]})

        def setup(self):
            self.total = self.token.totalSupply()

        def rule_transfer(self, to, amount):
            ...

        def invariant_supply(self):
            assert self.token.totalSupply() == self.total
"""
'''

FILES = {
    "evmstate.toml": CONFIG,
    "contracts/Counter.vy": CONTRACT,
    "machines/counter.py": BROWNIE_MACHINE,
    "machines/counter_callers.py": DECORATOR_MACHINE,
    "machines/counter_properties.py": PROPERTY_TEST,
    ".gitignore": ".evmstate/\n__pycache__/\n",
}


def moccasin_project(folder: Path) -> bool:
    """Whether folder is a moccasin project evmstate reads as it is: moccasin's settings there, and no evmstate.toml."""
    return bool(config_mod.moccasin_files(folder)) and not (folder / config_mod.CONFIG_NAME).exists()


def files_for(folder: Path) -> dict[str, str]:
    """What init writes into folder: a whole project, or in a moccasin project its machines folder alone."""
    if not moccasin_project(folder):
        return FILES
    cfg = config_mod.moccasin_config(folder.resolve(), config_mod.moccasin_files(folder))
    machines = cfg.project.machines
    counter = cfg.contracts_dir / "Counter.vy"
    if counter.is_file() and all(
        f"def {name}(" in counter.read_text(encoding="utf-8") for name in ("set_number", "increment")
    ):
        return {f"{machines}/counter.py": MOCCASIN_MACHINE, f"{machines}/counter_properties.py": MOCCASIN_PROPERTIES}
    return {f"{machines}/my_machine.py": MOCCASIN_TEMPLATE}


def init(folder: Path, *, force: bool = False) -> list[Path]:
    """Write a new project into folder (in a moccasin project, its machines folder); refuse to overwrite existing files
    unless force.
    """
    files = files_for(folder)
    existing = [name for name in files if (folder / name).exists()]
    if existing and not force:
        raise UsageError(
            f"{folder}: {', '.join(existing)} already exist{'s' if len(existing) == 1 else ''}; nothing was written. "
            "Use --force to overwrite them."
        )
    written: list[Path] = []
    for name, text in files.items():
        path = folder / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:  # a read-only or full disk: say where, and what was written before
            done = f"; written before it: {', '.join(str(p) for p in written)}" if written else "; nothing was written"
            raise ResourceError.unwritable(
                "the new project", f"{folder}/", exc, f"{path} could not be made{done}",
                "give evmstate init a folder that is",
            ) from None
        written.append(path)
    return written


def next_steps(folder: Path) -> list[str]:
    """What to do after init, beyond `evmstate run`: in a moccasin project, what was left alone."""
    if not moccasin_project(folder):
        return []
    cfg = config_mod.moccasin_config(folder.resolve(), config_mod.moccasin_files(folder))
    names = " and ".join(f.name for f in cfg.sources)
    return [
        f"a moccasin project: evmstate reads {names} as it is (contracts in "
        f"{cfg.project.contracts}/, imports from lib/); "
        "no evmstate.toml was written, nor anything outside machines/",
        "add .evmstate/ (evmstate's build cache, examples and saved failures) to your .gitignore",
    ]
