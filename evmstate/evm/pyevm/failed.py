"""The calls inside a py-evm computation that failed, as data: the chain a failure was passed up, and the inner
failures."""

from __future__ import annotations

from typing import Any, Sequence

from eth.exceptions import Revert

from ..base import InnerFailure
from .opcodes import frame_of


def failure_chain(computation: Any) -> list[Any]:
    """A failed computation and the failed children that passed the same failure up, outermost first.

    Which of them holds the check that failed is for the layer that knows the code.
    """
    chain = [computation]
    frame = computation
    while True:
        failed = [c for c in frame.children if c.is_error]
        if not failed or failed[-1].output != frame.output:
            return chain
        frame = failed[-1]
        chain.append(frame)


def inner_failures(computation: Any, chain: Sequence[Any] = ()) -> tuple[InnerFailure, ...]:
    """The failed calls inside a computation, in the order they ran, each once: a failure passed up whole is its
    caller's."""
    found: list[InnerFailure] = []
    shown = {id(c) for c in chain}

    def visit(parent: Any) -> None:
        for child in parent.children:
            if child.is_error and id(child) not in shown:
                own = failure_chain(child)
                shown.update(id(c) for c in own)
                msg = child.msg
                error = child.error
                found.append(
                    InnerFailure(
                        depth=msg.depth,
                        sender=msg.sender,
                        to=msg.storage_address if msg.is_create else msg.code_address,
                        data=msg.code if msg.is_create else msg.data_as_bytes,
                        value=msg.value,
                        is_create=msg.is_create,
                        error="revert" if isinstance(error, Revert) else (str(error) or type(error).__name__),
                        output=child.output if isinstance(error, Revert) else b"",
                        frames=tuple(frame_of(c) for c in own),
                    )
                )
            visit(child)

    visit(computation)
    return tuple(found)


