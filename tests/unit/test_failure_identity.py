"""A failure's identity, and the failure store keeping one record per identity: the shortest program found."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from evmstate.failures import FailureIdentity, FailureRecord, FailureStore

INVARIANT = {"type": "AssertionError", "message": "assert 0 == 1", "invariant": "invariant_total", "call_failure": None, "location": "machines/m.py:43 in invariant_total\n    assert self.total == self.vault.total()"}
REVERT = {
    "type": "TransactionReverted",
    "message": "Vault.withdraw reverted: 'not enough'",
    "invariant": None,
    "location": "machines/m.py:30 in rule_withdraw\n    self.vault.withdraw(amount, {'from': who})",
    "call_failure": {"contract": "Vault", "function": "withdraw", "reason": "not enough", "source_line": "contracts/Vault.vy:41: assert self.balances[msg.sender] >= amount, \"not enough\""},
}
ASSERTION = {"type": "AssertionError", "message": "assert 5 == 4", "invariant": None, "call_failure": None, "location": "machines/m.py:33 in rule_withdraw\n    assert after == before - amount"}
EXCEPTION = {"type": "KeyError", "message": "accounts[3]", "invariant": None, "call_failure": None, "location": "machines/m.py:35 in rule_withdraw\n    self.deposits[who] -= amount"}


def steps(*rules: str) -> list[dict]:
    return [{"rule": r, "arguments": {"amount": i}, "results": []} for i, r in enumerate(rules)]


def record(error: dict, program: list[dict], *, created: float = 1.0, hashes: dict | None = None, rid: str | None = None) -> FailureRecord:
    identity = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", error, program)
    return FailureRecord(
        id=rid or identity.id, kind="machine", path="machines/m.py", name="VaultMachine", error=error, steps=program,
        program=[f"state.{s['rule']}(amount={s['arguments']['amount']})" for s in program], created=created,
        hashes=hashes if hashes is not None else {"uses": {"Vault": {"contracts/Vault.vy": "aa"}}, "deployments": {}, "module": "bb"},
    )


def test_the_kind_name_and_place_of_each_kind_of_failure():
    invariant = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", INVARIANT, steps("rule_deposit", "rule_withdraw"))
    assert (invariant.kind, invariant.name, invariant.where) == ("invariant", "invariant_total", "machines/m.py in invariant_total\n    assert self.total == self.vault.total()")
    revert = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", REVERT, steps("rule_deposit", "rule_withdraw"))
    assert (revert.kind, revert.name, revert.where) == ("revert", "rule_withdraw", 'contracts/Vault.vy: assert self.balances[msg.sender] >= amount, "not enough"')
    rule = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", ASSERTION, steps("rule_withdraw"))
    assert (rule.kind, rule.name, rule.detail) == ("rule", "rule_withdraw", "")
    exception = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", EXCEPTION, steps("rule_withdraw"))
    assert (exception.kind, exception.detail) == ("exception", "accounts[#]")
    test = FailureIdentity.of("machines/t.py", "test_withdraw", "test", ASSERTION, steps("test_withdraw"))
    assert (test.kind, test.name) == ("rule", "test_withdraw")
    assert str(revert) == 'revert rule_withdraw at contracts/Vault.vy: assert self.balances[msg.sender] >= amount, "not enough" (TransactionReverted)'
    assert len({invariant.id, revert.id, rule.id, exception.id, test.id}) == 5


def test_the_program_the_values_and_the_line_number_leave_the_identity_as_it_is():
    one = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", INVARIANT, steps("rule_deposit", "rule_withdraw"))
    moved = {**INVARIANT, "message": "assert 7 == 9", "location": INVARIANT["location"].replace(":43 ", ":51 ")}
    other = FailureIdentity.of("machines/m.py", "VaultMachine", "machine", moved, steps("rule_withdraw", "rule_deposit", "rule_deposit"))
    assert one == other and one.id == other.id
    # another invariant, another revert line, another machine: other failures
    assert FailureIdentity.of("machines/m.py", "VaultMachine", "machine", {**INVARIANT, "invariant": "invariant_supply"}, []).id != one.id
    elsewhere = {**REVERT, "call_failure": {**REVERT["call_failure"], "source_line": "contracts/Vault.vy:57: assert not self.paused"}}
    assert FailureIdentity.of("machines/m.py", "VaultMachine", "machine", elsewhere, steps("rule_withdraw")) != FailureIdentity.of("machines/m.py", "VaultMachine", "machine", REVERT, steps("rule_withdraw"))
    assert FailureIdentity.of("machines/m.py", "OtherMachine", "machine", INVARIANT, []).id != one.id


def test_the_store_keeps_the_shortest_program_of_a_failure_under_one_id(tmp_path: Path):
    store = FailureStore(tmp_path)
    long = record(INVARIANT, steps("rule_deposit", "rule_deposit", "rule_withdraw"), created=1.0)
    assert store.keep(long) is long and store.ids() == [long.id]
    short = record({**INVARIANT, "message": "assert 3 == 2"}, steps("rule_deposit", "rule_withdraw"), created=2.0)
    assert short.id == long.id
    assert store.keep(short) is short
    assert store.ids() == [long.id] and len(store.load(long.id).steps) == 2
    # a longer program found later leaves the saved one, and says which is kept
    again = record(INVARIANT, steps("rule_deposit", "rule_deposit", "rule_deposit", "rule_withdraw"), created=3.0)
    kept = store.keep(again)
    assert kept is not again and len(kept.steps) == 2 and store.ids() == [long.id] and len(store.load(long.id).steps) == 2
    # another failure of the same machine gets a record of its own
    other = record(REVERT, steps("rule_withdraw"))
    store.keep(other)
    assert sorted(store.ids()) == sorted([long.id, other.id])


def test_a_longer_program_found_on_other_sources_replaces_the_shorter_one(tmp_path: Path):
    store = FailureStore(tmp_path)
    store.keep(record(INVARIANT, steps("rule_withdraw"), hashes={"uses": {"Vault": {"contracts/Vault.vy": "old"}}, "deployments": {}, "module": "bb"}))
    newer = record(INVARIANT, steps("rule_deposit", "rule_withdraw"))
    assert store.keep(newer) is newer and len(store.load(newer.id).steps) == 2


def test_records_saved_under_the_ids_of_an_earlier_evmstate_merge_into_one(tmp_path: Path):
    store = FailureStore(tmp_path)
    # as an earlier evmstate saved them: one per program, ids covering the program, no identity field
    for rid, program in (("0123456789", steps("rule_deposit", "rule_withdraw")), ("abcdef0123", steps("rule_withdraw"))):
        data = record(INVARIANT, program, rid=rid).to_dict()
        del data["identity"]
        (tmp_path / f"{rid}.json").write_text(json.dumps(data))
    store.keep(record(REVERT, steps("rule_withdraw"), rid="fedcba9876"))  # another failure, saved under an old id too: left alone
    found = record(INVARIANT, steps("rule_deposit", "rule_deposit", "rule_withdraw"))
    kept = store.keep(found)
    # the shortest program stays, under the id it was saved with: ids never change
    assert kept.id == "abcdef0123" and kept.steps == steps("rule_withdraw")
    assert sorted(store.ids()) == ["abcdef0123", "fedcba9876"]
    # found again, shorter: it replaces that record, whose id stays
    shorter = record({**INVARIANT, "message": "assert 1 == 2"}, [])
    assert store.keep(shorter).id == "abcdef0123" and store.load("abcdef0123").steps == [] and sorted(store.ids()) == ["abcdef0123", "fedcba9876"]


def test_a_record_s_identity_is_read_back_from_its_contents(tmp_path: Path):
    saved = record(REVERT, steps("rule_deposit", "rule_withdraw"))
    FailureStore(tmp_path).save(saved)
    loaded = FailureStore(tmp_path).load(saved.id)
    assert loaded.identity == saved.identity and dataclasses.asdict(loaded.identity)["kind"] == "revert"


def test_prune_merges_the_records_an_earlier_evmstate_kept_per_program(tmp_path: Path):
    from evmstate.config import Config
    from evmstate.runner import prune_failures

    store = FailureStore(tmp_path / ".evmstate" / "failures")
    store.folder.mkdir(parents=True)
    for rid, program in (("0123456789", steps("rule_deposit", "rule_withdraw")), ("abcdef0123", steps("rule_withdraw")), ("5555555555", steps("rule_withdraw", "rule_deposit", "rule_withdraw"))):
        store.save(record(INVARIANT, program, rid=rid))
    assert {rid: kept.id for rid, kept in store.duplicates()} == {"0123456789": "abcdef0123", "5555555555": "abcdef0123"}
    events: list = []
    # the machine is gone, so the record left cannot be replayed: kept unless asked
    prune_failures(Config(root=tmp_path), events.append, dry_run=True)
    assert [(e.id, e.removed) for e in events] == [("0123456789", True), ("5555555555", True), ("abcdef0123", False)]
    assert "the same failure as abcdef0123, which holds a shorter program: 1 step" in events[0].shown
    assert len(store.ids()) == 3, "a dry run removes nothing"
    prune_failures(Config(root=tmp_path), lambda e: None)
    assert store.ids() == ["abcdef0123"]


def numbered(*amounts: int) -> list[dict]:
    """A deposit, then a borrow of each later amount: one program of the failure per list of amounts."""
    rules = ["rule_deposit", *["rule_borrow"] * (len(amounts) - 1)]
    return [{"rule": r, "arguments": {"amount": a}, "results": []} for r, a in zip(rules, amounts)]


def test_of_two_programs_as_short_the_store_keeps_the_one_with_smaller_numbers(tmp_path: Path):
    store = FailureStore(tmp_path)
    # a run on py-evm saved the program with small numbers; a run on revm found the same failure, as long, with larger
    small = record(INVARIANT, numbered(10, 5, 1), created=1.0)
    store.keep(small)
    large = record(INVARIANT, numbered(158, 79, 1), created=2.0)
    assert large.id == small.id
    assert store.keep(large).steps == small.steps and store.load(small.id).steps == small.steps
    # smaller numbers found later replace them; a wait counts as a number
    smaller = record(INVARIANT, numbered(2, 1, 1), created=3.0)
    assert store.keep(smaller).steps == smaller.steps and store.load(small.id).steps == smaller.steps
    waited = record(INVARIANT, [*numbered(2, 1), {**numbered(2, 1, 1)[2], "sleep": 86400}], created=4.0)
    assert store.keep(waited).steps == smaller.steps
    # the results a step returned are not its numbers
    answered = record(INVARIANT, [{**s, "results": [10**30]} for s in numbered(2, 1, 1)], created=5.0)
    assert store.keep(answered).steps == answered.steps
    # evmstate shrink's program, made from the saved one, replaces it at its length whatever its numbers add up to
    shrunk = record(INVARIANT, numbered(4, 2, 1), created=6.0)
    assert store.keep(shrunk, shrunk=True).steps == shrunk.steps and store.load(small.id).steps == shrunk.steps
    # but never a shorter one
    assert store.keep(record(INVARIANT, numbered(9, 9, 9, 9), created=7.0), shrunk=True).steps == shrunk.steps
    assert store.ids() == [small.id]


def test_byte_strings_texts_and_lists_count_by_their_length_too(tmp_path: Path):
    # a base64 machine: a 2-byte string saved by one seed is not replaced by a 14-byte one another seed found (both 0
    # as numbers); nor a list of two zeros by one of three, nor a short text by a longer one
    store = FailureStore(tmp_path)

    def one(arguments: dict, created: float) -> FailureRecord:
        program = [{"rule": "encode", "arguments": arguments, "results": []}]
        return dataclasses.replace(record(INVARIANT, [{"rule": "encode", "arguments": {"amount": 0}, "results": []}], created=created), steps=program)

    short = one({"data": {"bytes": "6be0"}}, 1.0)
    store.keep(short)
    assert store.keep(one({"data": {"bytes": "953d1c683f7217df7df7df7df7e0"}}, 2.0)).steps == short.steps
    assert store.keep(one({"data": {"bytes": "03e0"}}, 3.0)).steps[0]["arguments"] == {"data": {"bytes": "03e0"}}
    lists = FailureStore(tmp_path / "lists")
    lists.keep(one({"ids": [0, 0], "text": "ab"}, 1.0))
    assert lists.keep(one({"ids": [0, 0, 0], "text": "ab"}, 2.0)).steps[0]["arguments"]["ids"] == [0, 0]
    assert lists.keep(one({"ids": [0, 0], "text": "abc"}, 3.0)).steps[0]["arguments"]["text"] == "ab"


def test_a_run_whose_program_as_short_has_larger_numbers_says_which_record_replays(tmp_path: Path):
    from evmstate.engine.events import Failure, MachineFinished
    from evmstate.engine.records import kept
    from evmstate.engine.tracebacks import ErrorInfo

    def finished(program: list[dict]) -> MachineFinished:
        failure = Failure(name="VaultMachine", path="machines/m.py", error=ErrorInfo("AssertionError", "assert 0 == 1"), program=[], steps=len(program))
        return MachineFinished(name="VaultMachine", kind="machine", path="machines/m.py", status="failed", examples=1, steps=3, elapsed=0.1, failure=failure)

    store = FailureStore(tmp_path)
    small = record(INVARIANT, numbered(10, 5, 1), created=1.0)
    store.keep(small)
    large = record(INVARIANT, numbered(158, 79, 1), created=2.0)
    result = kept(finished(large.steps), large, store.keep(large))
    assert result.failure_id == small.id
    assert result.failure.notes == (
        f"a program for this failure as short as this one, with smaller numbers, was saved before: `evmstate replay {small.id}` replays that one",
    )
    # the program saved is the run's own: nothing to say
    smaller = record(INVARIANT, numbered(2, 1, 1), created=3.0)
    assert kept(finished(smaller.steps), smaller, store.keep(smaller)).failure.notes == ()
