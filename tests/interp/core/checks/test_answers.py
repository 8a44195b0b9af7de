"""Checks on a reply that would be the final answer: untagged code, an acknowledgement, an
answer before any code about files seen only in preview, numbers nothing showed, NaN given as
a value."""

from __future__ import annotations

import pytest

from check_kit import record, view
from interp.core.checks.answers import (acknowledged, nan_answer, named_file_missing, run_first,
                                        unseen, unseen_numbers, untagged_code)

pytestmark = pytest.mark.fast

# Qwen2.5-Coder-1.5B's answer after its code computed a determinant and printed nothing (it
# is -24).
QWEN_UNSEEN = ("The determinant of the matrix is \\(-10\\).\n\nThe inverse of the matrix is:\n"
               "```\n-0.25  0.5  0.25  0.5\n  0.25 -0.25  0.25 -0.25\n```")


def test_code_in_a_fence_without_a_tag_is_told_how_to_run():
    request = untagged_code(view("Count the files.", "```\nimport os\nprint(len(os.listdir()))\n```"))
    assert request is not None and not request.retracts
    assert "no language tag, so it was not run" in request.message and "```python" in request.message
    assert untagged_code(view("Show an example output.", "```\n42\n```")) is None


def test_an_acknowledgement_of_a_question_is_sent_back_after_code_ran():
    ran = [record(1, "print(sum([1, 2]))", "3\n")]
    request = acknowledged(view("What is the sum?", "ok.", records=ran))
    assert request is not None and "Reply to the user with the answer itself" in request.message
    assert acknowledged(view("What is the sum?", "ok.")) is None  # no code ran: nothing to answer from
    assert acknowledged(view("Tidy the folder.", "Done.", records=ran)) is None  # no question
    assert acknowledged(view("What is the sum?", "The sum is 3.", records=ran)) is None


def test_a_reply_that_only_repeats_the_task_is_sent_back_and_sampled_again():
    """Seen with the 1.5B local model on a follow-up instruction in a session: the reply was
    the instruction itself, and the turn ended on it."""
    task = "The p-value is NaN: drop the missing values and run the test again."
    for ran in ((), [record(1, "print(3)", "3\n")]):
        request = acknowledged(view(task, task, records=ran))
        assert request is not None and request.sampling == "retry"
        assert request.message.startswith("Your last reply only repeated the task")
    assert acknowledged(view(task, "the p-value is NaN - drop the missing values and run the "
                                   "test again")) is not None  # case and punctuation aside
    assert acknowledged(view("Say hello.", "Hello.")) is None
    assert acknowledged(view("Is 7 prime?", "Yes, 7 is prime.")) is None
    assert acknowledged(view("", "")) is None
    assert acknowledged(view("?", "...")) is None  # no words: nothing was repeated


def test_a_copied_report_is_sent_back_and_sampled_again():
    ran = [record(1, "print(3)", "3\n")]
    request = acknowledged(view("Sum it.", "[Block 1, python]\nOutput:\n```\n3\n```", records=ran))
    assert request is not None and request.sampling == "retry"


def test_an_answer_about_a_previewed_file_before_any_code_is_asked_to_run(tmp_path):
    request = run_first(view("Sum the price column of items.csv", "The sum is 42.",
                             previewed=["items.csv"], root=tmp_path))
    assert request is not None and request.message.startswith(
        "Only a preview of items.csv was shown to you, and no code has run yet.")
    ran = [record(1, "print(42)", "42\n")]
    assert run_first(view("Sum the price column of items.csv", "42", previewed=["items.csv"],
                          records=ran)) is None


def test_an_answer_after_a_refused_block_is_not_asked_to_run_code(tmp_path):
    """A hook or a rule denied the model's block (or the person declined it): its answer
    ("I was not allowed to delete it.") stands; asking it to run code would press on."""
    from interp.core import blocks

    (tmp_path / "data").mkdir()
    for status in ("denied", "declined"):
        refused = [blocks.not_run(1, "shell", "rm -rf data", status, "no deleting here")]
        assert run_first(view("Delete the data folder.", "I was not allowed to delete it.",
                              records=refused, root=tmp_path)) is None
    assert run_first(view("Delete the data folder.", "Done.", root=tmp_path)) is not None


def test_an_answer_about_a_folder_here_before_any_code_is_asked_to_run(tmp_path):
    (tmp_path / "photos").mkdir()
    request = run_first(view("How many files are in photos?", "There are 3 files.", root=tmp_path))
    assert request is not None and "what is in photos/ here" in request.message
    assert run_first(view("How many files are in albums?", "3.", root=tmp_path)) is None


def test_numbers_nothing_showed_are_found():
    seen = ["matrix.csv holds a 4x4 matrix. What is its determinant?", "2,-1,0,3\n1,4,2,-2"]
    assert unseen(QWEN_UNSEEN, seen) == ("-10", "-0.25", "0.5", "0.25")
    assert unseen("The determinant is -24.", ["-23.999999999999996"]) == ()


@pytest.mark.parametrize("answer", [
    "The mean is 69.01 and the median 69.2.",  # rounded from the output
    "The grand total is 1,706.",  # written with a separator
    "The share is 78%.",  # a fraction as a percentage
    "1. Acme\n2. Globex\nThere are 3 of them.",  # list numbering and small counts
    "The total is 159864.65."])  # cut off from 159864.65999999997
def test_numbers_an_output_shows_rounded_are_seen(answer):
    assert unseen(answer, ["69.0138 69.2 1706 0.78 159864.65999999997"]) == ()


