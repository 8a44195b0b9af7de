"""Reading a saved session back: its meta record, its entries after undo and reset records
(each unusable line skipped with a warning), and its title."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from interp.core.history import Entry
from interp.core.text import clean
from interp.storage.entries import from_saved
from interp.storage.validate import message_problem

_TITLE_LEN = 60


def read_meta(path: Path) -> dict[str, Any]:
    """The meta record (the first line) of a session file, or {}."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            record = json.loads(fh.readline())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) and record.get("type") == "meta" else {}


def records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(line number, record or None, why it is unusable) for each non-blank line."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                yield number, None, "not JSON: a truncated or corrupt line"
                continue
            if isinstance(record, dict):
                yield number, clean(record), ""
            else:
                yield number, None, "not a JSON object"


def replay(path: Path) -> tuple[dict[str, Any], list[Entry], list[str]]:
    """(meta record, entries, warnings) after applying undo and reset records; each line that
    cannot be used is skipped with a warning that names it."""
    meta: dict[str, Any] = {}
    messages: list[Entry] = []
    warnings: list[str] = []
    for number, record, problem in records(path):
        kind = record.get("type") if record is not None else None
        if record is not None and kind == "message":
            problem = message_problem(record.get("message"))
        if problem:
            warnings.append(f"line {number} of {path.name} was skipped: {problem}")
        elif kind == "meta" and not meta:
            meta = record
        elif kind == "message":
            messages.append(from_saved(record["message"]))
        elif kind == "undo":
            count = record.get("count")
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                del messages[max(0, len(messages) - count):]
        elif kind == "reset":
            messages.clear()
    return meta, messages, warnings


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return " ".join(p for p in parts if isinstance(p, str))
    return ""


def session_title(messages: list[Entry]) -> str:
    """The first user message that is not a blocks report, shortened."""
    for message in messages:
        if message.role == "user" and not message.output:
            text = " ".join(_content_text(message.content).split())
            if len(text) > _TITLE_LEN:
                text = text[: _TITLE_LEN - 1] + "…"
            return text
    return ""
