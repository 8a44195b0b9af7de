"""litellm's streamed chunks (OpenAI's chunk shape, as attributes) as interp's stream records."""

from __future__ import annotations

from typing import Any

from interp.models.stream import CallDelta, ReasoningDelta, StreamRecord, records


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


def records_of(chunk: Any) -> list[StreamRecord]:
    """The records one litellm chunk carries, in the order the reply is built from them."""
    out: list[StreamRecord] = []
    for choice in getattr(chunk, "choices", None) or ():
        delta = getattr(choice, "delta", None)
        thinking = getattr(delta, "reasoning_content", None)
        calls = [_call(call) for call in getattr(delta, "tool_calls", None) or ()]
        out += records(getattr(delta, "content", None) or "", calls,
                       getattr(choice, "finish_reason", None))
        if thinking:
            out.append(ReasoningDelta(thinking))
    usage = getattr(chunk, "usage", None)
    if usage:
        out += records(usage=(getattr(usage, "prompt_tokens", 0) or 0,
                              getattr(usage, "completion_tokens", 0) or 0))
    return out


def _call(call: Any) -> CallDelta:
    function = getattr(call, "function", None)
    return CallDelta(getattr(call, "index", None), getattr(call, "id", None) or "",
                     getattr(function, "name", None) or "",
                     getattr(function, "arguments", None) or "")
