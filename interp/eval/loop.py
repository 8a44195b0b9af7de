"""One task through interp's own loop, as `interp -y -e TASK` runs it: a folder made for it,
every block auto-approved, the sandbox when it works here. `interp eval tasks` and
`interp eval dabench` both run their items through `run_loop` and score what it returns."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from languages import Limits, RunnerConfig, Sandbox

from interp.core import events as ev
from interp.core import exits
from interp.core.history import Entry
from interp.core.state import Totals
from interp.models.base import Model, declared_sampling

MAX_FILES = 60  # files of the folder listed in a record
_EXIT_NAMES = {exits.OK: "ok", exits.MODEL_ERROR: "model error", exits.MAX_TURNS: "max turns",
               exits.POLICY: "policy", exits.NO_ANSWER: "no answer", exits.LOOP: "loop",
               exits.INTERRUPTED: "interrupted"}
_FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class LoopConfig:
    """What every benchmark item's run needs besides its task."""

    turns: int = 8  # most model calls per item
    block_timeout: float = 60.0  # seconds per code block
    sandbox: bool = True  # run the loop's code in bubblewrap (no network)
    env_remove: frozenset[str] = field(default_factory=frozenset)
    python: str | None = None  # the interpreter of python blocks (None: interp's choice)
    checks: str | tuple[str, ...] = "auto"  # the reply checks (interp/core/checks)


@dataclass(frozen=True)
class LoopRun:
    """How one run of the loop ended: the final answer, the exit status and why, an error
    notice (a model error), and the conversation with its totals."""

    answer: str
    exit_code: int | None
    reason: str
    notice: str | None
    messages: list[Entry]
    totals: Totals
    checks: tuple[str, ...] = ()  # the reply checks that asked the model, in order


def run_loop(task: str, model: Model, config: LoopConfig, folder: Path) -> LoopRun:
    """Run `task` in `folder` until the loop ends; the answer is the last final message."""
    from interp.approval.decision import auto_approve
    from interp.core.session import Session, SessionConfig

    runner = RunnerConfig(cwd=str(folder), sandbox=Sandbox("workspace" if config.sandbox else "off"),
                          limits=Limits(memory_mb=2048, processes=64),
                          env_remove=config.env_remove, python=config.python)
    session = Session(FreshStart(model), auto_approve, config=SessionConfig(
        max_turns=config.turns, timeout=config.block_timeout, runner=runner,
        checks=config.checks))
    answer, code, reason, notice, fired = "", None, "", None, []
    try:
        for event in session.run(task):
            if isinstance(event, ev.Message) and event.final:
                answer = event.text or ""
            elif isinstance(event, ev.Notice) and event.level == "error":
                notice = event.text
            elif isinstance(event, ev.Notice) and event.check:
                fired.append(event.check)
            elif isinstance(event, ev.TaskFinished):
                code, reason = event.exit_code, event.reason or ""
    finally:
        session.close()
    return LoopRun(answer, code, reason, notice, session.messages, session.totals, tuple(fired))


class FreshStart:
    """A model whose first request of a run is made so that its reply depends on no request
    made before (its "fresh" sampling: llama.cpp's prompt cache is not used), so one item's
    run does not depend on which items ran before it; everything else is the model's."""

    def __init__(self, model: Model) -> None:
        self._model = model
        self._first = True

    def __getattr__(self, name: str):
        return getattr(self._model, name)

    def stream(self, messages: list[dict], tools: list[dict] | None = None, **options):
        fresh = declared_sampling(self._model, "fresh") if self._first else None
        self._first = False
        if fresh:
            options["sampling"] = {**(options.get("sampling") or {}), **fresh}
        return self._model.stream(messages, tools, **options)


def exit_name(code: int | None) -> str:
    """How a run ended, in a word or two: "ok", "max turns", "loop", ..."""
    return _EXIT_NAMES.get(code, f"exit {code}")


def model_calls(messages: list[Entry]) -> int:
    """How many replies the model gave."""
    return sum(m.role == "assistant" for m in messages)


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


def listing(folder: Path) -> list[str]:
    """The folder's files (relative paths, sorted), at most MAX_FILES."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "node_modules", ".git"))
        found += [os.path.relpath(os.path.join(root, n), folder) for n in sorted(names)]
        if len(found) >= MAX_FILES:
            return found[:MAX_FILES] + ["…"]
    return found
