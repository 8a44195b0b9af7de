"""What the model is asked: OpenCodeInterpreter's instructions, and the task for interp's loop.

The `none` and `oci` texts are OpenCodeInterpreter's evaluation prompts (its
evaluation/evaluate/multi_turn scripts), so that `oci` replays that protocol exactly and
`none` is its first generation.
"""

from __future__ import annotations

from interp.eval.data import Problem
from interp.eval.scoring import Verdict

_PREAMBLE = ("You are an exceptionally intelligent coding assistant that consistently delivers "
             "accurate and reliable responses to user instructions.")
_ONE_BLOCK = ("Please return all completed codes in one code block. \n"
              "This code block should be in the following format:\n"
              "```python\n# Your codes here\n```")


def instruction(problem: Problem) -> str:
    """The first user message of `none` and `oci`."""
    if problem.family == "mbpp":
        body = (f"Here is the given problem and test examples:\n{problem.prompt}\n\n"
                "Please use the python programming language to solve this problem.\n"
                "Please make sure that your code includes the functions from the test samples "
                "and that the input and output formats of these functions match the test samples.")
    else:
        body = (f"Here is the given code to do completion:\n```python\n{problem.prompt.strip()}\n```\n"
                "Please continue to complete the function with python programming language. "
                "You are not allowed to modify the given code and do the completion only. ")
    return f"{_PREAMBLE}\n\n@@ Instruction\n{body}\n\n{_ONE_BLOCK}\n\n@@ Response"


def with_feedback(first_request: str, first_reply: str, feedback: str) -> str:
    """OpenCodeInterpreter's second request: the whole exchange so far, then the execution result."""
    return f"{first_request}\n{first_reply}\n\n@@ Instruction\nExecution result: \n{feedback}\n"


def oracle_feedback(problem: Problem, verdict: Verdict) -> str:
    """The task that follows `self`'s loop in `oracle`: the hidden tests' first failure, in
    OpenCodeInterpreter's words ("Execution result"), the call that failed, and what to do.
    Told only that the tests failed, the 1.5B model answered that its function "is already
    correct"; shown `Input: [[1.0, 2.0]]` alone, it passed the argument list as one argument."""
    name = problem.entry_point
    call = f"\nThe call that failed: `{verdict.call}`\n" if verdict.call else ""
    on = "call it that way" if verdict.call else "call it on that input"
    return (f"Your `{name}` fails the hidden tests, and the tests are right: the function is "
            f"wrong. Execution result: \n{verdict.feedback}\n{call}\nFind the mistake and fix "
            f"it: write the complete corrected function in a python code block, and at the end "
            f"of the same block {on} and print the result, which must be the expected one.")


def self_task(problem: Problem) -> str:
    """The task interp's loop gets in `self` mode: only the prompt, never the hidden tests.

    It asks for code first and names no summary: told that it may finish with a summary, the
    1.5B model answered "the function is implemented correctly" without writing it (4 of
    HumanEval/0-7); asked this way it wrote the function in each of them. The edge case: with
    the examples alone, HumanEval/9 passed them and failed on an empty list."""
    if problem.family == "mbpp":
        what = f"Solve this problem in Python:\n\n{problem.prompt.strip()}"
        check = "call it on the examples above"
    else:
        what = f"Complete this Python function:\n\n```python\n{problem.prompt.strip()}\n```"
        check = ("call it on the docstring's examples and on an edge case they do not show "
                 "(such as an empty or one-item input)")
    return (f"{what}\n\nWrite the complete function (signature, body and imports) in a python "
            f"code block, and at the end of the same block {check} and print the results so "
            f"you can check them.")
