"""Answers that should have come from code: a language the task names, files only previewed,
a calculation on a formula."""

import pytest

from interp.core.codeasks import (RunRequest, WriteRequest, calculation_asked, folders_named,
                                  language_asked, previewed, unwritten)

pytestmark = pytest.mark.fast
LANGUAGES = ["python", "shell", "javascript"]


@pytest.mark.parametrize("task,word,language", [
    ("Use Python to compute 2**20 + 7 and tell me the number.", "Python", "python"),
    ("Count the lines of notes.txt with bash.", "bash", "shell"),
    ("In Node.js, print the 30th Fibonacci number.", "Node.js", "javascript"),
    ("write a python3 script that sums data.csv", "python3", "python"),
    ("Using JS, parse this date", "JS", "javascript"),
])
def test_a_named_language_is_found(task, word, language):
    assert language_asked(task, LANGUAGES) == RunRequest(f"The task asks to use {word}", language)


@pytest.mark.parametrize("task", ["What is 2**20 + 7?", "What is Python's GIL?",
                                  "Summarise sales.csv by region", "in R, fit a model",
                                  "with pandas, clean the file"])
def test_no_language_to_use(task):
    assert language_asked(task, LANGUAGES) is None


def test_previewed_files_are_named():
    assert previewed([]) is None
    assert previewed(["sales.csv"]).why == "Only a preview of sales.csv was shown to you"
    assert previewed(["a.csv", "b.csv", "c.json"]).why == \
        "Only a preview of a.csv, b.csv and c.json was shown to you"


def test_named_folders_are_named():
    assert folders_named([]) is None
    assert folders_named(["photos"]).why == "The task is about what is in photos/ here"
    assert folders_named(["logs", "photos"]).why == \
        "The task is about what is in logs and photos here"


def test_the_request_asks_for_the_code_itself():
    asked = RunRequest("The task asks for a calculation")
    assert asked.request(tools=False) == (
        "The task asks for a calculation, and no code has run yet. Reply with a ```python block "
        "of python code that does it and prints the result; it will run, and you will see its "
        "output. Then answer from the output.")
    assert RunRequest("The task asks to use bash", "shell").request(tools=True) == (
        "The task asks to use bash, and no code has run yet. Call the `execute` tool (language "
        "\"shell\") with shell code that does it and prints the result; it will run, and you "
        "will see its output. Then answer from the output.")
    asked = RunRequest("The task asks to use Python")
    assert asked.notice() == ("The task asks to use Python, and the model answered without "
                              "running code; asking it to run the code.")


@pytest.mark.parametrize("task", [
    "Find the real root of x^3 - 2x - 5 = 0 to 4 decimal places.",  # the task benchmark's
    "What is the integral of x^2 * e^(-x) from 0 to 3?",
    "What is the area enclosed between y = x^2 and y = 2x + 3?",
    "Solve this system of equations: 2x + y - z = -2.75, x - 3y + 2z = 15.5.",
    "Compute 2**20 + 7 and tell me the number.",
    "What are the eigenvalues of the matrix [[6, -2], [-2, 9]]?",  # answered "3 and 5"
    "Find the determinant of [[1.5, 2], [3, 4]]"])
def test_a_calculation_on_a_formula_is_asked_for(task):
    asked = calculation_asked(task)
    assert asked.why == "The task asks for a calculation"
    assert "prints the result as decimal numbers (not a formula);" in asked.request(tools=False)


@pytest.mark.parametrize("task", [
    "Summarise sales.csv: total revenue (units*price) per region",  # no calculation word
    "Solve the merge conflict in app.py", "What is the capital of France?",
    "Rename the files to 2024-01-report.txt", "Which class has the highest average in math?",
    "Solve the failing test in [[tool.pytest]] of pyproject.toml"])
def test_other_tasks_are_not(task):
    assert calculation_asked(task) is None


def test_a_missing_script_is_asked_for_as_a_here_document():
    """Qwen2.5-Coder-1.5B on the task benchmark (2026-11-27), asked for wordfreq.js, wrote
    JavaScript that saved the script from a template literal holding `${word}`: a SyntaxError,
    and the script was never written."""
    assert WriteRequest(("wordfreq.js",)).request(tools=False) == (
        "The task asks for the script wordfreq.js, which has not been written yet: reply with a "
        "```bash block with `cat > wordfreq.js <<'EOF'`, the code, then `EOF`, and "
        "`node wordfreq.js` on the line after it to run it; then answer from the output.")
    assert WriteRequest(("clean.py",)).request(tools=True).endswith(
        "call the `execute` tool with code that saves it, then answer from the output.")


def test_files_the_task_asks_for_and_that_are_still_missing():
    task = "Turn inventory.csv into inventory.json and report.md"
    there = {"report.md"}.__contains__
    assert unwritten(task, ["inventory.json", "report.md"], there) == \
        WriteRequest(("inventory.json",))
    assert unwritten(task, ["report.md"], there) is None
    assert unwritten("Why is app.log missing?", ["app.log"], there) is None  # nothing to write
    asked = WriteRequest(("inventory.json", "b.csv"))
    assert asked.request(tools=False) == (
        "The task asks for inventory.json and b.csv, which have not been written yet: reply "
        "with a code block that saves them, then answer from the output.")
    assert WriteRequest(("a.csv",)).notice() == ("The task asks for a.csv, which does not exist "
                                                 "yet; asking the model to write it.")
