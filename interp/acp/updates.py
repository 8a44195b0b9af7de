"""A turn's events as the editor is told them (`session/update` notifications): the reply's
text as message chunks, each block as a tool call (`execute`) carrying its code, its live
output and how it ended; interp's warnings as quoted lines of the message, its other remarks
(retries, compaction, rules added) as thought chunks.

A tool call's content replaces what the editor showed before, so a block's output is kept
bounded (its first HEAD_CHARS and last TAIL_CHARS characters, the middle counted) and sent
at most every OUTPUT_EVERY seconds while it runs; the editor never gets more than that,
however much a block prints. Escape sequences are taken out of what programs printed."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from acp import start_tool_call, text_block, tool_content, update_agent_message_text, \
    update_agent_thought_text, update_tool_call
from acp.schema import ToolCallLocation
from languages.escapes import strip_escapes

from interp.core import events as ev
from interp.core import exits
from interp.core.replies.fences import fence

HEAD_CHARS = 8000
TAIL_CHARS = 4000
OUTPUT_EVERY = 0.1  # seconds between two updates of a running block's output
TITLE_CHARS = 80
MAX_LOCATIONS = 50  # files a tool call points the editor at
STOP_REASONS = {exits.OK: "end_turn", exits.POLICY: "end_turn", exits.LOOP: "end_turn",
                exits.NO_ANSWER: "refusal", exits.MAX_TURNS: "max_turn_requests",
                exits.INTERRUPTED: "cancelled"}


def stop_reason(code: int) -> str:
    """The prompt's stop reason for a task's exit status (a model error is answered as an
    error instead)."""
    return STOP_REASONS.get(code, "end_turn")


class OutputView:
    """The first HEAD_CHARS and the last TAIL_CHARS characters of a block's output."""

    def __init__(self) -> None:
        self.head, self.tail, self.left_out = "", "", 0

    def add(self, text: str) -> None:
        room = HEAD_CHARS - len(self.head)
        self.head, text = self.head + text[:room], text[max(room, 0):]
        tail = self.tail + text
        self.left_out += max(0, len(tail) - TAIL_CHARS)
        self.tail = tail[-TAIL_CHARS:]

    def text(self) -> str:
        cut = f"\n… {self.left_out:,} characters left out …\n" if self.left_out else ""
        return strip_escapes(self.head + cut + self.tail)


@dataclass
class BlockCall:
    """A block's tool call as the editor knows it."""

    index: int
    language: str
    code: str
    output: OutputView = field(default_factory=OutputView)
    notes: list[str] = field(default_factory=list)
    dirty: bool = False  # output the editor has not been sent yet
    sent_at: float = 0.0

    @property
    def id(self) -> str:
        return f"block-{self.index}"

    def title(self) -> str:
        return call_title(self.index, self.language, self.code)

    def content(self) -> list:
        parts = [fence(self.code, self.language)]
        if output := self.output.text().rstrip("\n"):
            parts.append(fence(output))
        parts += self.notes
        return [tool_content(text_block(part)) for part in parts]


