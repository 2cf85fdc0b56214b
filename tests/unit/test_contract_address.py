"""CREATE addresses computed without py-evm agree with py-evm's own rule."""

from __future__ import annotations

import subprocess
import sys

from eth._utils.address import generate_contract_address
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evmstate.evm.base import contract_address


@given(st.binary(min_size=20, max_size=20), st.integers(0, 2**64 - 2))
def test_the_create_address_is_py_evms(sender: bytes, nonce: int) -> None:
    assert contract_address(sender, nonce) == generate_contract_address(sender, nonce)


def test_a_known_address() -> None:
    # the first contract 0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0 creates (a textbook example)
    sender = bytes.fromhex("6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0")
    assert contract_address(sender, 0).hex() == "cd234a471b72ba2f1ccf0a70fcaba648a5eecd8d"


@pytest.mark.processes
def test_the_command_line_does_not_import_py_evm_until_a_chain_runs() -> None:
    code = "import sys, evmstate_cli.main; print('eth' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
