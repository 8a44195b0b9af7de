"""Scoring a task run: numbers and names in an answer, right versus answered, the figure of a path."""

from __future__ import annotations

import os

import pytest

from languages.plots import Plot

from interp.core.blocks import BlockRecord
from interp.core.history import Entry
from interp.eval.loop import shown_text
from interp.eval.tasks.files import read_csv
from interp.eval.tasks.spec import Attempt, Block, Number, Task, Words, no_files, numbers_in, score

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("text, found", [
    ("total 1,234.5 and -3", [1234.5, -3.0]),
    ("$12 or 2.5e-3", [12.0, 0.0025]),
    ("x = 5/2", [5.0, 2.0, 2.5]),
    # Qwen2.5-Coder-1.5B's quadratic (2026-11-27): a fraction that ends the sentence
    ("are x = -1 and x = 5/2.", [-1.0, 5.0, 2.0, 2.5]),
    ("1/2.5", [1.0, 2.5]),
    # Qwen2.5-Coder-1.5B's area between y = x^2 and y = 2x + 3 (2026-11-27)
    (r"is \(\boxed{\frac{32}{3}}\)", [32.0, 3.0, 32 / 3]),
    (r"x = -\dfrac{1}{2}", [1.0, 2.0, -0.5]),
    ("x1 = 4, \u22122.5", [4.0, -2.5]),
    ("2024-04-01", [2024.0, 4.0, 1.0]),
    ("no numbers here", []),
])
def test_numbers_in_text(text, found):
    assert numbers_in(text) == found


def test_a_number_is_stated_within_its_tolerance():
    mean = Number(69.01, tol=0.006, rel=0, name="the mean")
    assert mean.missing("The mean is 69.0093.") is None
    assert mean.missing("mean: 69.02") == "the mean: 69.01 not stated"
    assert Number(3055.45, tol=0.5, rel=0.001).missing("East: 3,055") is None
    assert Number(-1, tol=0.001, rel=0).missing("x = 1 or x = -2.5") is not None
    # the 1.5B model's total for conversion-xlsx-to-csv (2026-11-28), 0.01 off in decimal
    assert Number(159864.66, tol=0.01, rel=0).missing("The total is 159864.65.") is None
    assert Number(159864.66, tol=0.01, rel=0).missing("The total is 159864.64.") is not None


def test_names_are_whole_words_in_any_case():
    assert Words(("Gizmo",)).missing("the GIZMO sold most") is None
    assert Words(("Gizmo",)).missing("gizmos sold most") == "Gizmo not named"
    assert Words(("app.py", "main.js")).missing("app.py and main.jsx") == "main.js not named"


TASK = Task(id="t", category="stats", sentence="s", make=no_files, answer=(Number(42, tol=0, rel=0),))


def attempt(tmp_path, answer="", shown="", blocks=()) -> Attempt:
    return Attempt(folder=tmp_path, answer=answer, shown=shown, blocks=blocks)


def test_right_is_shown_anywhere_answered_is_the_final_message(tmp_path):
    printed = score(TASK, attempt(tmp_path, answer="", shown="42\n"))
    assert printed.right and not printed.answered
    assert printed.failures == ["answer: no final message", "answer: the number: 42 not stated"]
    final = score(TASK, attempt(tmp_path, answer="It is 42.", shown="It is 42."))
    assert final.right and final.answered and final.failures == []
    assert not score(TASK, attempt(tmp_path, answer="It is 41.", shown="41")).right


def test_wrong_files_fail_both_and_a_check_that_raises_is_a_failure(tmp_path):
    def broken(_):
        raise ValueError("bad cell")
        yield  # pragma: no cover

    def wrong(_):
        yield "out.csv has 3 rows, not 4"

    def missing(attempt):
        yield from read_csv(attempt.folder / "out.csv")

    for files, line in ((wrong, "out.csv has 3 rows, not 4"), (missing, "out.csv was not written"),
                        (broken, "the check could not read the files (ValueError: bad cell)")):
        task = Task(id="t", category="stats", sentence="s", make=no_files, files=files)
        result = score(task, attempt(tmp_path, answer="done", shown="done"))
        assert not result.right and not result.answered and result.failures == [line]


def test_a_task_without_an_answer_still_needs_a_final_message(tmp_path):
    task = Task(id="t", category="pivot", sentence="s", make=no_files)
    assert score(task, attempt(tmp_path, answer="Saved pivot.csv.")).answered
    assert not score(task, attempt(tmp_path, answer=" ")).answered
    assert score(task, attempt(tmp_path, answer=" ")).right


@pytest.mark.parametrize("blocks, used", [
    ((Block("javascript", "1"),), True),
    ((Block("shell", "node sum.js"),), True),
    ((Block("shell", "cd /x && node -e 'console.log(1)'"),), True),
    ((Block("shell", "nodemon x.js; ls node_modules"),), False),
    ((Block("python", "import subprocess"),), False),
])
def test_a_node_task_needs_node_to_have_run(tmp_path, blocks, used):
    task = Task(id="t", category="node", sentence="s", make=no_files, uses=("node",))
    assert score(task, attempt(tmp_path, "ok", "ok", blocks)).right is used


def test_an_unknown_category_is_refused():
    with pytest.raises(ValueError, match="unknown category"):
        Task(id="t", category="poetry", sentence="s", make=no_files)


def test_the_figure_of_a_file_is_found_by_its_real_path(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    chart = Plot(title="chart")
    found = Attempt(folder=tmp_path / "link", answer="", shown="",
                    plots={str(tmp_path / "real" / "revenue.png"): chart})
    assert found.plot("revenue.png") is chart and found.plot("other.png") is None


def test_what_the_user_saw_leaves_code_fences_out():
    messages = [Entry({"role": "system", "content": "prompt 99"}),
                Entry({"role": "user", "content": "task 77"}),
                Entry({"role": "assistant",
                       "content": "Let me compute.\n```python\nprint(6*7)\n```\n"}),
                Entry({"role": "user", "content": "report"}, output=True, blocks=(
                    BlockRecord(index=1, language="python", code="print(6*7)", status="ok",
                                output_head="42\n"),)),
                Entry({"role": "assistant", "content": "It is 42."})]
    assert shown_text(messages) == "Let me compute.\n42\n\nIt is 42."
