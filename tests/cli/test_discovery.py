"""Nothing found is an error (exit 5); classes that look like machines but are not say why; subclasses inherit."""

from __future__ import annotations

import shutil
import textwrap

from .helpers import invoke

NAMING = ("rule_<name>", "StateMachine", "@rule(...)", "@given(...)", "test_<name>")


def write(example, name: str, source: str) -> None:
    (example / "machines" / name).write_text(textwrap.dedent(source))


def test_an_empty_machines_folder_exits_5_saying_what_was_looked_for(example):
    shutil.rmtree(example / "machines")
    (example / "machines").mkdir()
    code, out = invoke("run")
    assert code == 5, out
    assert "no state machines or property tests found in machines/ (no .py files)" in out
    for rule in NAMING:
        assert rule in out, rule


def test_nothing_matching_k_or_a_filter_exits_5_and_names_them(example):
    code, out = invoke("run", "-k", "nothing_is_named_so")
    assert code == 5, out
    assert "matching -k 'nothing_is_named_so'" in out and "16 found, none selected" in out
    code, out = invoke("run", "machines/erc20.py", "--no-stateful")
    assert code == 5 and "in machines/erc20.py" in out and "--no-stateful" in out


def test_files_with_no_machines_exit_5_and_point_at_near_misses(example):
    shutil.rmtree(example / "machines")
    (example / "machines").mkdir()
    write(example, "props.py", """
        from evmstate import strategy

        def test_forgot_given(accounts):
            assert accounts[0].balance() > 0
    """)
    code, out = invoke("run")
    assert code == 5, out
    assert "in machines/ (1 file: props.py)" in out
    assert "machines/props.py::test_forgot_given is not decorated with @given(...)" in out


def test_a_class_with_only_invariants_is_a_definition_error(example):
    write(example, "only.py", """
        class OnlyInvariants:
            def __init__(cls, accounts):
                cls.accounts = accounts

            def invariant_balance(self):
                assert self.accounts[0].balance() > 0
    """)
    code, out = invoke("run", "machines/only.py")
    assert code == 2, out
    assert "ERROR machines/only.py::OnlyInvariants" in out
    assert "OnlyInvariants has invariants but no rules, so evmstate cannot run it" in out
    assert "name a method rule_<name>" in out
    assert "no state machines" not in out


def test_rules_named_test_are_a_definition_error_that_says_to_rename(example):
    write(example, "named.py", """
        from evmstate import strategy

        class Deposits:
            value = strategy("uint256", max_value=10)

            def test_deposit(self, value):
                pass

            def test_withdraw(self, value):
                pass

            def invariant(self):
                pass
    """)
    code, out = invoke("run", "machines/named.py")
    assert code == 2, out
    assert "Deposits has no rules: rename test_deposit to rule_deposit, test_withdraw to rule_withdraw" in out


def test_decorated_rules_on_a_plain_class_say_to_subclass_state_machine(example):
    write(example, "plain.py", """
        from evmstate import rule, strategy

        class Plain:
            @rule(x=strategy("uint8"))
            def add(self, x):
                pass
    """)
    code, out = invoke("run", "machines/plain.py")
    assert code == 2, out
    assert "Plain uses @rule/@initialize/@invariant but does not subclass StateMachine: write class Plain(StateMachine)" in out


BASE = """
from evmstate import strategy

class Counting:
    settings = {"max_examples": 7, "stateful_step_count": 4}
    x = strategy("uint8", max_value=3)

    def setup(self):
        self.total = 0

    def rule_add(self, x):
        self.total += x

    def invariant_small(self):
        assert self.total < 3
"""


def test_a_subclass_inherits_rules_invariants_and_settings_beside_other_machines(example):
    write(example, "base.py", "class Mixin:\n    def invariant_mixed(self):\n        pass\n" + BASE.replace("class Counting:", "class Counting(Mixin):"))
    write(example, "sub.py", """
        from evmstate import strategy
        from base import Counting

        class Renamed(Counting):
            pass

        class Looser(Counting):
            settings = {"stateful_step_count": 1}
            x = strategy("uint8")

            def invariant_small(self):
                pass
    """)
    code, out = invoke("run", "--seed", "1", "-k", "sub or erc20", "--max-examples", "3", "--steps", "3")
    assert "ERC20Machine" in out, out
    assert "FAILED machines/sub.py::Renamed" in out
    assert "Invariant Renamed.invariant_small failed: AssertionError: assert self.total < 3\n  at machines/base.py:18" in out
    assert "Falsifying example (1 step):\nstate = Renamed()\nstate.rule_add(x=3)\n" in out
    assert "machines/sub.py::Looser" in out and "FAILED machines/sub.py::Looser" not in out
    assert code == 1
    # the class's own settings apply where the command line does not override them
    code, out = invoke("run", "machines/sub.py::Looser", "--seed", "1")
    assert code == 0 and "examples 7/7, 7 steps" in out, out
    # a class with only invariants that a machine subclasses is a base, not an error
    code, out = invoke("run", "machines/base.py", "--seed", "1")
    assert code == 1 and "FAILED machines/base.py::Counting" in out and "Mixin" not in out, out
