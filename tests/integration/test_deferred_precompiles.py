"""py-evm's BLS12-381 precompiles are imported on their first call (evmstate/evm/pyevm/deferred.py), and give py-evm's own results."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from evmstate.evm.pyevm.deferred import MODULE, STAND_INS, real_module

# in a fresh process (this one may have imported py-evm before evmstate's backend): a chain made, the
# BLS modules it loaded, then G1ADD(G, G) called at 0x0b, with py_ecc's answer (a pairing check, 0x0f, costs
# seconds of py_ecc's pure-Python arithmetic and goes through the same stand-in)
CALLS = textwrap.dedent(
    """
    import json, sys
    if sys.argv[1] == "py-evm first":
        import eth  # py-evm's own precompiles, imported before evmstate's backend could defer them
    from evmstate.evm.pyevm.backend import PyEVMBackend

    backend = PyEVMBackend(accounts=1, evm_version="prague")
    loaded = sorted(m for m in sys.modules if m.startswith(("py_ecc.optimized_bls12_381", "py_ecc.bls", "eth.precompiles.bls12_381.")))
    stand_in = getattr(sys.modules["eth.precompiles.bls12_381"], "deferred_by_evmstate", False)
    sender = backend.account_keys[0][1]

    def word(n):
        return n.to_bytes(64, "big")

    from py_ecc.optimized_bls12_381 import G1, add, normalize

    def g1(p):
        x, y = normalize(p)
        return word(int(x)) + word(int(y))

    added = backend.call(sender, (0x0B).to_bytes(20, "big"), g1(G1) + g1(G1))
    print(json.dumps({
        "loaded": loaded,
        "stand_in": stand_in,
        "added": [added.success, added.output.hex(), added.gas_used],
        "expected": g1(add(G1, G1)).hex(),
        "real_after": not getattr(sys.modules["eth.precompiles.bls12_381"], "deferred_by_evmstate", False),
    }))
    """
)


def test_the_stand_ins_are_every_bls_precompile_py_evm_has():
    import eth.precompiles

    real = real_module()
    assert not getattr(real, "deferred_by_evmstate", False)
    theirs = {name for name in dir(real) if name.startswith("bls12_") and callable(getattr(real, name))}
    assert theirs == set(STAND_INS), "py-evm's BLS12-381 precompiles changed: update STAND_INS in evmstate/evm/pyevm/deferred.py"
    assert {name for name in dir(eth.precompiles) if name.startswith("bls12_") and name != "bls12_381"} == set(STAND_INS)
    assert real.__name__ == MODULE


@pytest.mark.processes  # a fresh Python process: whether py-evm's BLS12-381 is loaded depends on what was imported first
def test_a_chain_loads_no_bls12_381_until_a_bls_precompile_runs_and_then_gives_py_evms_result():
    deferred, own = (_calls(first) for first in ("evmstate first", "py-evm first"))
    assert deferred["loaded"] == [] and deferred["stand_in"]
    assert own["loaded"] and not own["stand_in"]  # py-evm imported first: its own module, loaded with it
    success, output, _ = deferred["added"]
    assert success and output == deferred["expected"]
    assert deferred["added"] == own["added"]  # the same output and the same gas
    assert deferred["real_after"]


def _calls(first: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CALLS, first], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
