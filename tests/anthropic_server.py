#!/usr/bin/env python3
"""A scripted Anthropic Messages API server (POST /v1/messages, SSE events) for tests.

Streams `message_start`, `content_block_*`, `message_delta` and `message_stop` events as the
API does, with text and `tool_use` blocks (arguments as `input_json_delta` pieces), usage, and
the faults of a `Turn`: error bodies (`authentication_error`, `rate_limit_error` with
`retry-after`, `overloaded_error`), an `error` event mid-stream, `ping` keep-alives, a
`max_tokens` stop inside a tool call and a `refusal` stop.
"""

from __future__ import annotations

import itertools
import json
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


def _sse(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


if __name__ == "__main__":
    sys.exit(serve_main(AnthropicServer))
