"""ModelAsker alone: a SessionState, the turn checks and a real model client against the fake
OpenAI server (no Session)."""

from __future__ import annotations

import pytest

from fake_openai import FakeOpenAI
from helpers import drain
from session_kit import KEY, hang_guard

from interp.core import events as ev
from interp.core.loop.asking import ModelAsker
from interp.core.history import Entry
from interp.core.prompt.instructions import load_instructions
from interp.core.state import SessionConfig, SessionState
from interp.core.loop.turns import TurnChecks
from interp.models.base import Reply
from interp.models.reach import model_for
from interp.skills import load_skills
from languages import Registry
from languages.shell import ShellRunner


def asker(server, **config) -> tuple[ModelAsker, SessionState]:
    model = model_for("openai/fake-model", api_base=server.api_base, api_key=KEY)
    state = SessionState(model, SessionConfig(**config), Registry([ShellRunner]),
                         [Entry({"role": "system", "content": "sys"}, prompt=True),
                          Entry({"role": "user", "content": "say hello"}, task=True)])
    return ModelAsker(state, TurnChecks(state)), state


def test_a_reply_streams_as_events_and_joins_the_conversation():
    with FakeOpenAI(["Hello there."]) as server, hang_guard():
        ask, state = asker(server, tools="off")
        events, reply = drain(ask.ask(1))
        sent = server.requests[0]["messages"]
    assert events[0] == ev.ModelRequest(turn=1, model="openai/fake-model")
    assert "".join(e.text for e in events if isinstance(e, ev.MessageDelta)) == "Hello there."
    assert isinstance(reply, Reply) and reply.text == "Hello there."
    assert state.messages[-1].message == {"role": "assistant", "content": "Hello there."}
    assert sent == [{"role": "system", "content": "sys"}, {"role": "user", "content": "say hello"}]
    assert ask.payload() == [*sent, {"role": "assistant", "content": "Hello there."}]


def test_tokens_are_added_to_the_totals():
    with FakeOpenAI(["Hi."], usage_always=True) as server, hang_guard():
        ask, state = asker(server, tools="off")
        _, reply = drain(ask.ask(1))
    done = ask.turn_event(1, reply)
    assert done.usage == {"prompt_tokens": state.totals.prompt_tokens,
                          "completion_tokens": state.totals.completion_tokens}
    assert state.totals.prompt_tokens > 0 and state.totals.completion_tokens > 0


def test_a_stop_keeps_what_arrived_and_raises_keyboard_interrupt():
    with FakeOpenAI(["A long reply that is cut short."]) as server, hang_guard():
        ask, state = asker(server, tools="off")
        state.stop_requested = True
        with pytest.raises(KeyboardInterrupt):
            drain(ask.ask(1))
    kept = state.messages[-1]
    assert kept.role == "assistant"
    assert kept.content.endswith("\n[reply interrupted by the user]")


def test_with_the_tool_the_system_prompt_is_its_execute_tool_form():
    with FakeOpenAI() as server:
        ask, _ = asker(server, tools="on")
    plain, with_tool = ask.payload(), ask.payload(tools=True)
    assert plain[0]["content"] == "sys"
    assert with_tool[0]["content"] != "sys" and "execute" in with_tool[0]["content"]
    assert with_tool[1:] == plain[1:]


def test_the_execute_tool_form_keeps_the_agents_md_files_and_the_skills(tmp_path):
    (tmp_path / "AGENTS.md").write_text("Answer in French.\n")
    skill = tmp_path / ".agents" / "skills" / "csv-report"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: csv-report\ndescription: Summarise a CSV.\n"
                                    "---\nSteps.\n")
    config = {"instructions": load_instructions(tmp_path, None),
              "skills": load_skills(tmp_path, None)}
    with FakeOpenAI() as server:
        ask, _ = asker(server, tools="on", **config)
    prompt = ask.payload(tools=True)[0]["content"]
    assert "execute" in prompt and "Answer in French." in prompt
    assert f"- csv-report: Summarise a CSV. ({skill / 'SKILL.md'})" in prompt


class OneBlock:
    """The client model declaring one_block_per_reply, as LocalModel does; it keeps the
    `until` the asker hands it."""

    one_block_per_reply = True

    def __init__(self, inner) -> None:
        self.inner, self.name, self.untils = inner, inner.name, []

    def stream(self, messages, tools=None, until=None):
        self.untils.append(until)
        return self.inner.stream(messages, tools)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_model_of_one_block_per_reply_is_told_where_the_first_block_ends():
    reply = "```shell\necho 5 10\n```\n\nThe eigenvalues are 3 and 5."
    with FakeOpenAI([reply, "They are 5 and 10."]) as server, hang_guard():
        ask, state = asker(server, tools="off")
        state.model = model = OneBlock(state.model)
        drain(ask.ask(1))
    until = model.untils[0]
    assert reply[:until(reply)] == "```shell\necho 5 10\n```\n"
    assert until("The eigenvalues are 3 and 5.") is None


def test_with_the_tool_offered_the_model_is_not_stopped():
    with FakeOpenAI(["done"]) as server, hang_guard():
        ask, state = asker(server, tools="on")
        state.model = model = OneBlock(state.model)
        model.supports_tools = lambda: True
        drain(ask.ask(1))
    assert model.untils == [None]
