"""What a compaction replaces and what the model is sent afterwards (pure functions); the
session-level behaviour against the fake server is in test_session_compaction.py."""

from __future__ import annotations

import json

import pytest

from interp.core.prompt.compaction import PREFIX, plan, view, view_entries
from interp.core.history import Compaction, Entry
from interp.core.prompt.summary import summary_request, transcript

pytestmark = pytest.mark.fast


def user(text, task=False):
    return Entry({"role": "user", "content": text}, task=task)


def reply(text):
    return Entry({"role": "assistant", "content": text})


def output(text):
    return Entry({"role": "user", "content": text}, output=True)


def call(call_id, code):
    return Entry({"role": "assistant", "content": None,
                  "tool_calls": [{"id": call_id, "type": "function", "function": {
                      "name": "execute",
                      "arguments": json.dumps({"language": "python", "code": code})}}]})


def result(call_id, text):
    return Entry({"role": "tool", "tool_call_id": call_id, "content": text}, output=True)


def conversation():
    return [Entry({"role": "system", "content": "You are interp."}),
            user("load data.csv", task=True), reply("```python\ndf = load()\n```"),
            output("[Block 1, python]\nOutput:\n" + "row\n" * 200),
            user("plot the prices", task=True),
            call("c1", "df.plot()"), result("c1", "Output:\n" + "x" * 900),
            call("c2", "plt.savefig('p.png')"), result("c2", "Output:\nsaved")]


def summary(text, end, task):
    return Entry({"role": "user", "content": text}, compaction=Compaction(end=end, task=task))


def summarized(messages, found):
    entries = view_entries(messages)
    return [entries[p][1] for p in found.summarized]


def test_without_a_compaction_the_model_gets_every_message():
    messages = conversation()
    assert view(messages) is messages


def test_the_plan_keeps_the_system_prompt_the_task_and_the_last_blocks():
    messages = conversation()
    found = plan(messages, window=1000)  # room for the last block only
    shown = [m.content for m in summarized(messages, found)]
    assert shown[0] == "load data.csv" and "plot the prices" not in shown
    assert found.task == 4 and found.end == 7  # the task comes back first, then the last call
    messages.append(summary(PREFIX + "S", found.end, found.task))
    sent = view(messages)
    assert [m.role for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[1].content == PREFIX + "S\n\nplot the prices"  # one message, summary first
    assert sent[1].task and sent[1].compaction is None
    assert sent[2].tool_calls[0]["id"] == "c2" and sent[3].message["tool_call_id"] == "c2"


def test_a_call_and_its_result_are_never_split():
    messages = conversation()
    for window in (50, 400, 1000, 2000, 8000, 100000):
        found = plan(messages, window)
        kept = view(messages)[found.end:] if found else []
        assert not kept or kept[0].role != "tool"
        assert messages[found.end - 1].role != "assistant" or not \
            messages[found.end - 1].tool_calls


def test_a_second_compaction_replaces_the_first_summary():
    messages = conversation()
    first = plan(messages, 1000)
    messages.append(summary(PREFIX + "first summary", first.end, first.task))
    messages += [reply("```python\nprint(2)\n```"), output("Output:\n2"),
                 user("now the volumes", task=True), reply("```python\nv()\n```"),
                 output("Output:\n" + "v" * 900)]
    second = plan(messages, 1000)
    assert view_entries(messages)[second.summarized[0]][1].content.endswith("first summary")
    messages.append(summary(PREFIX + "second summary", second.end, second.task))
    sent = view(messages)
    assert sent[1].content == PREFIX + "second summary\n\nnow the volumes"
    assert "first summary" not in str(sent)
    assert sent[-1].content.startswith("Output:\nvvv")


def test_nothing_new_to_summarise_is_no_plan():
    messages = [Entry({"role": "system", "content": "s"}), user("hi", task=True)]
    assert plan(messages, 1000) is None
    messages += [reply("Hello.")]
    assert plan(messages, 1000) is None  # only the task and its answer, which stay


def test_a_summary_before_a_reply_is_a_message_of_its_own():
    messages = conversation()
    messages.append(summary(PREFIX + "S", 5, None))
    sent = view(messages)
    assert [m.role for m in sent] == ["system", "user", "assistant", "tool", "assistant",
                                         "tool"]
    assert sent[1].content == PREFIX + "S" and sent[2].tool_calls[0]["id"] == "c1"


def test_a_summary_marker_interp_did_not_write_changes_nothing():
    messages = conversation() + [summary("S", 99, None)]
    assert view(messages) == conversation()


def test_the_transcript_bounds_each_message_and_names_the_current_task():
    messages = conversation()
    text = transcript(messages[1:], cap=300, current=messages[4])
    assert "User: load data.csv" in text
    assert "User (the current task, kept word for word after the summary): plot" in text
    assert "[runs python]\ndf.plot()" in text
    assert "characters left out" in text and "x" * 301 not in text


def test_the_request_asks_for_the_four_parts_and_the_focus():
    messages = summary_request("User: hi", 300, "the CSV columns")
    ask = messages[-1]["content"]
    assert messages[0]["role"] == "system" and "User: hi" in ask
    for heading in ("Asked:", "Found:", "Files and names:", "Left to do:"):
        assert heading in ask
    assert "at most 300 words" in ask and "Pay most attention to: the CSV columns." in ask
