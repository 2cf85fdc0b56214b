"""py-evm's BLS12-381 precompiles (EIP-2537, from Prague) imported on their first call, not with py-evm.

`import eth` imports every fork, and with them every precompile: `eth.precompiles.bls12_381` pulls in
py_ecc's BLS12-381 (its field tables, its hash-to-curve ciphersuites), about 0.4 s of CPU and a third
of py-evm's import, paid by every process that runs a machine, for seven precompiles (addresses 0x0b
to 0x11) that few contracts call. py-evm has no public way to leave a precompile out, and its files
are never patched. So before py-evm is first imported, `defer()` puts a stand-in module in
`sys.modules` under that module's name, holding its seven functions (what `eth/precompiles/__init__.py`
imports from it, and what Prague's computation maps the addresses to); each imports the real module
on its first call (taking the stand-in out of `sys.modules`, so that the import system loads the file)
and calls the real function with the same arguments. A contract that calls one gets py-evm's own
result and gas. Where py-evm was imported before evmstate's backend (a user's own import), the
precompiles are py-evm's own and nothing changes.

tests/integration/test_deferred_precompiles.py checks that a run loads no BLS12-381 and that each
stand-in gives py-evm's result, and fails if a py-evm release adds, renames or moves one of the
functions (STAND_INS is checked against the real module's).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any, Callable

MODULE = "eth.precompiles.bls12_381"
# what eth/precompiles/__init__.py imports from MODULE (py-evm 0.12)
STAND_INS = (
    "bls12_g1_add",
    "bls12_g1_msm",
    "bls12_map_fp_to_g1",
    "bls12_g2_add",
    "bls12_g2_msm",
    "bls12_map_fp2_to_g2",
    "bls12_pairing_check",
)


def real_module() -> types.ModuleType:
    """py-evm's own module of the BLS12-381 precompiles, imported now if it was deferred."""
    found = sys.modules.get(MODULE)
    if found is not None and getattr(found, "deferred_by_evmstate", False):
        del sys.modules[MODULE]
        found = None
    return found if found is not None else importlib.import_module(MODULE)


def _stand_in(name: str) -> Callable[..., Any]:
    def precompile(*args: Any, **kwargs: Any) -> Any:
        return getattr(real_module(), name)(*args, **kwargs)

    precompile.__name__ = precompile.__qualname__ = name
    precompile.__doc__ = f"py-evm's {name}, imported on its first call (evmstate.evm.pyevm.deferred)"
    return precompile


def defer() -> bool:
    """Put the stand-in in place unless py-evm's precompiles are imported already; whether it is now in place."""
    if "eth.precompiles" in sys.modules or MODULE in sys.modules:
        return getattr(sys.modules.get(MODULE), "deferred_by_evmstate", False)
    doc = "A stand-in for py-evm's BLS12-381 precompiles: each imports the real module on its first call."
    stand_in = types.ModuleType(MODULE, doc)
    for name in STAND_INS:
        setattr(stand_in, name, _stand_in(name))
    stand_in.deferred_by_evmstate = True  # type: ignore[attr-defined]
    sys.modules[MODULE] = stand_in
    return True
