"""interp's conversation (OpenAI chat messages) as the Anthropic Messages API requires it:
alternating user/assistant turns of content blocks opening with a user turn, every tool_use
answered by a tool_result at the start of the next user turn, no empty text, ids in the
characters the API allows, images as base64 or URL sources."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from interp.models.wire.http import arguments_object

PLACEHOLDER = "."  # the API rejects empty text blocks and a conversation not opening with user
_BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")


def turns(messages: list[dict]) -> list[dict]:
    """OpenAI chat messages as alternating user/assistant turns of content blocks, opening
    with a user turn; tool results answer the tool_use blocks of the turn before them."""
    out: list[dict] = []
    calls: set[str] = set()  # the tool_use ids of the latest assistant turn
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            continue
        if role == "assistant":
            blocks = _assistant_blocks(message)
            calls = {b["id"] for b in blocks if b["type"] == "tool_use"}
        elif role in ("tool", "function"):
            blocks = [_tool_result(message, calls)]
        else:
            blocks = content_blocks(message.get("content"))
        speaker = "assistant" if role == "assistant" else "user"
        if out and out[-1]["role"] == speaker:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": speaker, "content": blocks})
    _answer_missing(out)
    if not out or out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [_text(PLACEHOLDER)]})
    last = out[-1]
    if last["role"] == "assistant":  # a final assistant turn must not end in white space
        for block in last["content"]:
            if block["type"] == "text":
                block["text"] = block["text"].rstrip() or PLACEHOLDER
    return out


def _answer_missing(out: list[dict]) -> None:
    """Every tool_use answered by a tool_result at the start of the next user turn, as the
    API requires (a result lost to trimming or an interrupted turn says so)."""
    for i, turn in enumerate(out):
        if turn["role"] != "assistant":
            continue
        asked = [b["id"] for b in turn["content"] if b["type"] == "tool_use"]
        if not asked:
            continue
        if i + 1 == len(out):
            out.append({"role": "user", "content": []})
        content = out[i + 1]["content"]
        if [b.get("tool_use_id") for b in content[:len(asked)]] == asked and \
                not any(b.get("type") == "tool_result" for b in content[len(asked):]):
            continue  # answered in order, results first: the usual case
        answered = {b.get("tool_use_id") for b in content if b.get("type") == "tool_result"}
        content += [{"type": "tool_result", "tool_use_id": c, "content": "(no result)"}
                    for c in dict.fromkeys(asked) if c not in answered]
        content.sort(key=lambda b: b.get("type") != "tool_result")


def content_blocks(content: Any, keep_empty: bool = True) -> list[dict]:
    """Content (a string or OpenAI parts) as text and image blocks, none of them empty text."""
    if isinstance(content, str) and content and not content.isspace():
        return [_text(content)]
    parts = content if isinstance(content, list) else [content]
    blocks = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "image_url":
            blocks.append(_image(part.get("image_url")))
        elif isinstance(part, dict) and part.get("type") in ("image", "document"):
            blocks.append(part)  # already the API's own block
        else:
            text = part.get("text") if isinstance(part, dict) else part
            if isinstance(text, str) and text and not text.isspace():
                blocks.append(_text(text))
    if not blocks and keep_empty:
        blocks.append(_text(PLACEHOLDER))
    return blocks


def _assistant_blocks(message: dict) -> list[dict]:
    """An assistant message's text and tool_use blocks."""
    content = message.get("content")
    found = content_blocks(content, keep_empty=False) if content else []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        found.append({"type": "tool_use", "id": _id(call.get("id")),
                      "name": function.get("name") or "", "input": _input(function.get("arguments"))})
    return found or [_text(PLACEHOLDER)]


def _tool_result(message: dict, calls: set[str]) -> dict:
    """A `tool` message as a tool_result block, or as text when no tool_use before it
    has its id (the API rejects such a result; trimming can leave one behind)."""
    call_id = _id(message.get("tool_call_id"))
    content = message.get("content")
    if call_id not in calls:
        text = content if isinstance(content, str) else json.dumps(content, default=str)
        return _text(f"Output of tool call {call_id}:\n{text or '(no output)'}")
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    if isinstance(content, list):
        block["content"] = content_blocks(content)
    elif content:
        block["content"] = str(content)
    return block


def _image(url: Any) -> dict:
    """An image_url part's URL as an image block: base64 from a data: URL, else a URL source."""
    url = url.get("url", "") if isinstance(url, dict) else str(url or "")
    if url.startswith("data:") and "," in url:
        head, data = url[5:].split(",", 1)
        return {"type": "image", "source": {"type": "base64", "data": data,
                                            "media_type": head.split(";", 1)[0] or "image/png"}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _input(arguments: Any) -> dict:
    """Tool-call arguments as the JSON object the API wants (text that is not one is kept
    under "arguments", so nothing the model wrote is lost)."""
    if isinstance(arguments, dict):
        return arguments
    if not isinstance(arguments, str):
        return {}
    found = arguments_object(arguments)
    return found if found is not None else {"arguments": arguments}


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


@functools.lru_cache(maxsize=4096)
def _id(value: Any) -> str:
    """A tool call id in the characters the API allows (ids from other providers vary)."""
    return _BAD_ID.sub("_", str(value or "")) or "toolu_missing"
