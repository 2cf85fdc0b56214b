"""The property packs as classes: what a machine mixing them in collects, how a property is switched off, the canaries' verdicts, the scaffold's reading of an ABI and a source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evmstate import StateMachine, invariant, precondition, rule, strategy
from evmstate.compiler.artifacts import Artifact
from evmstate.search import canaries
from evmstate.engine.events import Canary, MachineFinished, RuleStats
from evmstate.errors import MachineDefinitionError
from evmstate.properties import ERC20Properties, ERC721Properties, ERC2612Properties, ERC4626Properties
from evmstate.properties.base import properties, property_names
from evmstate.properties.scaffold import _rule, _token_names, default, functions, names_token, snake, standards
from evmstate.spec import collect

PACKS = (ERC20Properties, ERC721Properties, ERC2612Properties, ERC4626Properties)
# rules that are not properties: they give the actors what the properties need
DRIVERS = {"rule_erc20_fund", "rule_erc4626_fund", "rule_erc4626_donate"}


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.__name__)
def test_every_property_is_named_for_its_pack_and_quotes_an_eip_sentence(pack):
    found = properties(pack)
    assert len(found) >= 5
    for name, what, clause in found:
        assert re.fullmatch(rf"(rule|invariant|initialize)_{pack.prefix}_\w+", name), name
        assert what.endswith(".") and len(what) > 20, (name, what)
        if name not in DRIVERS:
            assert re.match(r'EIP-\d+(, [\w ]+)?: ".+"', clause), (name, clause)


def test_a_machine_in_either_style_collects_every_property_of_the_packs_it_mixes_in():
    class Plain(ERC20Properties, ERC2612Properties):
        pass

    class Decorated(StateMachine, ERC4626Properties):
        pass

    plain, decorated = collect(Plain), collect(Decorated)
    assert {r.name for r in (*plain.rules, *plain.invariants)} == property_names(Plain)
    assert {r.name for r in (*decorated.rules, *decorated.invariants, *decorated.initializers)} == property_names(Decorated)
    transfer = next(r for r in plain.rules if r.name == "rule_erc20_transfer_moves_exact_amount")
    assert [p.name for p in transfer.params] == ["sender", "receiver", "amount"]
    # the preconditions of the optional behaviours hold in both styles
    assert next(r for r in plain.rules if r.name == "rule_erc20_mint_credits_exact_amount").preconditions
    assert next(r for r in decorated.invariants if r.name == "invariant_erc4626_total_assets_match_balance").preconditions


def test_naming_a_property_none_switches_it_off_and_a_misspelt_name_is_an_error():
    class Token(ERC20Properties):
        rule_erc20_transfer_emits_transfer_event = None
        invariant_erc20_balances_sum_to_total_supply = None

    spec = collect(Token)
    names = {r.name for r in (*spec.rules, *spec.invariants)}
    assert "rule_erc20_transfer_emits_transfer_event" not in names and "invariant_erc20_balances_sum_to_total_supply" not in names
    assert "rule_erc20_transfer_moves_exact_amount" in names
    with pytest.raises(MachineDefinitionError, match=r"Fee\.rule_erc20_transfer_moves_exact_amout = None switches off no property.*Did you mean 'rule_erc20_transfer_moves_exact_amount'\?"):

        class Fee(ERC20Properties):
            rule_erc20_transfer_moves_exact_amout = None


def test_a_machine_of_its_own_switches_off_what_it_inherits_and_honours_preconditions():
    class Base:
        amount = strategy("uint256")

        def rule_a(self, amount):
            pass

        def rule_b(self, amount):
            pass

        def invariant_c(self):
            pass

    class Child(Base):
        rule_b = None
        invariant_c = None

        @precondition(lambda self: False)
        def rule_d(self):
            pass

    spec = collect(Child)
    assert [r.name for r in spec.rules] == ["rule_a", "rule_d"] and spec.invariants == []
    assert len(spec.rules[1].preconditions) == 1

    class Decorated(StateMachine):
        @rule()
        def go(self):
            pass

        @invariant()
        def check(self):
            pass

    class Less(Decorated):
        rule_go = None  # a decorated rule's name does not start with rule_: None only hides rule_/invariant_ names
        check = None

    assert [r.name for r in collect(Less).rules] == ["go"]


def test_canaries_count_checks_and_a_passing_machine_names_the_properties_never_exercised():
    canaries.exercised("rule_x", True)  # outside a machine's run: nothing happens
    registry = canaries.Registry()
    with canaries.CURRENT.using(registry):
        canaries.exercised("rule_a", False, "a non-zero transfer")
        canaries.exercised("rule_a", False, "a non-zero transfer")
        canaries.exercised("rule_b", True, "a non-zero transfer")
        canaries.exercised("rule_c", False, "an owner holding tokens", reverting=True)
        canaries.left_out("rule_mint", "the token has no mint(address,uint256)")
    assert registry.canaries["rule_a"] == Canary("a non-zero transfer", checked=2, interesting=0)
    assert registry.left_out == {"rule_mint": "the token has no mint(address,uint256)"}
    mostly = RuleStats(calls=30, transactions=30, transactions_reverted=25)
    rules = {"rule_a": RuleStats(calls=2), "rule_c": RuleStats(calls=1, transactions=1, transactions_reverted=1), "rule_mint": RuleStats(), "rule_d": RuleStats(), "rule_b": mostly, "rule_e": mostly}
    result = MachineFinished(name="M", kind="machine", path="m.py", status="passed", examples=1, steps=3, elapsed=0.1, rules=rules, canaries=registry.canaries, left_out=registry.left_out)
    assert result.unexercised == ["rule_a", "rule_c"]
    assert result.never_run == ["rule_d"]  # rule_mint is left out on purpose
    assert result.all_reverted == []  # rule_c is meant to revert
    registry.canaries["rule_b"].reverting = True
    assert result.mostly_reverted == ["rule_e"]  # rule_b's reverts are what it checks; rule_e's are not
    assert "M.rule_a was checked 2 times but never on a non-zero transfer: it passed without testing anything" in result.run_warnings
    failed = MachineFinished(name="M", kind="machine", path="m.py", status="failed", examples=1, steps=3, elapsed=0.1, canaries=registry.canaries)
    assert not any("never on" in w for w in failed.run_warnings)
    merged = canaries.merged([registry.canaries, {"rule_a": Canary("a non-zero transfer", 1, 1)}])
    assert merged["rule_a"] == Canary("a non-zero transfer", 3, 1) and merged["rule_c"].reverting


ERC20_ABI = [{"type": "function", "name": n, "inputs": [], "outputs": [], "stateMutability": "nonpayable"} for n in ("transfer", "transferFrom", "approve", "balanceOf", "allowance", "totalSupply")]
VAULT_ABI = ERC20_ABI + [{"type": "function", "name": n, "inputs": [], "outputs": [], "stateMutability": "view"} for n in ("asset", "totalAssets", "deposit", "mint", "withdraw", "redeem", "previewDeposit", "maxDeposit", "convertToShares")]
PERMIT_ABI = ERC20_ABI + [{"type": "function", "name": n, "inputs": [], "outputs": [], "stateMutability": "view"} for n in ("permit", "nonces", "DOMAIN_SEPARATOR")]


def test_the_scaffold_tells_the_standards_from_the_abi():
    assert standards(ERC20_ABI) == ["erc20"]
    assert standards(PERMIT_ABI) == ["erc20", "erc2612"]
    assert standards(VAULT_ABI) == ["erc4626"]
    assert standards(ERC20_ABI[:3]) == []
    assert snake("ERC4626Mock") == "erc4626_mock" and snake("Vesting") == "vesting"


def test_the_scaffold_fills_constructor_arguments_by_type_and_name():
    assert default("name_", "string", None) == '"Token"' and default("symbol_", "string", None) == '"TKN"'
    assert default("initial_supply_", "uint256", None) == '"1000 ether"'
    assert default("decimals_", "uint8", None) == "18" and default("decimals_offset_", "uint8", None) == "0"
    assert default("asset_", "address", "asset") == "asset" and default("admin", "address", "asset") == "accounts[0]"
    assert default("cap", "uint256", None) == "10**30"
    assert default("pair", "(uint256,bool)", None) == "(1000, False,)"


def test_the_scaffold_names_a_token_per_argument_after_it_clear_of_the_machines_other_names():
    assert default("_collateral", "address", "t") == "t" and default("want", "address", "t") == "t"
    assert default("_debt", "address", "t") == "t" and default("fee_receiver", "address", "t") == "accounts[0]"
    # the last word says what the address is: past a suffix (token0, token_a, tokenIn), a token word or its plural
    for name in ("asset_", "_stakingToken", "rewardsToken", "token0", "token_a", "tokenIn", "underlying_", "coins", "_weth"):
        assert names_token(name), name
    for name in ("_debtor", "reward_distributor", "asset_manager", "staker", "token_owner", "debt_oracle", "admin"):
        assert not names_token(name), name
    taken = {"accounts", "pool", "collateral", "debt", "collateral_token", "st_address"}
    # collateral_token is the pool's getter of an address: the machine's token may take its name (its ghost goes)
    assert _token_names(["_collateral", "_debt", "asset_"], taken, {"collateral_token"}) == {
        "_collateral": "collateral_token", "_debt": "debt_token", "asset_": "asset"
    }
    # neither name free: a numbered one, never a name the machine already uses
    assert _token_names(["_collateral"], taken, set()) == {"_collateral": "collateral_token_1"}
    assert _token_names(["token_a", "token_a_"], set(), set()) == {"token_a": "token_a", "token_a_": "token_a_2"}


def test_the_scaffold_reads_who_may_call_a_function_from_the_source(tmp_path: Path):
    source = tmp_path / "Roles.vy"
    source.write_text(
        "owner: public(address)\nminters: public(HashMap[address, bool])\n\n"
        "@external\ndef set_fee(fee: uint256):\n    self._only_owner()\n    assert fee < 100, \"too high\"\n\n"
        "@internal\ndef _only_owner():\n    assert msg.sender == self.owner, \"not the owner\"\n\n"
        "@external\ndef mint(to: address, amount: uint256):\n    assert self.minters[msg.sender]\n\n"
        "@external\ndef take(amount: uint256):\n    assert self.minters[msg.sender] or amount == 0\n\n"
        "@external\ndef poke():\n    if True:\n        assert msg.sender == self.owner\n"
    )
    abi = [
        {"type": "function", "name": "owner", "inputs": [], "outputs": [{"type": "address"}], "stateMutability": "view"},
        {"type": "function", "name": "minters", "inputs": [{"name": "a", "type": "address"}], "outputs": [{"type": "bool"}], "stateMutability": "view"},
        {"type": "function", "name": "set_fee", "inputs": [{"name": "fee", "type": "uint256"}], "outputs": [], "stateMutability": "nonpayable"},
        {"type": "function", "name": "mint", "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}], "outputs": [], "stateMutability": "nonpayable"},
        {"type": "function", "name": "poke", "inputs": [], "outputs": [], "stateMutability": "nonpayable"},
        {"type": "function", "name": "take", "inputs": [{"name": "amount", "type": "uint256"}], "outputs": [], "stateMutability": "nonpayable"},
    ]
    artifact = Artifact("Roles", str(source), "", abi, b"\x00", b"\x00")
    found = {f.name: f for f in functions(artifact, set())}
    assert set(found) == {"set_fee", "mint", "poke", "take"}
    assert found["set_fee"].sender == "sender == self.{c}.owner()"
    assert found["set_fee"].checks == ['assert msg.sender == self.owner, "not the owner"', 'assert fee < 100, "too high"']
    assert found["mint"].sender == "self.{c}.minters(sender)"
    assert found["poke"].sender is None  # a check inside a branch is not one every call meets
    assert found["take"].sender is None  # nor one that is more than the sender's role



def test_a_sender_check_with_a_dev_comment_still_names_who_may_call(tmp_path: Path):
    # Curve's VotingEscrow: `assert msg.sender == self.admin  # dev: admin only`, Brownie's revert comment after the check
    source = tmp_path / "Admin.vy"
    source.write_text(
        "admin: public(address)\nminters: public(HashMap[address, bool])\n\n"
        "@external\ndef commit(addr: address):\n    assert msg.sender == self.admin  # dev: admin only\n\n"
        "@external\ndef mint(amount: uint256):\n    assert self.minters[msg.sender]  # dev: minters only\n"
    )
    abi = [
        {"type": "function", "name": "admin", "inputs": [], "outputs": [{"type": "address"}], "stateMutability": "view"},
        {"type": "function", "name": "minters", "inputs": [{"name": "a", "type": "address"}], "outputs": [{"type": "bool"}], "stateMutability": "view"},
        {"type": "function", "name": "commit", "inputs": [{"name": "addr", "type": "address"}], "outputs": [], "stateMutability": "nonpayable"},
        {"type": "function", "name": "mint", "inputs": [{"name": "amount", "type": "uint256"}], "outputs": [], "stateMutability": "nonpayable"},
    ]
    found = {f.name: f for f in functions(Artifact("Admin", str(source), "", abi, b"\x00", b"\x00"), set())}
    assert found["commit"].sender == "sender == self.{c}.admin()"
    assert found["mint"].sender == "self.{c}.minters(sender)"

def test_the_docs_list_every_property_of_every_pack_with_its_eip_sentence():
    text = (Path(__file__).resolve().parents[2] / "docs" / "properties.md").read_text(encoding="utf-8")
    for pack in PACKS:
        section = text.split(f"### {pack.__name__}\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
        rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+) \|$", section, re.M)
        documented = [(name, what, clause.replace("\\|", "|")) for name, what, clause in rows]
        expected = [(name, what, clause or "(not a property: gives the others what they need)") for name, what, clause in properties(pack)]
        assert documented == expected, f"docs/properties.md: the table of {pack.__name__} is not the pack's properties"


def test_the_shards_of_a_machine_and_a_campaigns_runs_add_their_canaries_up():
    from evmstate.scale.events import ItemTotals
    from evmstate.scale.parallel import merge_shards

    def shard(canary: Canary, left_out: dict[str, str]) -> MachineFinished:
        return MachineFinished(name="M", kind="machine", path="m.py", status="passed", examples=1, steps=1, elapsed=0.1, canaries={"rule_a": canary}, left_out=left_out)

    _, merged = merge_shards({0: shard(Canary("a deposit", 2, 0), {}), 1: shard(Canary("a deposit", 3, 1), {"rule_mint": "no mint"})}, 2, 1.0)
    assert merged.canaries == {"rule_a": Canary("a deposit", 5, 1)} and merged.left_out == {"rule_mint": "no mint"}
    assert merged.unexercised == []
    totals = ItemTotals(canaries=canaries.merged([{"rule_a": Canary("a deposit", 2, 0)}, {"rule_a": Canary("a deposit", 3, 0)}]))
    assert totals.unexercised == ["rule_a"] and totals.canaries["rule_a"].checked == 5


def test_the_scaffold_bounds_an_amount_by_whose_balance_it_comes_from(tmp_path: Path):
    """transferFrom's amount comes from _from's balance, not the caller's; an allowance comes from no balance; a
    transfer's from the sender's."""
    source = tmp_path / "Ledger.vy"
    source.write_text(
        "@external\ndef transferFrom(_from: address, _to: address, _value: uint256) -> bool:\n    return True\n\n"
        "@external\ndef approve(_spender: address, _value: uint256) -> bool:\n    return True\n\n"
        "@external\ndef transfer(_to: address, _value: uint256) -> bool:\n    return True\n"
    )
    def fn(name, *inputs):
        return {"type": "function", "name": name, "inputs": [{"name": n, "type": t} for n, t in inputs], "outputs": [{"type": "bool"}], "stateMutability": "nonpayable"}
    abi = [
        fn("transferFrom", ("_from", "address"), ("_to", "address"), ("_value", "uint256")),
        fn("approve", ("_spender", "address"), ("_value", "uint256")),
        fn("transfer", ("_to", "address"), ("_value", "uint256")),
    ]
    found = {f.name: f for f in functions(Artifact("Ledger", str(source), "", abi, b"\x00", b"\x00"), set())}
    text = {name: "\n".join(_rule(f, "ledger", True)) for name, f in found.items()}
    assert "value = min(value, self.ledger.balanceOf(from_))  # at most what from_ holds" in text["transferFrom"], text["transferFrom"]
    assert "min(" not in text["approve"], text["approve"]
    assert "value = min(value, self.ledger.balanceOf(sender))  # at most what sender holds" in text["transfer"], text["transfer"]
