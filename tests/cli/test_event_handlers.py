"""Every renderer method is named for an event, and every event a command emits is rendered or listed here as left out on purpose.

The renderers dispatch on method names (CompileFinished goes to _on_compile_finished): a renamed
event would otherwise be dropped without a word.
"""

from __future__ import annotations

import inspect
import typing

from evmstate.engine import events
from evmstate.mutate import report
from evmstate.scale import events as campaign_events
from evmstate_cli import render, render_campaign, render_mutate, render_replay

RENDERERS = [render.Renderer, render_campaign.CampaignRenderer, render_mutate.MutateRenderer,
             render_replay.ReplayRenderer, render_replay.ShrinkRenderer, render_replay.PruneRenderer]
# emitted, and shown by no renderer on purpose: why
LEFT_OUT: dict[str, str] = {}


def emitted() -> set[type]:
    kinds: set[type] = set()
    for union in (events.Event, events.ReplayEvent, campaign_events.CampaignEvent, report.MutateEvent):
        kinds |= set(typing.get_args(union))
    return kinds


def test_every_handler_names_an_event():
    names = {render._method_name(kind): kind for kind in emitted()}
    for renderer in RENDERERS:
        for name, _ in inspect.getmembers(renderer, inspect.isfunction):
            if name.startswith("_on_"):
                assert name in names, f"{renderer.__name__}.{name} handles no event: was one renamed?"


def test_every_event_is_rendered_or_left_out_on_purpose():
    handled = {name for renderer in RENDERERS for name, _ in inspect.getmembers(renderer, inspect.isfunction)}
    unhandled = sorted(kind.__name__ for kind in emitted() if render._method_name(kind) not in handled)
    assert unhandled == sorted(LEFT_OUT), f"events no renderer shows: {unhandled} (render them, or list them in LEFT_OUT with why)"


def test_the_unions_hold_only_events():
    """Every member of the unions is a dataclass of an events module (not Any, not a typo'd alias)."""
    for kind in emitted():
        assert kind.__module__ in {events.__name__, campaign_events.__name__, report.__name__}, kind
        assert hasattr(kind, "__dataclass_fields__"), kind
