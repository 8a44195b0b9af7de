"""TurnChecks alone: a SessionState and replies copied from real transcripts (no Session, no
model call)."""

from __future__ import annotations

import pytest

from helpers import drain

from interp.core import events as ev
from interp.core import exits
from interp.core.history import Entry
from interp.core.state import SessionConfig, SessionState
from interp.core.loop.turns import EMPTY_NUDGE, TurnChecks
from interp.models.base import Reply
from interp.models.reach import model_for
from languages import Registry
from languages.shell import ShellRunner


pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def checks(tools: str = "off") -> TurnChecks:
    model = model_for("openai/small", api_base="http://127.0.0.1:9/v1", api_key="x")
    state = SessionState(model, SessionConfig(tools=tools), Registry([ShellRunner]),
                         [Entry({"role": "system", "content": "sys"})])
    turn = TurnChecks(state)
    turn.new_task()
    return turn


def reply(text: str, finish: str = "stop") -> Reply:
    return Reply(text, (), None, finish)


def test_the_tool_mode_follows_the_setting():
    assert drain(checks("off").tool_choice()) == ([], False)
    on = checks("on")
    assert drain(on.tool_choice()) == ([], True)
    assert on.modes() == (True, True)  # fenced blocks run until the model uses the tool


def test_a_fenced_block_is_a_step_and_an_answer_ends_the_task():
    turn = checks()
    steps = turn.steps(reply("Listing:\n```bash\nls -la\n```"))
    assert [(s.language, s.code, s.fenced) for s in steps] == [("shell", "ls -la", True)]
    assert drain(turn.no_steps(reply("The folder holds 3 files."))) == \
        ([], (exits.OK, "done"))


def test_an_empty_reply_is_nudged_once_then_ends_the_task():
    turn = checks()
    events, ending = drain(turn.no_steps(reply("")))
    assert ending is None and events[0].level == "warning"
    assert turn.state.messages[-1].message == {"role": "user", "content": EMPTY_NUDGE}
    events, ending = drain(turn.no_steps(reply("")))
    assert ending == (exits.NO_ANSWER, "empty reply") and events[0].level == "error"
    turn.new_task()
    assert turn.empty_replies == 0


def test_code_in_an_untagged_fence_asks_the_model_to_tag_it_once_a_task():
    turn = checks()
    answer = reply("Run this:\n```\nls -la\n```")
    request = turn.on_reply(answer, turn.steps(answer))
    assert request is not None and request.check == "untagged-code" and not request.retracts
    events, _ = drain(turn.ask(request))
    assert events == [ev.Notice(level="info", text=request.notice, check="untagged-code")]
    assert "has no language tag" in turn.state.messages[-1].content
    assert turn.on_reply(answer, []) is None


def test_a_filtered_reply_ends_the_task_as_blocked():
    events, ending = drain(checks().no_steps(reply("", "content_filter")))
    assert ending == (exits.NO_ANSWER, "blocked") and "content_filter" in events[0].text
