"""The backend evmstate.toml asks for, built from one ChainSpec."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..config import BackendConfig, Config
from .base import Backend, ChainSpec
from .finish import RevmFinisher
from .fork.start import fork_spec, resolve

if TYPE_CHECKING:
    from .pyevm.backend import PyEVMBackend


def chain_spec(config: Config) -> ChainSpec:
    """The chain every backend of this project starts from: [accounts], [chain], [compiler] evm_version, [fuzz]
    limits."""
    return ChainSpec(
        accounts=config.accounts.count,
        balance=config.accounts.balance,
        evm_version=config.compiler.evm_version,
        chain_id=config.chain.chain_id,
        gas_limit=config.chain.gas_limit,
        gas_price=config.chain.gas_price,
        timestamp=config.chain.timestamp,
        call_gas_limit=config.fuzz.call_gas_limit,
        call_timeout=config.fuzz.call_timeout,
        call_cache=config.fuzz.call_cache,
        fork=fork_spec(resolve(config)),
    )


def make_backend(config: Config) -> Backend:
    """The backend [backend] asks for: py-evm (finishing on revm what it runs out of time for), revm, or both in
    lockstep when check is on."""
    spec = chain_spec(config)
    if spec.fork is not None:
        return forked(config, spec)
    # revm is an optional dependency (pip install "evmstate[revm]"): imported only when asked for, or when a call runs
    # away; py-evm only when it runs (importing it takes 0.4 s: a command that runs nothing, or runs on revm, does not
    # wait for it)
    from .pyevm.backend import PyEVMBackend

    if config.backend.check:
        from .check import CheckedBackend
        from .revm.backend import RevmBackend

        return CheckedBackend(RevmBackend(spec), finishing(PyEVMBackend(spec)))
    if config.backend.name == "revm":
        from .revm.backend import RevmBackend

        return RevmBackend(spec)
    return finishing(PyEVMBackend(spec))


def check_backend(config: Config) -> None:
    """Raise the UsageError that making the backend [backend] names would raise (pyrevm missing, an evm_version revm
    does not run), without making it: before a command compiles the project for a chain it cannot run."""
    if config.backend.check or config.backend.name == "revm":
        from .revm.backend import require

        require(config.compiler.evm_version)


def forked(config: Config, spec: ChainSpec) -> Backend:
    """The backend [backend] asks for, over the state of the chain [fork] names (fork/)."""
    from .fork.pyevm import ForkedPyEVMBackend

    if config.backend.check or config.backend.name == "revm":
        from .check import CheckedBackend
        from .fork.revm import ForkedRevmBackend

        fast = ForkedRevmBackend(spec)
        return CheckedBackend(fast, ForkedPyEVMBackend(spec)) if config.backend.check else fast
    return ForkedPyEVMBackend(spec)


def for_campaign(config: Config) -> Config:
    """The config evmstate fuzz runs with: revm when no backend was named, pyrevm is installed and revm runs the
    project's evm_version.

    With every signal recorded on both, revm found each bundled search-power example in less
    time than py-evm (benchmarks/search.py --backend revm): a campaign is about finding the most
    in its time. evmstate run stays on py-evm, the reference.
    """
    if config.backend.named or config.backend.check:
        return config
    from .revm.backend import SPECS, available

    if available() and config.compiler.evm_version in SPECS:
        return config.replace(backend=BackendConfig(name="revm"))
    return config


def finishing(backend: PyEVMBackend) -> PyEVMBackend:
    """backend, with the calls it runs out of time for finished on revm when pyrevm is installed (finish.py)."""
    backend.finisher = RevmFinisher(backend.spec)
    return backend


def replay_twin(config: Config, backend: Backend) -> Backend | None:
    """A revm chain holding backend's state as it is now (every account, its time and block), to replay on faster.

    None where revm is not the faster exact stand-in for it: backend is not py-evm's own (revm already, both in
    lockstep, a forked chain, whose state revm reads through a node of its own), pyrevm is not installed, revm does not
    run the evm_version, or the environment says EVMSTATE_SHRINK_ON_REVM=0.
    """
    from .pyevm.backend import PyEVMBackend

    if type(backend) is not PyEVMBackend or config.backend.check or not config.environment.shrink_on_revm:
        return None
    from .revm.backend import SPECS, RevmBackend, available

    spec = chain_spec(config)
    if spec.fork is not None or not available() or spec.evm_version not in SPECS:
        return None
    twin = RevmBackend(spec)
    twin.load_state(backend.world(), timestamp=backend.timestamp, block_number=backend.block_number)
    return cast(Backend, twin)
