"""ExecResult's own __init__ (every call makes one) stands for a frozen dataclass's: same fields, order, defaults."""

import dataclasses
import inspect
import pickle

import pytest

from evmstate.evm.base import ExecResult


def test_init_takes_the_fields_in_order_with_their_defaults():
    params = list(inspect.signature(ExecResult.__init__).parameters.values())[1:]
    fields = dataclasses.fields(ExecResult)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields):
        expected = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert p.default == expected, f.name


def test_a_result_is_frozen_compared_by_value_and_replaced():
    a = ExecResult(success=False, output=b"\x01", gas_used=21_000, error="revert", gas_limit=30_000, explainer=lambda: None)
    b = ExecResult(False, b"\x01", 21_000, error="revert", gas_limit=30_000)
    assert a == b  # the explainer is not compared
    assert vars(a) == {f.name: getattr(a, f.name) for f in dataclasses.fields(ExecResult)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.gas_used = 1  # type: ignore[misc]
    c = dataclasses.replace(a, storage_reads=((b"\0" * 20, 1, 2),))
    assert c.storage_reads == ((b"\0" * 20, 1, 2),) and c.output == b"\x01" and c.explainer is a.explainer
    assert c != a and "storage_reads=((" in repr(c) and "explainer" not in repr(c)


def test_a_result_survives_pickling_as_a_worker_sends_it():
    a = ExecResult(success=True, output=b"\x02", gas_used=50_000, logs=(), storage_writes=((b"\1" * 20, 3, 4),))
    b = pickle.loads(pickle.dumps(a))
    assert b == a and vars(b) == vars(a)
