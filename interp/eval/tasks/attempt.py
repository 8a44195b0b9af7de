"""One task through interp's own loop, as `--feedback self` runs a HumanEval problem: a fresh
folder with the task's inputs, every block auto-approved, the sandbox when it works here."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from languages import Limits, RunnerConfig, Sandbox

from interp.core import events as ev
from interp.core import exits
from interp.core.history import Entry, plotted, provider_messages
from interp.eval.folders import fixed_folder
from interp.eval.tasks.results import TaskRecord
from interp.eval.tasks.spec import Attempt, Block, Task, score
from interp.models.base import Model

MAX_FILES = 60  # files of the folder listed in a record
_FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class TaskConfig:
    """What every task run needs besides the task."""

    turns: int = 8  # most model calls per task
    block_timeout: float = 60.0  # seconds per code block
    sandbox: bool = True  # run the loop's code in bubblewrap (no network)
    env_remove: frozenset[str] = field(default_factory=frozenset)
    python: str | None = None  # the interpreter of python blocks (None: interp's choice)


def run_task(task: Task, model: Model, config: TaskConfig, model_name: str) -> TaskRecord:
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


def _run(task: Task, model: Model, config: TaskConfig, model_name: str,
         folder: Path) -> TaskRecord:
    from interp.approval.decision import auto_approve
    from interp.core.session import Session, SessionConfig

    runner = RunnerConfig(cwd=str(folder), sandbox=Sandbox("workspace" if config.sandbox else "off"),
                          limits=Limits(memory_mb=2048, processes=64),
                          env_remove=config.env_remove, python=config.python)
    session = Session(model, auto_approve, config=SessionConfig(
        max_turns=config.turns, timeout=config.block_timeout, runner=runner))
    answer, code, reason, notice = "", None, "", None
    try:
        for event in session.run(task.sentence):
            if isinstance(event, ev.Message) and event.final:
                answer = event.text or ""
            elif isinstance(event, ev.Notice) and event.level == "error":
                notice = event.text
            elif isinstance(event, ev.TaskFinished):
                code, reason = event.exit_code, event.reason or ""
    finally:
        session.close()
    messages = session.messages
    attempt = Attempt(folder=folder, answer=answer, shown=shown_text(messages),
                      plots=plotted(messages), blocks=blocks_ran(messages))
    result = score(task, attempt)
    totals = session.totals
    return TaskRecord(
        task_id=task.id, category=task.category, model=model_name, sentence=task.sentence,
        right=result.right, answered=result.answered, clean=result.answered and code == exits.OK,
        exit_code=code, reason=reason, final_message=answer, failed=result.failures,
        model_calls=sum(m.role == "assistant" for m in messages),
        prompt_tokens=totals.prompt_tokens, completion_tokens=totals.completion_tokens,
        error=notice if code == exits.MODEL_ERROR else None, files=listing(folder),
        turns=provider_messages(messages[1:]))


def shown_text(messages: list[Entry]) -> str:
    """What the user saw: each assistant message (its code fences left out), each block's
    output and the text of the tables it showed, in order."""
    parts: list[str] = []
    for message in messages:
        content = message.content
        if message.role == "assistant" and isinstance(content, str):
            parts.append(_FENCE.sub("", content).strip())
        for record in message.blocks or ():
            parts.append(record.output_text())
            parts += [table.text for table in record.tables]
    return "\n".join(p for p in parts if p)


def blocks_ran(messages: list[Entry]) -> tuple[Block, ...]:
    """The blocks of a conversation that ran."""
    return tuple(Block(r.language, r.code) for m in messages for r in m.blocks or () if r.ran)


def listing(folder: Path) -> list[str]:
    """The folder's files (relative paths, sorted), at most MAX_FILES."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "node_modules", ".git"))
        found += [os.path.relpath(os.path.join(root, n), folder) for n in sorted(names)]
        if len(found) >= MAX_FILES:
            return found[:MAX_FILES] + ["…"]
    return found
