#!/usr/bin/env python3
"""A scripted Anthropic Messages API server (POST /v1/messages, SSE events) for tests.

Streams `message_start`, `content_block_*`, `message_delta` and `message_stop` events as the
API does, with text and `tool_use` blocks (arguments as `input_json_delta` pieces), usage, and
the faults of a `Turn`: error bodies (`authentication_error`, `rate_limit_error` with
`retry-after`, `overloaded_error`), an `error` event mid-stream, `ping` keep-alives, a
`max_tokens` stop inside a tool call and a `refusal` stop. A request the real API would
refuse (see `problem`) is answered with its 400 `invalid_request_error`.
"""

from __future__ import annotations

import itertools
import json
import re
import sys

from wire_server import (Recorded, ScriptedServer, Turn, arguments_text, estimate_tokens, pieces,
                         serve_main)

_ERRORS = {  # status -> (error type, message), as the API words them
    400: ("invalid_request_error", "messages: field required"),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "model: claude-nonexistent"),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}


class AnthropicServer(ScriptedServer):
    """Anthropic's Messages API on 127.0.0.1; give litellm `api_base=server.api_base`."""

    name = "anthropic"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._ids = itertools.count(1)

    def route(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/") == "/v1/messages"

    def answer(self, h, turn: Turn, fail: bool, recorded: Recorded) -> None:
        if fail and turn.hang and not h.hold(turn.hang):
            return
        if fail and turn.status >= 400:
            kind, message = _ERRORS.get(turn.status, ("api_error", f"HTTP {turn.status}"))
            headers = {"retry-after": f"{turn.retry_after:g}"} if turn.retry_after is not None else {}
            body = {"type": "error", "error": {"type": turn.error_type or kind,
                                               "message": turn.error or message}}
            return h.json(turn.status, body, dict(headers, **{"request-id": "req_scripted"}))
        if fail and turn.hang:
            return h.json(529, {"type": "error", "error": {"type": "overloaded_error",
                                                           "message": "Overloaded"}})
        body = recorded.body if isinstance(recorded.body, dict) else {}
        wrong = problem(body)
        if wrong:
            return h.json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                           "message": wrong}})
        h.begin_stream("text/event-stream; charset=utf-8")
        start = self._start(body, turn)
        if fail and turn.keepalive:
            h.send(_sse("message_start", start))
            return h.keep_alive(turn.keepalive, _sse("ping", {"type": "ping"}))
        events = [("message_start", start), *self._events(turn)]
        for i, (name, data) in enumerate(events):
            if fail and turn.fail_after is not None and i == turn.fail_after:
                if turn.midstream == "drop":
                    return h.drop()
                if turn.midstream == "stall":
                    return h.keep_alive(0.2, _sse("ping", {"type": "ping"}))
                error = {"type": turn.error_type or "overloaded_error",
                         "message": turn.error or "Overloaded"}
                return h.send(_sse("error", {"type": "error", "error": error}))
            if i and not h.pause(turn.chunk_delay):
                return
            h.send(_sse(name, data))

    def _start(self, body: dict, turn: Turn) -> dict:
        prompt = turn.usage[0] if turn.usage else estimate_tokens(json.dumps(body.get("messages")))
        message = {"id": f"msg_scripted{next(self._ids):05d}", "type": "message",
                   "role": "assistant", "model": body.get("model") or "claude-scripted",
                   "content": [], "stop_reason": None, "stop_sequence": None,
                   "usage": {"input_tokens": prompt, "output_tokens": 1}}
        return {"type": "message_start", "message": message}

    def _events(self, turn: Turn):
        """The events after message_start."""
        index, produced = 0, turn.text
        if turn.text:
            yield "content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}}
            yield "ping", {"type": "ping"}
            for piece in pieces(turn.text, turn.chunk_size):
                yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta", "text": piece}}
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            index = 1
        cut = False
        for call in turn.tool_calls:
            args = arguments_text(call)
            if turn.cut_at is not None:
                args, cut = args[:turn.cut_at], True
            produced += args
            block = {"type": "tool_use", "id": call.get("id") or f"toolu_scripted{next(self._ids):05d}",
                     "name": call["name"], "input": {}}
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": block}
            for piece in pieces(args, turn.chunk_size):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta",
                                                        "partial_json": piece}}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
            index += 1
            if cut:
                break
        stop = turn.finish or ("max_tokens" if cut else "tool_use" if turn.tool_calls else "end_turn")
        output = turn.usage[1] if turn.usage else estimate_tokens(produced)
        yield "message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": output}}
        yield "message_stop", {"type": "message_stop"}


