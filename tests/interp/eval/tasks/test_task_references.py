"""Every task's check passes its reference solution and fails its plausible wrong one.

The references run in the real runners (python3, bash, node) in a fresh folder per task, so the
check reads real files and the figure summaries the real Python driver made."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from helpers import hang_guard
from languages.events import Display, Output, Result
from languages.javascript import NodeRunner
from languages.protocol import RunnerConfig
from languages.python import PythonRunner
from languages.shell import ShellRunner

from interp.eval.tasks.catalog import TASKS
from interp.eval.tasks.spec import Attempt, Block, score

pytest.importorskip("openpyxl")  # the xlsx references write workbooks with pandas


@pytest.fixture(scope="module")
def runners(tmp_path_factory):
    """One runner per language for the module; each reference moves into its own folder."""
    base = tmp_path_factory.mktemp("references")
    made = {"python": PythonRunner(RunnerConfig(python=sys.executable, cwd=str(base), grace=2.0)),
            "shell": ShellRunner(RunnerConfig(cwd=str(base), grace=2.0)),
            "javascript": NodeRunner(RunnerConfig(cwd=str(base), grace=2.0))}
    yield made
    for runner in made.values():
        runner.stop()


_MOVE = {"python": "import os; os.chdir({path})\n", "shell": "cd {path}\n",
         "javascript": "process.chdir({path});\n"}
_QUOTE = {"python": repr, "shell": shlex.quote, "javascript": json.dumps}


def attempt_of(task, reference, runners, folder: Path) -> Attempt:
    """Run `reference` in a fresh folder holding the task's inputs; its output is the answer."""
    folder.mkdir()
    task.make(folder)
    runner = runners[reference.language]
    code = _MOVE[reference.language].format(path=_QUOTE[reference.language](str(folder)))
    with hang_guard(120):
        events = list(runner.run(code + reference.code))
    result = events[-1]
    assert isinstance(result, Result)
    output = "".join(e.text for e in events if isinstance(e, Output))
    plots = {d.path: d.plot for d in events if isinstance(d, Display) and d.plot is not None}
    return Attempt(folder=folder, answer=output, shown=output, plots=plots,
                   blocks=(Block(reference.language, reference.code),))


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_reference_is_right_and_the_wrong_variant_is_not(task, runners, tmp_path):
    right = score(task, attempt_of(task, task.right, runners, tmp_path / "right"))
    assert right.right and right.answered, right
    wrong = score(task, attempt_of(task, task.wrong, runners, tmp_path / "wrong"))
    assert not wrong.right and not wrong.answered, wrong
