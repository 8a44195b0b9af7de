"""The conversation's records: each holds the message a provider is sent and, beside it, the
facts only interp reads (the user's task, a blocks report with its records and figures,
interp's own system prompt, a compaction summary). The payload is built from the `message`
fields (payload.py); saved conversations keep the JSON shape they have always had
(interp/storage/entries.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from languages.plots import Plot

from interp.core.blocks import BlockRecord

_LEGACY_HEADER = re.compile(r"^\[Block \d+, [^\]\n]*\]$", re.M)


@dataclass(frozen=True)
class Compaction:
    """What a summary replaces (compaction.py): the messages before raw index `end`, except
    the leading system messages and message `task` (the current task, kept)."""

    end: int | None  # None: not one interp wrote (the full history is sent)
    task: int | None = None
    auto: bool = False
    focus: str | None = None
    summarized: int = 0
    tokens_before: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # unknown stored keys


@dataclass(frozen=True)
class Entry:
    """One message of the conversation: `message` as a provider is sent it (role, content,
    tool_calls, tool_call_id), and interp's facts about it."""

    message: dict[str, Any]
    task: bool = False  # the user's task (what /undo drops back to, what is never trimmed)
    output: bool = False  # it reports blocks to the model (a tool result or a user message)
    blocks: tuple[BlockRecord, ...] | None = None  # the blocks it reports; None: not recorded
    images: tuple[str, ...] = ()  # figure files, sent as images to a vision model
    prompt: bool = False  # interp's own system prompt (sent in its tool form with the tool)
    compaction: Compaction | None = None  # a summary of the earlier conversation
    retracts: bool = False  # the answer just before it is not sent again (see unretracted)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # unknown stored keys

    @property
    def role(self) -> str | None:
        return self.message.get("role")

    @property
    def content(self) -> Any:
        return self.message.get("content")

    @property
    def tool_calls(self) -> list[dict]:
        """The tool calls of an assistant message ([] when none)."""
        return self.message.get("tool_calls") or []

    def with_content(self, content: Any) -> Entry:
        """The same entry with another content."""
        return replace(self, message={**self.message, "content": content})


def user_message(text: str) -> Entry:
    """An entry for a plain user message (a request of interp's own, not a task)."""
    return Entry({"role": "user", "content": text})


def unretracted(entries: list[Entry]) -> list[Entry]:
    """`entries` as the model is sent them: an answer that a request of interp's retracts (one
    given without running code) is left out, and the request joins the user message before it.
    A small model shown its own unchecked answer repeats it after code has printed another."""
    sent: list[Entry] = []
    for entry in entries:
        if (entry.retracts and len(sent) >= 2 and _plain(sent[-1], "assistant")
                and _plain(sent[-2], "user") and _plain(entry, "user")):
            sent[-2:] = [sent[-2].with_content(f"{sent[-2].content}\n\n{entry.content}")]
        else:
            sent.append(entry)
    return sent


def _plain(entry: Entry, role: str) -> bool:
    return entry.role == role and isinstance(entry.content, str) and not entry.tool_calls


def task_indices(entries: list[Entry]) -> list[int]:
    """The positions of the user's tasks, oldest first."""
    return [i for i, entry in enumerate(entries) if entry.task]


def provider_messages(entries: list[Entry]) -> list[dict]:
    """The provider messages of `entries`, in order (what a transcript of turns shows)."""
    return [entry.message for entry in entries]


def plotted(entries: list[Entry]) -> dict[str, Plot]:
    """What each figure file saved in a conversation plots, by absolute path (the last save
    of a path wins)."""
    found: dict[str, Plot] = {}
    for entry in entries:
        for record in entry.blocks or ():
            found.update(record.plots)
    return found


def last_number(entries: list[Entry]) -> int:
    """The highest block number in a conversation (0 if none), so that numbering continues.

    Conversations saved before records existed are counted from their report messages."""
    highest, legacy = 0, 0
    for entry in entries:
        if entry.blocks is not None:
            highest = max([highest, *(r.index for r in entry.blocks)])
        elif entry.output and entry.role == "tool":
            legacy += 1
        elif entry.output and isinstance(entry.content, str):
            legacy += len(_LEGACY_HEADER.findall(entry.content))
    return highest or legacy
