"""The conversation's typed entries: the provider message with interp's facts beside it."""

from __future__ import annotations

import pytest

from interp.core import blocks
from interp.core.history import (Compaction, Entry, last_number, provider_messages, task_indices,
                                 unretracted)
from interp.core.replies.report import report_messages
from languages import CapturedOutput, Result

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_last_number_continues_records_and_counts_older_sessions():
    assert last_number([]) == 0
    ok = Result(status="ok", output=CapturedOutput("", "", 0, 0, 0, None))
    new = report_messages([blocks.ran(4, "python", "a", ok), blocks.ran(5, "shell", "b", ok)])
    assert last_number([Entry({"role": "user", "content": "task"}), *new]) == 5
    legacy = [Entry({"role": "user",
                     "content": "[Block 1, python]\nNo output.\nResult: ok.\n\n[Block 2, shell]\nx"},
                    output=True),
              Entry({"role": "tool", "tool_call_id": "c", "content": "Result: ok."}, output=True)]
    assert last_number(legacy) == 3
    assert last_number([*legacy, *new]) == 5


def test_the_facts_stay_beside_the_message_the_provider_is_sent():
    entries = [Entry({"role": "system", "content": "sys"}, prompt=True),
               Entry({"role": "user", "content": "go"}, task=True),
               Entry({"role": "user", "content": "summary"},
                     compaction=Compaction(end=1, task=None, summarized=1)),
               Entry({"role": "user", "content": "again"}, task=True)]
    assert provider_messages(entries) == [{"role": "system", "content": "sys"},
                                          {"role": "user", "content": "go"},
                                          {"role": "user", "content": "summary"},
                                          {"role": "user", "content": "again"}]
    assert task_indices(entries) == [1, 3]
    changed = entries[1].with_content("went")
    assert changed.task and changed.content == "went" and entries[1].content == "go"


# Qwen2.5-Coder-1.5B on the task benchmark (2026-11-27): shown its first answer, given before any
# code ran, it repeated "3 and 5" after its block printed [ 5. 10.]; without it, "5 and 10".
TASK = Entry({"role": "user", "content": "What are the eigenvalues of the matrix [[6, -2], [-2, 9]]?"},
             task=True)
GUESS = Entry({"role": "assistant",
               "content": "The eigenvalues of the matrix [[6, -2], [-2, 9]] are 3 and 5."})
RUN = Entry({"role": "user", "content": "The task asks for a calculation, and no code has run "
             "yet. Reply with a ```python block of python code that does it and prints the "
             "result; it will run, and you will see its output. Then answer from the output."},
            retracts=True)


def test_a_retracted_answer_is_left_out_and_its_request_joins_the_task():
    system = Entry({"role": "system", "content": "sys"}, prompt=True)
    block = Entry({"role": "assistant", "content": "```python\nprint(1)\n```"})
    sent = unretracted([system, TASK, GUESS, RUN, block])
    assert sent == [system, TASK.with_content(f"{TASK.content}\n\n{RUN.content}"), block]
    assert sent[1].task and GUESS not in sent


def test_a_request_retracts_only_a_plain_answer_after_a_plain_user_message():
    call = Entry({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}]})
    pictured = TASK.with_content([{"type": "text", "text": "see"}])
    for entries in ([TASK, call, RUN], [pictured, GUESS, RUN], [GUESS, RUN], [RUN]):
        assert unretracted(entries) == entries
