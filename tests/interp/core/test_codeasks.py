"""Which language a task asks for by name."""

import pytest

from interp.core.codeasks import Asked, language_asked

pytestmark = pytest.mark.fast
LANGUAGES = ["python", "shell", "javascript"]


@pytest.mark.parametrize("task,asked", [
    ("Use Python to compute 2**20 + 7 and tell me the number.", Asked("python", "Python")),
    ("Count the lines of notes.txt with bash.", Asked("shell", "bash")),
    ("In Node.js, print the 30th Fibonacci number.", Asked("javascript", "Node.js")),
    ("write a python3 script that sums data.csv", Asked("python", "python3")),
    ("Using JS, parse this date", Asked("javascript", "JS")),
])
def test_a_named_language_is_found(task, asked):
    assert language_asked(task, LANGUAGES) == asked


@pytest.mark.parametrize("task", ["What is 2**20 + 7?", "What is Python's GIL?",
                                  "Summarise sales.csv by region", "in R, fit a model",
                                  "with pandas, clean the file"])
def test_no_language_to_use(task):
    assert language_asked(task, LANGUAGES) is None


def test_the_request_says_how_code_runs_here():
    request = Asked("python", "Python").request("to run code, write it in a fenced block.")
    assert request == ("The task asks to use Python, and no code has run yet. To run code, "
                       "write it in a fenced block. Then answer from its output. If no code is "
                       "needed after all, say so.")
