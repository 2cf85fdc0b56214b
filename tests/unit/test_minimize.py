"""The step-deletion pass's bookkeeping: which steps go together, and renumbered bundle values."""

from evmstate.engine.shrink import relabel, with_users


def step(rule, results=(), **refs):
    return {"rule": rule, "arguments": {k: {"ref": v} for k, v in refs.items()}, "results": list(results)}


PROGRAM = [
    step("grant", ["active_0"]),
    step("revoke", ["revoked_0"], grant="active_0"),
    step("grant", ["active_1"]),
    step("claim", grant="active_1"),
    step("claim_revoked", grant="revoked_0"),
    {"rule": "sleep", "arguments": {"seconds": 3}, "results": []},
]


def test_a_step_goes_with_every_step_that_uses_its_values_directly_or_not():
    assert with_users(PROGRAM, 0) == {0, 1, 4}
    assert with_users(PROGRAM, 1) == {1, 4}
    assert with_users(PROGRAM, 2) == {2, 3}
    assert with_users(PROGRAM, 5) == {5}


def test_bundle_values_are_numbered_from_zero_again():
    kept = [PROGRAM[2], PROGRAM[3], PROGRAM[5]]
    assert relabel(kept) == [
        step("grant", ["active_0"]),
        step("claim", grant="active_0"),
        {"rule": "sleep", "arguments": {"seconds": 3}, "results": []},
    ]
    assert relabel([step("make", ["my_bundle_3"]), step("use", x="my_bundle_3")]) == [step("make", ["my_bundle_0"]), step("use", x="my_bundle_0")]
