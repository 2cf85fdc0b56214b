"""Rules, invariants, initializers and lifecycle methods that calling would not run (async def, generators) are refused when a machine is loaded."""

from __future__ import annotations

import pytest

from evmstate import Bundle, StateMachine, initialize, invariant, rule, strategy
from evmstate.errors import MachineDefinitionError
from evmstate.spec import collect


def brownie(body: str) -> type:
    namespace: dict = {"strategy": strategy}
    exec(f"class Machine:\n    x = strategy('uint8')\n    def rule_ok(self, x):\n        pass\n{body}", namespace)
    return namespace["Machine"]


@pytest.mark.parametrize(
    "body, where",
    [
        ("    async def rule_a(self, x):\n        pass\n", "Machine.rule_a"),
        ("    async def initialize_a(self):\n        pass\n", "Machine.initialize_a"),
        ("    async def invariant(self):\n        pass\n", "Machine.invariant"),
        ("    async def setup(self):\n        pass\n", "Machine.setup"),
        ("    async def teardown(self):\n        pass\n", "Machine.teardown"),
        ("    async def teardown_final(cls):\n        pass\n", "Machine.teardown_final"),
        ("    async def __init__(cls, accounts):\n        pass\n", "Machine.__init__"),
        ("    async def rule_b(self, x):\n        yield x\n", "Machine.rule_b"),
    ],
    ids=lambda v: v if isinstance(v, str) and v.startswith("Machine.") else None,
)
def test_async_methods_are_refused_when_the_machine_is_loaded(body, where):
    with pytest.raises(MachineDefinitionError) as info:
        collect(brownie(body))
    assert str(info.value) == f"{where} is an async def: evmstate calls it without awaiting what it returns, so its body would never run. Write it as a plain def: contract calls are synchronous (no await)."


@pytest.mark.parametrize(
    "body, message",
    [
        ("    def rule_a(self, x):\n        yield x\n", "Machine.rule_a is a generator (it has a yield): calling it does not run its body. Remove the yield; to put values into a bundle, return them (several: return multiple(a, b))."),
        ("    def invariant(self):\n        yield\n", "Machine.invariant is a generator (it has a yield): calling it does not run its body. Remove the yield; check the state with assert."),
        ("    def setup(self):\n        yield\n", "Machine.setup is a generator (it has a yield): calling it does not run its body. Remove the yield; to keep a context manager open for the run, write self.enter(cm)."),
        ("    def __init__(cls, accounts):\n        yield\n", "Machine.__init__ is a generator (it has a yield): calling it does not run its body. Remove the yield; deploy and assign in the body itself (cls.token = Token.deploy(...))."),
    ],
    ids=["rule", "invariant", "setup", "__init__"],
)
def test_generators_are_refused_when_the_machine_is_loaded(body, message):
    with pytest.raises(MachineDefinitionError) as info:
        collect(brownie(body))
    assert str(info.value) == message


def test_decorated_async_and_generator_rules_invariants_and_initializers_are_refused_too():
    items = Bundle("items")

    class AsyncRule(StateMachine):
        @rule(x=strategy("uint8"))
        async def put(self, x):
            pass

    class GeneratorInvariant(StateMachine):
        @rule()
        def put(self):
            pass

        @invariant()
        def checked(self):
            yield

    class AsyncInitializer(StateMachine):
        @initialize(target=items)
        async def first(self):
            return 1

        @rule(item=items)
        def use(self, item):
            pass

    for cls, where, what in ((AsyncRule, "AsyncRule.put", "an async def"), (GeneratorInvariant, "GeneratorInvariant.checked", "a generator"), (AsyncInitializer, "AsyncInitializer.first", "an async def")):
        with pytest.raises(MachineDefinitionError, match=f"^{where} is {what}"):
            collect(cls)
