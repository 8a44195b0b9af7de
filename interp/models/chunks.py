"""From litellm's streamed chunks to one Reply."""

from __future__ import annotations

from typing import Any

from interp.models.base import Reply, ToolCall, Usage


def is_progress(chunk: Any) -> bool:
    """Whether a chunk carries something: text, reasoning, a tool call or a finish reason.

    Keep-alives, pings, a lone role and a usage-only chunk are not progress."""
    for choice in getattr(chunk, "choices", None) or ():
        if getattr(choice, "finish_reason", None):
            return True
        delta = getattr(choice, "delta", None)
        if delta is None:
            continue
        if (getattr(delta, "content", None) or getattr(delta, "tool_calls", None)
                or getattr(delta, "reasoning_content", None)
                or getattr(delta, "thinking_blocks", None)):
            return True
    return False


class Accumulator:
    """Collects streamed chunks into text, tool calls, usage and finish reason."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.calls: list[dict] = []  # {"id", "index", "name", "args": [...]}, in order of arrival
        self.usage: Any = None
        self.finish_reason: str | None = None
        self.chunks = 0

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def started(self) -> bool:
        """Whether anything (text or a call) has arrived."""
        return bool(self.parts or self.calls)

    def add(self, chunk: Any) -> str:
        """Absorb one chunk; return its text delta ('' if none)."""
        self.chunks += 1
        self.usage = getattr(chunk, "usage", None) or self.usage
        text = ""
        for choice in getattr(chunk, "choices", None) or ():
            self.finish_reason = getattr(choice, "finish_reason", None) or self.finish_reason
            delta = getattr(choice, "delta", None)
            text += getattr(delta, "content", None) or ""
            for call in getattr(delta, "tool_calls", None) or ():
                self._add_call(call)
        if text:
            self.parts.append(text)
        return text

    def _add_call(self, call: Any) -> None:
        """A piece of a tool call. A new id starts a new call, even under an index already seen
        (calls sent whole, one per chunk, without an index: litellm numbers them all 0)."""
        call_id, index = getattr(call, "id", None) or "", getattr(call, "index", None)
        slot = None
        if call_id:
            slot = next((s for s in self.calls if s["id"] == call_id), None)
        elif self.calls:
            slot = next((s for s in reversed(self.calls) if s["index"] == index),
                        None) if index is not None else None
            slot = slot or self.calls[-1]
        if slot is None:
            slot = {"id": call_id, "index": index, "name": "", "args": []}
            self.calls.append(slot)
        function = getattr(call, "function", None)
        slot["name"] = slot["name"] or getattr(function, "name", None) or ""
        slot["args"].append(getattr(function, "arguments", None) or "")

    def reply(self, cost: float | None) -> Reply:
        """The final Reply."""
        calls = tuple(ToolCall(slot["id"] or f"call_{i}", slot["name"], "".join(slot["args"]))
                      for i, slot in enumerate(self.calls))
        usage = None
        if self.usage is not None:
            usage = Usage(self.usage.prompt_tokens or 0, self.usage.completion_tokens or 0, cost)
        return Reply(self.text, calls, usage, self.finish_reason)
