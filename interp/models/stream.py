"""A streamed reply as small typed records, and the one place they become a Reply.

interp's own clients (wire/) parse each protocol's stream into these records; the litellm
adapter turns litellm's chunks into the same records (litellm/chunks.py). Both hand them to
an Accumulator."""

from __future__ import annotations

from dataclasses import dataclass

from interp.models.base import Reply, ToolCall, Usage


@dataclass(frozen=True)
class TextDelta:
    """A piece of the reply's text."""

    text: str


@dataclass(frozen=True)
class CallDelta:
    """A piece of a tool call: its position, id and name where the stream says them, and a
    piece of its arguments' text."""

    index: int | None = 0
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's reasoning: progress, but not part of the reply."""

    text: str


@dataclass(frozen=True)
class Finish:
    """Why the reply ended, in OpenAI's terms (stop, tool_calls, length, content_filter)."""

    reason: str


@dataclass(frozen=True)
class TokenCount:
    """The tokens of the prompt and of the reply, as the server counted them."""

    prompt_tokens: int
    completion_tokens: int


StreamRecord = TextDelta | CallDelta | ReasoningDelta | Finish | TokenCount


# A reply whose last REPEAT_SPAN characters are one piece of at most REPEAT_UNIT characters
# written again and again (at least REPEAT_SPAN // REPEAT_UNIT times) has stopped saying
# anything: greedy decoding that falls into a cycle stays in it to the output limit.
REPEAT_SPAN = 600
REPEAT_UNIT = 200


def repeating(text: str) -> bool:
    """Whether `text` ends in a piece of at most REPEAT_UNIT characters (not only blanks)
    repeated over its last REPEAT_SPAN characters and more."""
    if len(text) <= REPEAT_SPAN:
        return False
    tail = text[-REPEAT_SPAN:]
    for unit in range(1, min(REPEAT_UNIT, len(text) - REPEAT_SPAN) + 1):
        if tail == text[-REPEAT_SPAN - unit:-unit]:
            return bool(tail[-unit:].strip())
    return False


def is_progress(record: StreamRecord) -> bool:
    """Whether a record moves the reply on (a token count alone does not)."""
    return not isinstance(record, TokenCount)


def records(text: str = "", calls: tuple[CallDelta, ...] | list[CallDelta] = (),
            finish: str | None = None,
            usage: tuple[int, int] | None = None) -> list[StreamRecord]:
    """The records of one streamed event: a text delta, call pieces, a finish reason and the
    token counts (prompt, completion), each where present."""
    out: list[StreamRecord] = [TextDelta(text)] if text else []
    out.extend(calls)
    if finish:
        out.append(Finish(finish))
    if usage is not None:
        out.append(TokenCount(usage[0] or 0, usage[1] or 0))
    return out


class Accumulator:
    """Collects a reply's records into text, tool calls, usage and finish reason."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.calls: list[dict] = []  # {"id", "index", "name", "args": [...]}, in order of arrival
        self.usage: TokenCount | None = None
        self.finish_reason: str | None = None
        self.chunks = 0  # records received

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def started(self) -> bool:
        """Whether anything (text or a call) has arrived."""
        return bool(self.parts or self.calls)

    def add(self, record: StreamRecord) -> str:
        """Absorb one record; return its text ('' if it is no text delta)."""
        self.chunks += 1
        if isinstance(record, TextDelta):
            self.parts.append(record.text)
            return record.text
        if isinstance(record, CallDelta):
            self._add_call(record)
        elif isinstance(record, Finish):
            self.finish_reason = record.reason
        elif isinstance(record, TokenCount):
            self.usage = record
        return ""

    def _add_call(self, call: CallDelta) -> None:
        """A piece of a tool call. A new id starts a new call, even under an index already seen
        (calls sent whole, one per chunk, without an index: litellm numbers them all 0)."""
        slot = None
        if call.id:
            slot = next((s for s in self.calls if s["id"] == call.id), None)
        elif self.calls:
            slot = next((s for s in reversed(self.calls) if s["index"] == call.index),
                        None) if call.index is not None else None
            slot = slot or self.calls[-1]
        if slot is None:
            slot = {"id": call.id, "index": call.index, "name": "", "args": []}
            self.calls.append(slot)
        slot["name"] = slot["name"] or call.name
        slot["args"].append(call.arguments)

    def reply(self, cost: float | None) -> Reply:
        """The final Reply."""
        calls = tuple(ToolCall(slot["id"] or f"call_{i}", slot["name"], "".join(slot["args"]))
                      for i, slot in enumerate(self.calls))
        usage = None
        if self.usage is not None:
            usage = Usage(self.usage.prompt_tokens, self.usage.completion_tokens, cost)
        return Reply(self.text, calls, usage, self.finish_reason)