# -- what the real API refuses -----------------------------------------------------------------
FIELDS = {"model", "messages", "max_tokens", "metadata", "stop_sequences", "stream", "system",
          "temperature", "thinking", "tool_choice", "tools", "top_k", "top_p", "service_tier",
          "container", "mcp_servers", "context_management"}
_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_MEDIA = {"image/jpeg", "image/png", "image/gif", "image/webp"}


def problem(body: dict) -> str | None:
    """What the real Messages API would reject in this body (its own wording), or None."""
    extra = sorted(set(body) - FIELDS)
    if extra:
        return f"{extra[0]}: Extra inputs are not permitted"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        for block in system:
            if block.get("type") != "text" or not str(block.get("text", "")).strip():
                return "system: text content blocks must contain non-whitespace text"
    for tool in body.get("tools") or ():
        if not _TOOL_NAME.match(str(tool.get("name", ""))) or \
                (tool.get("input_schema") or {}).get("type") != "object":
            return "tools.0.custom.input_schema: Input should be a valid dictionary"
    return _messages_problem(messages)


def _messages_problem(messages: list) -> str | None:
    if messages[0].get("role") != "user":
        return "messages: first message must use the \"user\" role"
    asked: list[str] = []  # the tool_use ids of the assistant turn before
    for i, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "assistant") or set(message) - {"role", "content"}:
            return f"messages.{i}: Input tag '{role}' found using 'role' does not match any of the expected tags: 'user', 'assistant'"
        if i and messages[i - 1].get("role") == role:
            return f"messages.{i}: roles must alternate between \"user\" and \"assistant\""
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            return f"messages.{i}: all messages must have non-empty content"
        wrong = _blocks_problem(i, role, blocks, asked)
        if wrong:
            return wrong
        if i == len(messages) - 1 and role == "assistant" and any(
                b.get("type") == "text" and b["text"] != b["text"].rstrip() for b in blocks):
            return "messages: final assistant content cannot end with trailing whitespace"
        asked = [b["id"] for b in blocks if b.get("type") == "tool_use"]
    return None


def _blocks_problem(i: int, role: str, blocks: list, asked: list[str]) -> str | None:
    results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
    if role == "user" and asked and sorted(results) != sorted(asked):
        return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(sorted(set(asked) - set(results)))}")
    if results and (role != "user" or blocks[:len(results)] != [b for b in blocks
                                                               if b.get("type") == "tool_result"]):
        return f"messages.{i}: tool_result blocks must come first in a user message"
    for j, block in enumerate(blocks):
        kind, where = block.get("type"), f"messages.{i}.content.{j}"
        if kind == "text" and not (isinstance(block.get("text"), str) and block["text"].strip()):
            return f"{where}: text content blocks must contain non-whitespace text"
        if kind == "image":
            source = block.get("source") or {}
            if not (source.get("type") == "base64" and source.get("media_type") in _MEDIA
                    and source.get("data")) and not (source.get("type") == "url" and source.get("url")):
                return f"{where}.image.source: invalid image source"
        if kind == "tool_use" and (role != "assistant" or not _ID.match(str(block.get("id")))
                                   or not isinstance(block.get("input"), dict)):
            return f"{where}.tool_use: id must match ^[a-zA-Z0-9_-]+$ and input must be an object"
        if kind == "tool_result" and block.get("tool_use_id") not in asked:
            return (f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{block.get('tool_use_id')}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message.")
        if kind not in ("text", "image", "tool_use", "tool_result", "document", "thinking"):
            return f"{where}: Input tag '{kind}' found using 'type' does not match any of the expected tags"
    return None


def _sse(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


if __name__ == "__main__":
    sys.exit(serve_main(AnthropicServer))
