"""Every event type is known to the terminal renderer; an unknown one fails loudly instead of
silently showing nothing (a renamed event once stopped being shown without a sound)."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO
from typing import ClassVar

import pytest
from rich.console import Console

from interp.core import events as ev
from interp.ui.render import UNSHOWN, Renderer

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


@dataclass(frozen=True, kw_only=True)
class Typo(ev.Event):
    type: ClassVar[str] = "block.outptu"
    text: str


def renderer() -> tuple[Renderer, StringIO]:
    out = StringIO()
    return Renderer(Console(file=out, width=80, color_system=None)), out


def test_every_event_type_is_shown_or_deliberately_not():
    shown = set(renderer()[0]._handlers())
    assert {kind.type for kind in shown | UNSHOWN} == ev.TYPES
    assert not shown & UNSHOWN


def test_an_unknown_event_type_fails_loudly():
    with pytest.raises(ev.UnknownEvent, match="task.finishd"):
        ev.event("task.finishd", exit_code=0)
    view, _ = renderer()
    with pytest.raises(ev.UnknownEvent, match="block.outptu"):
        view.handle(Typo(text="lost"))


def test_known_events_are_drawn_and_session_bounds_are_silent():
    view, out = renderer()
    view.handle(ev.event(ev.SESSION_STARTED, session_id="s1"))
    assert out.getvalue() == ""
    view.handle(ev.event(ev.NOTICE, level="warning", text="careful"))
    view.handle(ev.event(ev.BLOCK_DECLINED, index=1, reason="not now"))
    assert out.getvalue() == "careful\ndeclined: not now\n"


def test_a_notice_of_a_reply_check_names_the_check():
    """The person sees which check sent the answer back: the name `--checks` takes."""
    view, out = renderer()
    view.handle(ev.Notice(level="info", text="The answer does not take the form the task asks "
                          "for; asking the model to restate it.", check="answer-format"))
    assert out.getvalue().startswith("[answer-format] The answer does not take the form")
