"""Events of contracts that share an event signature, as evmstate replay prints them."""

from pathlib import Path

from ..conftest import copy_project
from .helpers import invoke

TOKENS = Path(__file__).resolve().parents[1] / "projects" / "tokens"


def test_replay_prints_each_contracts_transfer_by_its_own_abi(tmp_path, monkeypatch, cli_env: dict[str, str]):
    copy_project(TOKENS, tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out = invoke("run", "machines/transfers.py", "--seed", "1")
    assert code == 1 and "a coin and a collectible both moved" in out
    (record,) = (tmp_path / ".evmstate" / "failures").glob("*.json")
    code, out = invoke("replay", record.stem)
    assert code == 1
    zero = "0x" + "00" * 20
    assert out == (
        f"replaying {record.stem}: machines/transfers.py::TransfersMachine\n"
        "  1. state.rule_mint(st_receiver=accounts[0])\n"
        f"     event Collectible.Transfer(sender='{zero}', receiver=accounts[0], token_id=1)\n"
        "  2. state.rule_pay(st_receiver=accounts[0], st_amount=0)\n"
        "     event Coin.Transfer(sender=accounts[0], receiver=accounts[0], value=0)\n"
        "     invariant invariant_not_both failed: AssertionError: a coin and a collectible both moved\n"
        "still fails: AssertionError: a coin and a collectible both moved\n"
    )