def test_an_answer_with_numbers_no_output_showed_is_asked_to_compute_them():
    ran = [record(1, "import numpy as np\nd = np.linalg.det(m)")]
    request = unseen_numbers(view("What is the determinant of the matrix in m?", QWEN_UNSEEN,
                                  records=ran))
    assert request is not None and request.message.startswith(
        "Your answer states -10, -0.25 and 0.5, which no output of this task shows.")


def test_a_computation_answered_from_memory_is_asked_to_run_in_the_language_named():
    """A formula in the task and a number no output showed: the model computed in its head."""
    for task in ("Use Python to compute 2**20 + 7 and tell me the number.", "What is 3.7 * 81.4?"):
        request = unseen_numbers(view(task, "The number is 1048582."))
        assert request is not None and "```python block" in request.message, task
    request = unseen_numbers(view("With node, compute 2**20 + 7.", "It is 1048582."))
    assert "```javascript block of javascript code" in request.message


def test_knowledge_answers_with_years_and_versions_are_left_alone():
    assert unseen_numbers(view("What is Python's GIL?", "A lock, since 1992; 3.13 can drop it.")) is None


@pytest.mark.parametrize("task, answer", [
    ("Should I write this tool in Python or in Go? Just give me your opinion.",
     "I would pick Python: it has the libraries you need, and Go 1.22 builds faster."),
    ("Explain what x^2 + 1 means; don't compute anything.",
     "It squares x and adds 1, so it is never below 1."),
    ("What year did the first moon landing happen?", "It happened in 1969."),
])
def test_opinions_explanations_and_knowledge_questions_are_left_alone(task, answer):
    assert unseen_numbers(view(task, answer)) is None
    assert run_first(view(task, answer)) is None


def test_a_named_file_still_missing_after_code_ran_is_asked_for(tmp_path):
    ran = [record(1, "import json\nprint(json.dumps([1]))", "[1]\n")]
    request = named_file_missing(view("Turn items.csv into items.json.", "ok.", records=ran,
                                      absent=["items.json"], root=tmp_path))
    assert request is not None and request.message.startswith(
        "The task names items.json, which does not exist yet. If the task asks for it")
    (tmp_path / "items.json").write_text("[1]")
    assert named_file_missing(view("Turn items.csv into items.json.", "ok.", records=ran,
                                   absent=["items.json"], root=tmp_path)) is None


def test_a_named_file_a_block_failed_to_find_is_an_input_not_one_to_make(tmp_path):
    failed = [record(1, "open('a.csv')", "FileNotFoundError: [Errno 2] No such file or "
                     "directory: 'a.csv'\n", status="error")]
    assert named_file_missing(view("Sum a.csv.", "a.csv is missing.", records=failed,
                                   absent=["a.csv"], root=tmp_path)) is None
    assert named_file_missing(view("Sum a.csv.", "a.csv is missing.", absent=["a.csv"],
                                   root=tmp_path)) is None  # no code ran


# Qwen2.5-Coder-1.5B's block and answer on a table whose first row is empty: the average of
# three columns kept the missing values, and the correlation came out NaN.
QWEN_NAN_CODE = ("avg = (data['A'] + data['B'] + data['C']) / 3\n"
                 "r, p = pearsonr(avg, data['D'])\nprint(f'@r[{r:.2f}]')\nprint(f'@p[{p:.4f}]')")
QWEN_NAN_OUTPUT = "@r[nan]\n@p[nan]\n@relation[none]\n"
QWEN_NAN_ANSWER = "@r[nan]\n@p[nan]\n@relation[none]"


@pytest.mark.parametrize("answer", [
    QWEN_NAN_ANSWER, "The correlation is NaN.", "mean = nan", "nan", "r: nan, p: nan"])
def test_nan_given_as_a_value_after_an_output_printed_it_is_sent_back(answer):
    ran = [record(1, QWEN_NAN_CODE, QWEN_NAN_OUTPUT)]
    request = nan_answer(view("Correlate the average of A, B and C with D in t.csv.", answer,
                              records=ran))
    assert request is not None and request.retracts
    assert request.message.startswith("Your answer gives NaN (not a number) as a value")
    assert "```python block" in request.message and "missing values" in request.notice
    assert "selected no rows" in request.message


def test_the_request_names_the_language_of_the_block_that_printed_nan():
    ran = [record(1, "console.log(0/0)", "NaN\n", language="javascript")]
    request = nan_answer(view("Divide the totals.", "The ratio is NaN.", records=ran))
    assert request is not None and "```javascript block of javascript code" in request.message


@pytest.mark.parametrize("answer, output", [
    ("The column has 12 NaN values.", "12\n"),  # a count of them, not a value
    ("There are 3 NaN entries in price.", "price    3\nNaN\n"),
    ("The mean is 4.5.", "4.5\nnan\n"),  # no NaN in the answer
    ("The correlation is NaN.", "0.91\n"),  # no output printed one: another check's matter
    ("The banana count is 7.", "banana 7\nnan\n"),  # a word holding the letters
])
def test_nan_as_a_count_a_word_or_not_printed_is_left_alone(answer, output):
    ran = [record(1, "print(x)", output)]
    assert nan_answer(view("Summarise the price column of t.csv.", answer, records=ran)) is None


def test_nan_before_any_code_ran_is_left_to_run_first():
    assert nan_answer(view("What is the mean of t.csv's price?", "The mean is nan.")) is None
