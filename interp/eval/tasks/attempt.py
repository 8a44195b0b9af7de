"""One task through interp's own loop (interp/eval/loop.py), as `--feedback self` runs a
HumanEval problem: a fresh folder with the task's inputs, then the task's checks."""

from __future__ import annotations

import time
from pathlib import Path

from interp.core import exits
from interp.core.history import Entry, plotted, provider_messages
from interp.eval.folders import fixed_folder
from interp.eval.loop import LoopConfig, listing, model_calls, run_loop, shown_text
from interp.eval.tasks.results import TaskRecord
from interp.eval.tasks.spec import Attempt, Block, Task, score
from interp.models.base import Model


def run_task(task: Task, model: Model, config: LoopConfig, model_name: str) -> TaskRecord:
    """Run one task and score it; a model error is recorded (and retried on a rerun)."""
    started = time.monotonic()
    with fixed_folder(f"task-{task.id}") as top:
        folder = top / "work"
        folder.mkdir()
        task.make(folder)
        try:
            record = _run(task, model, config, model_name, folder)
        except Exception as exc:  # a broken runner or sandbox: recorded, tried again on a rerun
            record = TaskRecord(task.id, task.category, model_name, task.sentence, False, False,
                                False, None, "harness error", "", [f"{type(exc).__name__}: {exc}"],
                                error=f"{type(exc).__name__}: {exc}")
    record.seconds = round(time.monotonic() - started, 3)
    return record


def _run(task: Task, model: Model, config: LoopConfig, model_name: str,
         folder: Path) -> TaskRecord:
    run = run_loop(task.sentence, model, config, folder)
    messages = run.messages
    attempt = Attempt(folder=folder, answer=run.answer, shown=shown_text(messages),
                      plots=plotted(messages), blocks=blocks_ran(messages))
    result = score(task, attempt)
    return TaskRecord(
        task_id=task.id, category=task.category, model=model_name, sentence=task.sentence,
        right=result.right, answered=result.answered,
        clean=result.answered and run.exit_code == exits.OK,
        exit_code=run.exit_code, reason=run.reason, final_message=run.answer,
        failed=result.failures, model_calls=model_calls(messages),
        prompt_tokens=run.totals.prompt_tokens, completion_tokens=run.totals.completion_tokens,
        error=run.notice if run.exit_code == exits.MODEL_ERROR else None, files=listing(folder),
        checks=list(run.checks), turns=provider_messages(messages[1:]))


def blocks_ran(messages: list[Entry]) -> tuple[Block, ...]:
    """The blocks of a conversation that ran."""
    return tuple(Block(r.language, r.code) for m in messages for r in m.blocks or () if r.ran)
