"""Numbers an answer states that nothing in the task showed."""

from __future__ import annotations

import pytest

from interp.core.unseen import UnseenRequest, numbers, unseen

pytestmark = pytest.mark.fast

# Qwen2.5-Coder-1.5B on matrices-determinant-inverse (interp eval tasks, bc04c28): its code
# printed nothing; the determinant is -24.
QWEN_UNSEEN = ("The determinant of the matrix is \\(-10\\).\n\nThe inverse of the matrix is:\n"
               "```\n-0.25  0.5  0.25  0.5\n  0.25 -0.25  0.25 -0.25\n```")


def test_numbers_as_written_with_their_decimals():
    assert numbers("1,706 and -0.25, 2.50e3; x2 v1.2") == [
        (1706.0, 0, "1,706"), (-0.25, 2, "-0.25"), (2500.0, 2, "2.50e3")]


def test_numbers_nothing_showed_are_found():
    seen = ["matrix.csv holds a 4x4 matrix. What is its determinant?", "2,-1,0,3\n1,4,2,-2"]
    assert unseen(QWEN_UNSEEN, seen) == ("-10", "-0.25", "0.5", "0.25")
    assert unseen("The determinant is -24.", ["-23.999999999999996"]) == ()


@pytest.mark.parametrize("answer", [
    "The mean is 69.01 and the median 69.2.",  # rounded from the output
    "The grand total is 1,706.",  # written with a separator
    "The share is 78%.",  # a fraction as a percentage
    "1. Acme\n2. Globex\nThere are 3 of them.",  # list numbering and small counts
    "The decimal parts are 0.5, 0.2 and 0.9.",
    "The total amount for 2024 is 159864.65."])  # cut off from 159864.65999999997
def test_numbers_an_output_shows_rounded_are_seen(answer):
    assert unseen(answer, ["69.0138 69.2 1706 0.78 0.1999999999999993 0.5 0.9",
                           "Total Amount for 2024: 159864.65999999997"]) == ()


def test_the_request_names_at_most_three_numbers():
    asked = UnseenRequest(("-10", "-0.25", "0.5", "0.25"))
    assert asked.request(tools=False) == (
        "Your answer states -10, -0.25 and 0.5, which no output of this task shows. Reply with "
        "a ```python block that computes and prints the values the task asks for (the session "
        "keeps its variables); then answer from its output.")
    assert asked.request(tools=True).startswith("Your answer states -10, -0.25 and 0.5, which "
                                                "no output of this task shows. Call the "
                                                "`execute` tool with code that computes")
    assert UnseenRequest(("-10",)).notice() == ("The answer states -10, which no output showed; "
                                                "asking the model to print it with code.")
