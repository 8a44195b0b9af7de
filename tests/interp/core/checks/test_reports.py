"""Checks on a reply's blocks once they ran: only installs, prints against the code's own
comments, a question whose code printed nothing, a script's copy run in the session."""

from __future__ import annotations

import pytest

from check_kit import record, view
from interp.core.checks.reports import (copied_script, failing_streak, only_installed, own_expectation,
                                        printed_nothing)

pytestmark = pytest.mark.fast


def test_blocks_that_only_installed_packages_are_told_to_run_the_code_next():
    ran = [record(1, "pip install tabulate", "Successfully installed tabulate-0.9\n", language="shell")]
    request = only_installed(view("Print a table.", records=ran, new=1))
    assert request is not None and "only installed packages" in request.message
    nothing = [record(1, "pip install pandas", "Requirement already satisfied: pandas\n",
                      language="shell")]
    assert "installed nothing" in only_installed(view("Sum it.", records=nothing, new=1)).message
    assert only_installed(view("Sum it.", records=[record(1, "print(1)", "1\n")], new=1)) is None


def test_prints_that_differ_from_the_code_s_own_comments_are_said():
    code = "def double(x):\n    return x + 2\n\nprint(double(3))  # Output: 6"
    task = "Write double: double(3) gives 6."
    request = own_expectation(view(task, records=[record(1, code, "5\n")], new=1))
    assert request is not None and "`print(double(3))` printed `5` but its comment expects `6`" in request.message
    assert own_expectation(view(task, records=[record(1, code, "6\n")], new=1)) is None


def test_a_comment_on_a_call_the_task_never_shows_is_not_held_against_the_code():
    """Qwen2.5-Coder-1.5B on HumanEval/15 (2026-12-07): right code, a wrong guess in its own
    comment; told the output did not match, it broke the code."""
    code = ("def string_sequence(n: int) -> str:\n    return ' '.join(map(str, range(n + 1)))\n\n"
            "print(string_sequence(0))  # Output: '0'\nprint(string_sequence(1))  # Output: '0'\n")
    task = ('Complete this function:\n    >>> string_sequence(0)\n    "0"\n'
            '    >>> string_sequence(5)\n    "0 1 2 3 4 5"')
    assert own_expectation(view(task, records=[record(1, code, "0\n0 1\n")], new=1)) is None
    broken = code.replace("n + 1", "n")
    request = own_expectation(view(task, records=[record(1, broken, "\n0\n")], new=1))
    assert request is not None
    assert "`print(string_sequence(0))` printed an empty line" in request.message
    assert "string_sequence(1)" not in request.message


def test_three_failed_blocks_in_a_row_ask_for_the_answer_instead_of_another_fix():
    def failed(index):
        return record(index, f"fit(rows[{index}])", "ValueError: could not convert string to float\n",
                      status="error")

    ran = [record(1, "rows = load()", "ok\n"), failed(2), failed(3), failed(4)]
    request = failing_streak(view("What is the model's accuracy?", records=ran, new=1))
    assert request is not None and not request.retracts
    assert request.message.startswith("Blocks 2 to 4 all failed, so another fix is unlikely to work.")
    assert "Do not write more code" in request.message
    assert failing_streak(view("What is it?", records=ran[:3], new=1)) is None  # two in a row
    ok_between = [failed(1), failed(2), record(3, "print(1)", "1\n"), failed(4)]
    assert failing_streak(view("What is it?", records=ok_between, new=1)) is None
    timed_out = [failed(1), failed(2), record(3, "train()", "", status="timeout")]
    assert failing_streak(view("What is it?", records=timed_out, new=1)) is not None
    same = [record(i, "fit(rows)", "ValueError\n", status="error") for i in (1, 2, 3)]
    assert failing_streak(view("What is it?", records=same, new=1)) is None  # the loop guard's
    other_then_same = [failed(1), *[record(i, "fit(rows)", "ValueError\n", status="error") for i in (2, 3, 4)]]
    assert failing_streak(view("What is it?", records=other_then_same, new=1)) is None
    then_ok = [*ran, record(5, "print(2)", "2\n")]
    assert failing_streak(view("What is it?", records=then_ok, new=1)) is None


def test_a_question_whose_code_printed_nothing_gets_a_block_that_prints_its_values():
    code = "import statistics\nmean_price = statistics.mean([1, 2, 3])"
    request = printed_nothing(view("What is the mean price?", records=[record(4, code)], new=1))
    assert request is not None and request.message.startswith("Block 4 printed nothing")
    assert 'print("mean_price:", mean_price)' in request.message
    assert printed_nothing(view("Save the mean price to a file.", records=[record(4, code)], new=1)) is None


def test_a_copy_of_a_script_the_task_names_run_in_the_session_is_said(tmp_path):
    script = "import sys\nrows = open('a.csv').read().splitlines()\nprint(len(rows) - 1)\n"
    (tmp_path / "count.py").write_text(script)
    fixed = script.replace("- 1", "- 2")
    ran = [record(1, fixed, "3\n")]
    request = copied_script(view("count.py prints the wrong count: fix it.", records=ran, new=1,
                                 root=tmp_path))
    assert request is not None and "count.py itself is unchanged" in request.message
    assert copied_script(view("What does count.py print?", records=[record(1, "print(2)", "2\n")],
                              new=1, root=tmp_path)) is None
