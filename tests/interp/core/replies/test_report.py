"""What the model is asked after a report: the task restated, and answer or fix."""

from __future__ import annotations


import pytest

from interp.core import blocks
from interp.core.history import Entry
from interp.core.replies.report import ANSWER_CHECK, FIX_REQUEST, next_step, with_footer
from languages import CapturedOutput, Result

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def ran(status: str, index: int = 1):
    result = Result(status=status, output=CapturedOutput("out\n", "", 0, 0, 4, None),
                    interrupted=status == "interrupted", timed_out=status == "timeout")
    return blocks.ran(index, "python", "print(1)", result)


def test_an_answer_is_asked_for_after_a_block_that_ran_to_the_end():
    assert next_step([ran("ok")], "Sum sales.csv.") == f"Your task: Sum sales.csv.\n{ANSWER_CHECK}"


def test_a_fix_is_asked_for_when_the_last_block_failed():
    assert next_step([ran("ok"), ran("error", 2)], "Sum it.") == f"Your task: Sum it.\n{FIX_REQUEST}"


@pytest.mark.parametrize("records", [
    [], [ran("interrupted")], [ran("timeout")], [ran("ok"), blocks.not_run(2, "python", "x", "declined")]])
def test_nothing_is_asked_after_a_stop_a_time_out_or_a_decline(records):
    assert next_step(records, "Sum it.") is None


def test_a_long_task_is_not_repeated():
    long = "Implement `f`:\n\n```python\ndef f(x):\n    ...\n```"
    assert next_step([ran("ok")], long) == ANSWER_CHECK.replace("answers it", "answers your task")
    assert next_step([ran("ok")], "x" * 301).startswith("If the output above answers your task")


def test_the_footer_goes_on_the_last_message():
    messages = [Entry({"role": "tool", "content": "a"}, output=True),
                Entry({"role": "user", "content": "b"}, output=True)]
    assert with_footer(messages, "F") == [messages[0],
                                          Entry({"role": "user", "content": "b\nF"}, output=True)]
    assert with_footer(messages, None) == messages
