"""`evmstate compile` lists each contract's functions once, however many ABI entries a default argument gives one."""

from __future__ import annotations

from ..cli.helpers import invoke

# a default argument makes vyper emit one ABI entry per arity: balanceOf(address) and balanceOf(address,uint256), as in
# Curve's VotingEscrow
ESCROW = """
@external
@view
def balanceOf(addr: address, t: uint256 = block.timestamp) -> uint256:
    return t

@external
def checkpoint():
    pass
"""


def test_a_function_with_a_default_argument_is_listed_once(tmp_path, monkeypatch):
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Escrow.vy").write_text(ESCROW)
    (tmp_path / "evmstate.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    code, out = invoke("compile")
    line = next(line for line in out.splitlines() if line.startswith("Escrow "))
    assert code == 0 and line.endswith("  balanceOf, checkpoint"), out
