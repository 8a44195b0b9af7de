"""Events a Session streams; `--json` prints them one per line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from interp.core.text import clean


@dataclass(frozen=True)
class Event:
    """One thing that happened in a session."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON Lines form: {"type": ..., **data}."""
        return {"type": self.type, **self.data}


class UnknownEvent(ValueError):
    """An event type that is not one of TYPES (a typo, or a type renamed in one place only)."""


def event(kind: str, /, **data: Any) -> Event:
    """Build an event (`kind` is positional-only, so `data` may hold a "kind" field); its
    strings are made encodable (interp/core/text.py), so every front end can show them.
    UnknownEvent when kind is not one of TYPES."""
    if kind not in TYPES:
        raise UnknownEvent(f"unknown event type {kind!r}")
    return Event(kind, clean(data))


# Event types; documented in README ("JSON output").
SESSION_STARTED = "session.started"
MODEL_REQUEST = "model.request"  # right before each model call (for a status line)
MESSAGE_DELTA = "message.delta"  # streamed text, for live display; not printed by --json
MESSAGE = "message"
BLOCK_PROPOSED = "block.proposed"
BLOCK_APPROVED = "block.approved"
BLOCK_DECLINED = "block.declined"
BLOCK_OUTPUT = "block.output"
BLOCK_DISPLAY = "block.display"  # a figure or rich value the block showed (before block.finished)
BLOCK_FILES = "block.files"  # files the block created, modified or deleted (before block.finished)
BLOCK_BACKGROUND = "block.background"  # processes the block left running (before block.finished)
BLOCK_FINISHED = "block.finished"
TURN_COMPLETED = "turn.completed"
NOTICE = "notice"
MODEL_RETRY = "model.retry"  # a failed model call is retried: attempt, max_attempts, delay, reason, text
MODEL_HANDED_OVER = "model.handed_over"  # a provider refused interp's own request: litellm takes over
CONTEXT_COMPACTING = "context.compacting"  # the model is asked for a summary: auto, messages, focus
CONTEXT_COMPACTED = "context.compacted"  # the earlier conversation was replaced by the summary
TASK_FINISHED = "task.finished"  # the task's end: exit_code and reason
SESSION_FINISHED = "session.finished"

TYPES = frozenset({
    SESSION_STARTED, MODEL_REQUEST, MESSAGE_DELTA, MESSAGE, BLOCK_PROPOSED, BLOCK_APPROVED,
    BLOCK_DECLINED, BLOCK_OUTPUT, BLOCK_DISPLAY, BLOCK_FILES, BLOCK_FINISHED, TURN_COMPLETED,
    NOTICE, MODEL_RETRY, TASK_FINISHED, SESSION_FINISHED, CONTEXT_COMPACTING, CONTEXT_COMPACTED,
    BLOCK_BACKGROUND, MODEL_HANDED_OVER,
})

JSON_HIDDEN = frozenset({MESSAGE_DELTA})


def finished_data(record) -> dict[str, Any]:
    """The fields of a block's record that block.finished reports (besides `index`)."""
    return {
        "status": record.status, "exit_code": record.exit_code, "error": record.error,
        "signal": record.signal, "interrupted": record.interrupted,
        "timed_out": record.timed_out, "died": record.died, "restarted": record.restarted,
        "truncated": record.truncated, "omitted_chars": record.omitted_chars,
        "spool_path": record.spool_path, "duration": record.duration,
        "summary": record.summary,
    }



def display_data(display) -> dict[str, Any]:
    """The fields of a runner Display that block.display reports (besides `index`)."""
    return {"kind": display.kind, "text": display.text, "path": display.path,
            "data": display.data}