def call_title(index: int, language: str, code: str) -> str:
    """`python block 3: import pandas as pd …`"""
    lines = [line.strip() for line in code.strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    more = len(lines) > 1 or len(first) > TITLE_CHARS
    return f"{language} block {index}" + (f": {first[:TITLE_CHARS]}{' …' * more}" if first else "")


def notice_text(text: str) -> str:
    """A line of interp's in the reply, set apart as a quote."""
    return "\n\n> " + text.strip().replace("\n", "\n> ") + "\n\n"


class TurnUpdates:
    """Turns a task's events into updates, in order; `cwd` makes the files a block changed
    into the paths the editor follows. Error notices are held back (`errors`) until the task
    ends: a model error is the prompt's error, anything else a line of the reply."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.blocks: dict[int, BlockCall] = {}
        self.streamed = False  # the current reply arrived as message.delta chunks
        self.errors: list[str] = []
        self.exit_code: int | None = None
        self._handlers: dict[type, Callable[[ev.Event], list]] = {
            ev.ModelRequest: self._request, ev.MessageDelta: self._delta, ev.Message: self._message,
            ev.BlockProposed: self._proposed, ev.BlockApproved: self._approved,
            ev.BlockDeclined: self._declined, ev.BlockOutput: self._output,
            ev.BlockDisplay: self._display, ev.BlockFiles: self._files,
            ev.BlockBackground: self._background, ev.BlockFinished: self._finished,
            ev.Notice: self._notice, ev.ModelRetry: self._said, ev.ModelHandedOver: self._said,
            ev.ContextCompacting: self._compacting, ev.ContextCompacted: self._compacted,
            ev.TaskFinished: self._task_finished}

    def feed(self, event: ev.Event, now: float) -> list:
        """The updates an event makes now (a block's output waits for flush())."""
        handler = self._handlers.get(type(event))
        if handler is None:  # session.started, turn.completed: nothing for the editor
            return []
        pending = [] if isinstance(event, ev.BlockOutput) else self.flush(now, force=True)
        return pending + handler(event)

    def flush(self, now: float, force: bool = False) -> list:
        """Output updates of running blocks that are due (all of them with `force`)."""
        due = [call for call in self.blocks.values()
               if call.dirty and (force or now - call.sent_at >= OUTPUT_EVERY)]
        for call in due:
            call.dirty, call.sent_at = False, now
        return [update_tool_call(call.id, content=call.content()) for call in due]

    def due(self, now: float) -> float | None:
        """Seconds until a block's output is due to be sent, or None when none waits."""
        waits = [max(0.0, call.sent_at + OUTPUT_EVERY - now)
                 for call in self.blocks.values() if call.dirty]
        return min(waits, default=None)

    # -- the handlers ----------------------------------------------------------------------
    def _request(self, event: ev.ModelRequest) -> list:
        self.streamed = False
        return []

    def _delta(self, event: ev.MessageDelta) -> list:
        self.streamed = True
        return [update_agent_message_text(event.text)] if event.text else []

    def _message(self, event: ev.Message) -> list:
        return [] if self.streamed or not event.text else [update_agent_message_text(event.text)]

    def _proposed(self, event: ev.BlockProposed) -> list:
        call = self.blocks[event.index] = BlockCall(event.index, event.language, event.code)
        return [start_tool_call(call.id, call.title(), kind="execute", status="pending",
                                content=call.content(),
                                raw_input={"language": event.language, "code": event.code})]

    def _approved(self, event: ev.BlockApproved) -> list:
        call = self._call(event.index, event.language, event.code)
        call.code = event.code
        return [update_tool_call(call.id, title=call.title(), status="in_progress",
                                 content=call.content() if event.edited else None)]

    def _declined(self, event: ev.BlockDeclined) -> list:
        call = self._call(event.index)
        who = "An approval rule denied it" if event.policy else "Not run"
        call.notes.append(f"{who}" + (f": {event.reason}" if event.reason else "."))
        return [update_tool_call(call.id, status="failed", content=call.content())]

    def _output(self, event: ev.BlockOutput) -> list:
        call = self._call(event.index)
        call.output.add(event.text)
        call.dirty = True
        return []

    def _display(self, event: ev.BlockDisplay) -> list:
        what = event.path or event.kind
        self._call(event.index).notes.append(f"Showed {event.kind}: {what}" +
                                             (f"\n{event.text}" if event.text else ""))
        return []

    def _files(self, event: ev.BlockFiles) -> list:
        call = self._call(event.index)
        if event.text:
            call.notes.append(event.text)
        paths = [os.path.join(self.cwd, path) for path in [*event.created, *event.modified]]
        if not paths:
            return []
        return [update_tool_call(call.id, locations=[ToolCallLocation(path=path)
                                                     for path in paths[:MAX_LOCATIONS]])]

    def _background(self, event: ev.BlockBackground) -> list:
        running = ", ".join(f"pid {p.get('pid')}: {p.get('command', '')}"[:200]
                            for p in event.processes)
        self._call(event.index).notes.append(f"Left running: {running}")
        return []

    def _finished(self, event: ev.BlockFinished) -> list:
        call = self._call(event.index)
        call.notes.append(f"Result: {event.summary}")
        call.dirty = False
        return [update_tool_call(call.id, status="completed" if event.status == "ok" else "failed",
                                 content=call.content(),
                                 raw_output={k: v for k, v in event.body().items() if k != "index"})]

    def _notice(self, event: ev.Notice) -> list:
        if event.level == "error":
            self.errors.append(event.text)
            return []
        if event.level == "info":  # interp's remarks beside the reply, not in it
            return [update_agent_thought_text(event.text + "\n")]
        return [update_agent_message_text(notice_text(event.text))]

    def _said(self, event: ev.ModelRetry | ev.ModelHandedOver) -> list:
        return [update_agent_thought_text(event.text + "\n")]

    def _compacting(self, event: ev.ContextCompacting) -> list:
        return [update_agent_thought_text(f"Compacting the conversation: the model summarises "
                                          f"{event.messages} earlier messages.\n")]

    def _compacted(self, event: ev.ContextCompacted) -> list:
        return [update_agent_thought_text(
            f"Compacted: {event.summarized} earlier messages summarised ({event.tokens_before:,}"
            f" → {event.tokens_after:,} tokens); the full history is kept.\n")]

    def _task_finished(self, event: ev.TaskFinished) -> list:
        self.exit_code = event.exit_code
        if event.exit_code == exits.MODEL_ERROR:
            return []
        held, self.errors = self.errors, []
        return [update_agent_message_text(notice_text(text)) for text in held]

    def _call(self, index: int, language: str = "", code: str = "") -> BlockCall:
        """The block's call (one the editor was not told of yet is made: never a KeyError)."""
        if index not in self.blocks:
            self.blocks[index] = BlockCall(index, language, code)
        return self.blocks[index]
