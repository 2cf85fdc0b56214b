"""`evmstate init --machine` on contracts that take tokens: each token argument its own ERC-20, every actor holding
some and the contract approved, so that the machine's deposits succeed; run on real vyper and py-evm.

The lending pool (tests/projects/scaffold_tokens) takes two tokens and its project's Token anyone may mint; the
bundled ShareVault takes one, and the bundled Token has no mint: its deployer holds the supply.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, init, run

from ..conftest import REPO, SEARCH_ONLY, copy_example, copy_project

LENDING = REPO / "tests" / "projects" / "scaffold_tokens"


def scaffold_and_run(root: Path, name: str):
    """The machine init writes for name, and its result run at seed 2 on py-evm (a seed whose 5 runs of 10 steps draw deposits)."""
    (written,), _ = init(root, machine=name, force=True)
    config = config_mod.load(root)
    assert config.backend.name == "pyevm"
    options = RunOptions((str(written),), overrides=Overrides(seed=2, max_examples=5, stateful_step_count=10, phases=SEARCH_ONLY))
    summary = run(config, options, lambda event: None)
    assert not summary.load_errors, summary.load_errors
    (result,) = summary.results
    return written.read_text(), result


def test_each_token_argument_gets_its_own_token_and_the_actors_can_deposit(tmp_path: Path):
    root = copy_project(LENDING, tmp_path / "lending")
    text, result = scaffold_and_run(root, "LendingPool")
    # two arguments, two tokens, named after them; each actor holds both and has approved the pool
    assert 'collateral_token = Token.deploy("Token", "TKN", {"from": accounts[0]})' in text
    assert 'debt_token = Token.deploy("Token", "TKN", {"from": accounts[0]})' in text
    assert "LendingPool.deploy(collateral_token, debt_token, {" in text
    assert 'collateral_token.mint(a, HELD, {"from": accounts[0]})' in text
    assert 'debt_token.approve(cls.lending_pool, MAX, {"from": a})' in text
    # the pool's getters of the same names would hide the tokens the machine holds: no ghost for them
    assert "self.collateral_token =" not in text and "self.collateral = {a:" in text
    assert result.status == "passed", (result.failure and result.failure.message, result.error)
    deposit = result.rules["rule_deposit"]
    # drawn amounts are full-width uint256: most are within the million each actor holds, so most deposits succeed
    # (how many deposits seed 2 draws differs with what ran before in the process: 2 after some of the quick tier, 4
    # alone; each is a transaction, not a revert the machine filtered)
    assert deposit.transactions >= 1 and 2 * deposit.transactions_reverted < deposit.transactions, deposit
    withdraw = result.rules["rule_withdraw"]
    assert withdraw.transactions_reverted < withdraw.transactions, withdraw  # collateral came in, and some went out


def test_a_token_without_mint_is_shared_out_from_the_deployers_supply(tmp_path: Path):
    root = copy_example(tmp_path / "example")
    shutil.rmtree(root / "machines")
    text, result = scaffold_and_run(root, "ShareVault")
    assert 'asset = Token.deploy("Token", "TKN", 18, "1000 ether", {"from": accounts[0]})' in text
    assert "asset_share = asset.balanceOf(accounts[0]) // ACTORS" in text
    assert 'asset.transfer(a, asset_share, {"from": accounts[0]})' in text and "HELD" not in text
    assert result.status == "passed", (result.failure and result.failure.message, result.error)
    deposit = result.rules["rule_deposit"]
    assert deposit.transactions > deposit.transactions_reverted, deposit


WRAPPED = """# pragma version ~=0.4.3
# An ERC-20 with no mint and no supply at deployment: ether wrapped by deposit() is the only way in.

totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@external
@payable
def deposit():
    self.balanceOf[msg.sender] += msg.value
    self.totalSupply += msg.value


@external
def transfer(_to: address, _value: uint256) -> bool:
    self.balanceOf[msg.sender] -= _value
    self.balanceOf[_to] += _value
    return True


@external
def transferFrom(_from: address, _to: address, _value: uint256) -> bool:
    self.allowance[_from][msg.sender] -= _value
    self.balanceOf[_from] -= _value
    self.balanceOf[_to] += _value
    return True


@external
def approve(_spender: address, _value: uint256) -> bool:
    self.allowance[msg.sender][_spender] = _value
    return True
"""

FARM = """# pragma version ~=0.4.3
# Stake the want token, earn the reward token.
from ethereum.ercs import IERC20

want: public(IERC20)
reward_token: public(IERC20)
staked: public(HashMap[address, uint256])


@deploy
def __init__(_want: IERC20, _reward: IERC20):
    self.want = _want
    self.reward_token = _reward


@external
def stake(_amount: uint256):
    self.staked[msg.sender] += _amount
    extcall self.want.transferFrom(msg.sender, self, _amount)
"""


def test_a_token_no_actor_can_be_given_says_so_where_the_machine_funds(tmp_path: Path):
    root = tmp_path / "farm"
    (root / "contracts").mkdir(parents=True)
    (root / "evmstate.toml").write_text("[accounts]\ncount = 4\n")
    (root / "contracts" / "Farm.vy").write_text(FARM)
    (root / "contracts" / "Wrapped.vy").write_text(WRAPPED)
    text, result = scaffold_and_run(root, "Farm")
    # want and reward are token words; reward_token() is the pool's getter of the token, so the machine's token takes
    # its name and the ghost is left out, while want() stays a ghost beside the token want_token
    assert "Farm.deploy(want_token, reward_token, {" in text
    assert "self.reward_token =" not in text and "self.want = self.farm.want()" in text
    assert "# DECIDE: Wrapped has no mint(address, uint256) and its deployer holds none of it" in text
    assert ".mint(" not in text and ".transfer(" not in text
    assert 'want_token.approve(cls.farm, MAX, {"from": a})' in text
    # the machine runs as written; with nothing to stake, every stake of more than nothing reverts
    assert result.status == "passed", (result.failure and result.failure.message, result.error)
    assert result.rules["rule_stake"].transactions > 0
