"""What the model is asked after a report: the task restated, and answer or fix."""

from __future__ import annotations

from dataclasses import replace

import pytest

from interp.core import blocks
from interp.core.history import Entry
from interp.core.report import ANSWER_CHECK, FIX_REQUEST, model_text, next_step, with_footer
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


def test_an_ok_block_whose_prints_differ_from_its_comments_is_asked_to_fix_them():
    """HumanEval/26: the model printed [1, 2, 3, 4] under `# Output: [1, 3, 4]` and replied
    "The output is correct."."""
    code = ("def remove_duplicates(numbers):\n    return sorted(set(numbers))\n\n"
            "print(remove_duplicates([1, 2, 3, 2, 4]))  # Output: [1, 3, 4]\n")
    record = replace(ran("ok"), code=code, output_head="[1, 2, 3, 4]\n", total_chars=13)
    step = next_step([record], "Sum it.")
    assert step.startswith("Your task: Sum it.\nThe output does not match")
    assert "printed `[1, 2, 3, 4]` but its comment expects `[1, 3, 4]`" in step


def test_an_empty_line_printed_is_said_and_held_to_its_comment():
    """HumanEval/19 (`--feedback self`, 6cec36a): the fixed block skipped every word and printed
    an empty line; the model was told "No output.", said "ok." and then answered
    "The output is: 'one three five'"."""
    code = ("def sort_numbers(numbers: str) -> str:\n"
            "    return ' '.join(n for n in numbers.split() if n.isdigit())\n\n"
            "print(sort_numbers('three one five'))  # Output: 'one three five'\n")
    record = replace(ran("ok", 2), code=code, output_head="\n", total_chars=1)
    assert "Output: 1 empty line (nothing else was printed)." in model_text(record)
    assert "No output." in model_text(replace(record, output_head="", total_chars=0))
    step = next_step([record], "Sort them.")
    assert ("`print(sort_numbers('three one five'))` printed an empty line but its comment "
            "expects `'one three five'`") in step


# Qwen2.5-Coder-1.5B's block 3 on matrices-determinant-inverse (interp eval tasks, 46b6ccf):
# it computed the determinant, printed nothing, and the model answered "-10" (it is -24).
SILENT = ("import csv\nimport numpy as np\n\nwith open('matrix.csv', 'r') as file:\n"
          "    reader = csv.reader(file)\n    matrix = list(reader)\n\n"
          "matrix_np = np.array(matrix, dtype=float)\n\n"
          "# Calculate the determinant of the matrix\ndeterminant = np.linalg.det(matrix_np)\n"
          "inverse_np = np.linalg.inv(matrix_np)\n")
MATRIX_TASK = ("matrix.csv holds a 4x4 matrix. What is its determinant? Save its inverse to "
               "inverse.csv.")


def silent(code: str, index: int = 3):
    return replace(ran("ok", index), code=code, output_head="", total_chars=0)


def test_a_question_answered_by_blocks_that_printed_nothing_gets_the_block_printing_it():
    step = next_step([silent(SILENT)], MATRIX_TASK)
    assert step == (
        f"Your task: {MATRIX_TASK}\nBlock 3 printed nothing, so no output answers the task yet. "
        "The session keeps its variables: reply with this ```python block to print the values "
        "the task asks for (not run yet), then answer from its output:\n```python\n"
        'print("determinant:", determinant)\n```')


def test_blocks_that_printed_nothing_are_not_flagged_where_nothing_is_asked_or_one_printed():
    assert next_step([silent(SILENT)], "Save the inverse of matrix.csv to inverse.csv.") == (
        f"Your task: Save the inverse of matrix.csv to inverse.csv.\n{ANSWER_CHECK}")
    assert next_step([ran("ok", 2), silent(SILENT)], MATRIX_TASK).endswith(ANSWER_CHECK)
    quiet = next_step([silent("x = 1\n")], "What is its determinant?")  # no value it names
    assert quiet.endswith("answers the task yet. Print the values it asks for and run the code "
                          "again (state only values you see printed).")
