"""Events as the editor is told them: every event type sent or knowingly not; a block's output
bounded and sent at most every OUTPUT_EVERY seconds while it runs; a model error held back as
the prompt's error, other errors said in the reply."""

from __future__ import annotations

import pytest

from interp.acp import updates as up
from interp.core import events as ev
from interp.core import exits

pytestmark = pytest.mark.fast

NOT_SENT = {ev.SessionStarted, ev.TurnCompleted, ev.SessionFinished}


def dumped(items) -> list[dict]:
    return [item.model_dump(by_alias=True, exclude_none=True) for item in items]


def test_every_event_type_is_sent_or_knowingly_not():
    handled = set(up.TurnUpdates("/w")._handlers)
    assert handled | NOT_SENT == set(ev.EVENTS) and not handled & NOT_SENT


def test_a_block_is_one_tool_call_from_proposal_to_result():
    turn = up.TurnUpdates("/w")
    sent = []
    for event in (ev.BlockProposed(index=3, language="shell", code="ls -la\nwc -l *"),
                  ev.BlockApproved(index=3, language="shell", code="ls -la\nwc -l *",
                                   edited=False),
                  ev.BlockOutput(index=3, text="a.csv\n"),
                  ev.BlockFiles(index=3, created=["out.txt"], modified=[], deleted=[],
                                text="Files: created out.txt"),
                  ev.BlockFinished(index=3, status="error", exit_code=1,
                                   summary="exit status 1")):
        sent += dumped(turn.feed(event, now=100.0))
    assert [u["sessionUpdate"] for u in sent] == ["tool_call"] + ["tool_call_update"] * 4
    assert sent[0]["title"] == "shell block 3: ls -la …" and sent[0]["kind"] == "execute"
    assert sent[1]["status"] == "in_progress"
    assert sent[2]["content"][1]["content"]["text"] == "```\na.csv\n```"  # flushed first
    assert sent[3]["locations"] == [{"path": "/w/out.txt"}]
    assert sent[4]["status"] == "failed"
    assert [c["content"]["text"] for c in sent[4]["content"]][2:] == [
        "Files: created out.txt", "Result: exit status 1"]
    assert sent[4]["rawOutput"]["exit_code"] == 1


def test_output_is_bounded_and_sent_at_most_so_often():
    turn = up.TurnUpdates("/w")
    turn.feed(ev.BlockProposed(index=1, language="python", code="big()"), now=0.0)
    first = turn.feed(ev.BlockOutput(index=1, text="\x1b[31mred\x1b[0m\n"), now=10.0)
    assert first == [] and turn.due(10.0) == 0.0
    assert "```\nred\n```" in dumped(turn.flush(10.0))[0]["content"][1]["content"]["text"]
    for n in range(10_000):
        turn.feed(ev.BlockOutput(index=1, text=f"line {n:05}\n"), now=10.01)
    assert turn.flush(10.05) == []  # sent 0.05 s ago: not yet
    assert turn.due(10.05) == pytest.approx(0.05)
    text = dumped(turn.flush(10.2))[0]["content"][1]["content"]["text"]
    assert len(text) < up.HEAD_CHARS + up.TAIL_CHARS + 100
    assert "line 00000" in text and "line 09999" in text
    assert "characters left out" in text


def test_a_model_error_is_held_for_the_prompt_other_errors_are_said():
    turn = up.TurnUpdates("/w")
    assert turn.feed(ev.Notice(level="error", text="Authentication failed."), now=0) == []
    assert turn.feed(ev.TaskFinished(exit_code=exits.MODEL_ERROR, reason="model error"),
                     now=0) == []
    assert turn.errors == ["Authentication failed."]
    other = up.TurnUpdates("/w")
    other.feed(ev.Notice(level="error", text="Stopped: the same code ran again."), now=0)
    said = dumped(other.feed(ev.TaskFinished(exit_code=exits.LOOP, reason="loop"), now=0))
    assert said == [{"content": {"text": "\n\n> Stopped: the same code ran again.\n\n",
                                 "type": "text"}, "sessionUpdate": "agent_message_chunk"}]


def test_a_reply_that_did_not_stream_is_sent_whole_once():
    turn = up.TurnUpdates("/w")
    turn.feed(ev.ModelRequest(turn=1, model="m"), now=0)
    assert dumped(turn.feed(ev.Message(text="Done.", final=True), now=0))[0]["content"] == \
        {"text": "Done.", "type": "text"}
    turn.feed(ev.ModelRequest(turn=2, model="m"), now=0)
    turn.feed(ev.MessageDelta(text="Do"), now=0)
    assert turn.feed(ev.Message(text="Done.", final=True), now=0) == []


@pytest.mark.parametrize("code, reason", [(exits.OK, "end_turn"), (exits.POLICY, "end_turn"),
                                          (exits.MAX_TURNS, "max_turn_requests"),
                                          (exits.NO_ANSWER, "refusal"),
                                          (exits.INTERRUPTED, "cancelled")])
def test_stop_reasons(code, reason):
    assert up.stop_reason(code) == reason
