"""The list of reply checks: one name and reason each, which are on for a model, and a task's
runner that lets each ask at most its number of times. Ordinary chat fires none of them."""

from __future__ import annotations

import pytest

from check_kit import record, view
from interp.core.checks.catalog import CHECKS, NAMES, TaskChecks, active, parse_setting
from interp.models.base import runs_here
from interp.models.reach import model_for

pytestmark = pytest.mark.fast


def test_every_check_is_listed_once_with_a_reason_a_stage_and_a_scope():
    assert len(NAMES) == len(set(NAMES)) == len(CHECKS)
    for check in CHECKS:
        assert check.reason and check.stage in ("proposed", "answer", "report")
        assert check.scope in ("any", "here") and check.asks >= 1


@pytest.mark.parametrize("value, parsed", [
    ("auto", "auto"), ("ON", "on"), ("off", "off"),
    ("answer-format, unseen-numbers", ("answer-format", "unseen-numbers"))])
def test_the_setting_is_a_mode_or_check_names(value, parsed):
    assert parse_setting(value) == parsed


@pytest.mark.parametrize("value", ["", "some", "answer-format,nope"])
def test_a_name_that_is_no_check_is_refused_naming_it(value):
    with pytest.raises(ValueError, match="must be auto, on, off or check names"):
        parse_setting(value)


def test_auto_gives_models_run_here_every_check_and_others_those_that_cannot_misfire():
    here = model_for("openai/local", api_base="http://127.0.0.1:8090/v1", api_key="x")
    hosted = model_for("gpt-4o", api_key="sk-test")
    assert runs_here(here) and not runs_here(hosted)
    assert active("auto", here) == CHECKS
    assert {c.scope for c in active("auto", hosted)} == {"any"}
    assert active("on", hosted) == CHECKS and active("off", here) == ()
    assert [c.name for c in active(("answer-format",), hosted)] == ["answer-format"]


def test_each_check_asks_at_most_its_number_of_times_a_task():
    runner = TaskChecks(CHECKS)
    answer = view("Give it as JSON.", "It is one.")
    first = runner.first("answer", answer)
    assert first is not None and first.check == "answer-format"
    assert runner.first("answer", answer) is None


def test_the_answer_to_a_request_for_the_final_answer_is_taken_as_it_comes():
    """After three failed blocks the 1.5B model said what went wrong; asked for the task's form
    it wrote `@prediction_accuracy[0.78]`, a value it never computed (a real transcript)."""
    runner = TaskChecks(CHECKS)
    failed = [record(i, f"fit({i})", "ValueError: could not convert string to float\n",
                     status="error") for i in (1, 2, 3)]
    task = "What is the accuracy? Give it in this format: @prediction_accuracy[accuracy]"
    streak = runner.first("report", view(task, records=failed, new=1))
    assert streak is not None and streak.check == "failing-streak"
    went_wrong = view(task, "The Name column holds text, so the model cannot be fitted.",
                      records=failed)
    assert runner.first("answer", went_wrong) is None  # taken as it comes
    runner = TaskChecks(CHECKS)
    runner.first("report", view(task, records=failed, new=1))
    parrot = "The code failed, so the task is not done yet. Fix the error and run the code again."
    copied = runner.first("answer", view(task, parrot, records=failed,
                                         shown=(task, f"Output:\n```\nValueError\n```\n{parrot}")))
    assert copied is not None and copied.check == "acknowledged"  # a copy is no answer at all
    assert runner.first("answer", went_wrong) is None  # its reply is still taken as it comes
    assert runner.closed == ("failing-streak", 3)  # what asked for the final answer, and when
    runner = TaskChecks(CHECKS)
    runner.first("report", view(task, records=failed, new=1))
    runner.first("answer", went_wrong)
    asked_again = runner.first("answer", went_wrong)  # a later answer is checked as usual
    assert asked_again is not None and asked_again.check == "answer-format"
    schema = pytest.importorskip("interp.core.checks.schema")
    runner = TaskChecks(CHECKS + (schema.schema_check({"type": "number"}),))
    runner.first("report", view(task, records=failed, new=1))
    held = runner.first("answer", went_wrong)  # the schema the person gave still holds it
    assert held is not None and held.check == "output-schema"


# Ordinary chat: sentences that ask for no code, with replies a model gives them.
CHAT = [
    ("Should I write this tool in Python or in Go? Just give me your opinion.",
     "I would pick Python: the libraries you need exist, and Go 1.22 would be faster to run."),
    ("Explain what x^2 + 1 means; don't compute anything.",
     "It squares x and adds 1, so its smallest value is 1, at x = 0."),
    ("What is Python's GIL?", "A lock that lets one thread run Python bytecode at a time; "
     "Python 3.13 can be built without it."),
    ("Thanks, that's all for now.", "You're welcome!"),
    ("Hi! What can you do?", "I can run Python, shell and JavaScript code on your machine."),
    ("What's the difference between a list and a tuple?",
     "A list can change after it is made; a tuple cannot. Both keep their 2 or 200 items in order."),
]


@pytest.mark.parametrize("task, reply", CHAT)
def test_chat_sentences_fire_no_check(task, reply, tmp_path):
    runner = TaskChecks(CHECKS)
    assert runner.first("answer", view(task, reply, root=tmp_path)) is None
