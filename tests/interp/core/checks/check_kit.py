"""Records and views for the reply checks' tests, built the way the loop builds them."""

from __future__ import annotations

from interp.core import blocks
from interp.core.checks.base import Proposed, TaskView
from interp.models.base import Reply
from languages import CapturedOutput, Result


def record(index: int, code: str, output: str = "", status: str = "ok",
           language: str = "python") -> blocks.BlockRecord:
    """The record of a block that ran and printed `output`."""
    result = Result(status=status, output=CapturedOutput(output, "", 0, 0, len(output), None))
    return blocks.ran(index, language, code, result)


def view(task: str, reply: str = "", *, records=(), new: int = 0, proposed=(), root=".",
         previewed=(), absent=(), shown=(), tools=False, samples=frozenset(),
         languages=("python", "shell", "javascript"), finish: str = "stop") -> TaskView:
    """What a check sees: `shown` defaults to the task and every output."""
    if not shown:
        shown = (task, *(r.output_text() for r in records))
    return TaskView(task=task, reply=Reply(reply, (), None, finish), records=tuple(records),
                    new=new, proposed=tuple(Proposed(*p) for p in proposed), root=str(root),
                    previewed=tuple(previewed), absent=tuple(absent), shown=tuple(shown), tools=tools,
                    languages=tuple(languages), samples=frozenset(samples))
