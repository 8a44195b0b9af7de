"""Whether a saved message can be sent to a model again (checked when a conversation loads)."""

from __future__ import annotations

from typing import Any

from interp.storage.entries import IMAGES

_ROLES = frozenset({"system", "user", "assistant", "tool"})


def message_problem(message: Any) -> str:
    """Why a saved message cannot be sent to a model again ("" when it can)."""
    if not isinstance(message, dict):
        return "a message that is not an object"
    role = message.get("role")
    if role not in _ROLES:
        return f"a message with an unknown role {role!r}"[:120]
    content = message.get("content")
    empty_ok = role == "assistant"
    if not (isinstance(content, str) or _content_parts(content) or (empty_ok and content is None)):
        return f"a {role} message whose content is {type(content).__name__}, not text"
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return "a tool result without a tool_call_id"
    if message.get("tool_calls") is not None and not _tool_calls(message["tool_calls"]):
        return "an assistant message with malformed tool calls"
    images = message.get(IMAGES)
    if images is not None and not (isinstance(images, list) and all(isinstance(i, str) for i in images)):
        return "a message whose figure list is not a list of paths"
    return ""


def _content_parts(content: Any) -> bool:
    """True for a list of OpenAI content parts (text or image)."""
    if not isinstance(content, list):
        return False
    for part in content:
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            return False
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            return False
    return True


def _tool_calls(calls: Any) -> bool:
    """True for a list of function calls with string ids, names and arguments."""
    if not isinstance(calls, list):
        return False
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not (isinstance(function, dict) and isinstance(call.get("id"), str)
                and isinstance(function.get("name"), str)
                and isinstance(function.get("arguments"), str)):
            return False
    return True
