#!/usr/bin/env python3
"""A scripted Gemini API server (`models/M:streamGenerateContent?alt=sse` and
`models/M:generateContent`) for tests.

Streams `GenerateContentResponse` objects as server-sent events, as the Google AI Studio API
does: text parts, whole `functionCall` parts, `usageMetadata`, and the faults of a `Turn`:
Google error bodies (`API_KEY_INVALID` as a 400, `RESOURCE_EXHAUSTED` with a
`RetryInfo.retryDelay`, `UNAVAILABLE`), an error object mid-stream, `: keep-alive` comments,
and finish reasons such as `SAFETY`, `MAX_TOKENS` or `MALFORMED_FUNCTION_CALL`.
"""

from __future__ import annotations

import itertools
import json
import re
import sys

from wire_server import (Recorded, ScriptedServer, Turn, arguments_text, estimate_tokens, pieces,
                         serve_main)

_PATH = re.compile(r"^(?:/v1beta|/v1)?/models/(?P<model>[^:/]+):(?P<method>streamGenerateContent|generateContent)$")
_ERRORS = {  # status -> (Google status, message, details)
    400: ("INVALID_ARGUMENT", "Invalid JSON payload received.", []),
    401: ("UNAUTHENTICATED", "Request had invalid authentication credentials.", []),
    403: ("PERMISSION_DENIED", "The caller does not have permission", []),
    404: ("NOT_FOUND", "models/gemini-nonexistent is not found for API version v1beta.", []),
    429: ("RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and "
          "billing details.", []),
    500: ("INTERNAL", "An internal error has occurred.", []),
    503: ("UNAVAILABLE", "The model is overloaded. Please try again later.", []),
}
BAD_KEY = Turn(status=400, error="API key not valid. Please pass a valid API key.",
               error_type="API_KEY_INVALID")


class GeminiServer(ScriptedServer):
    """Google AI Studio's Gemini API on 127.0.0.1; give litellm `api_base=server.api_base`."""

    name = "gemini"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._ids = itertools.count(1)

    def route(self, method: str, path: str) -> bool:
        return method == "POST" and _PATH.match(path) is not None

    def answer(self, h, turn: Turn, fail: bool, recorded: Recorded) -> None:
        if fail and turn.hang and not h.hold(turn.hang):
            return
        if fail and (turn.status >= 400 or turn.hang):
            status = turn.status if turn.status >= 400 else 503
            headers = {"retry-after": f"{turn.retry_after:g}"} if turn.retry_after is not None else {}
            return h.json(status, error_body(turn, status), headers)
        match = _PATH.match(recorded.path)
        model = match["model"]
        body = recorded.body if isinstance(recorded.body, dict) else {}
        responses = list(self._responses(turn, model, body))
        if match["method"] == "generateContent":
            return h.json(200, _merge(responses))
        h.begin_stream("text/event-stream")
        if fail and turn.keepalive:
            return h.keep_alive(turn.keepalive, b": keep-alive\r\n\r\n")
        for i, response in enumerate(responses):
            if fail and turn.fail_after is not None and i == turn.fail_after:
                if turn.midstream == "drop":
                    return h.drop()
                if turn.midstream == "stall":
                    return h.keep_alive(0.2, b": keep-alive\r\n\r\n")
                status = turn.status if turn.status >= 400 else 503
                return h.send(_sse(error_body(turn, status)))
            if i and not h.pause(turn.chunk_delay):
                return
            h.send(_sse(response))

    def _responses(self, turn: Turn, model: str, body: dict):
        """The GenerateContentResponse objects of a turn, in order."""
        prompt = turn.usage[0] if turn.usage else estimate_tokens(json.dumps(body.get("contents")))
        produced = ""

        def response(parts: list[dict] | None, finish: str | None = None) -> dict:
            candidate: dict = {"index": 0}
            if parts is not None:
                candidate["content"] = {"parts": parts, "role": "model"}
            if finish:
                candidate["finishReason"] = finish
            output = turn.usage[1] if turn.usage else estimate_tokens(produced)
            usage = {"promptTokenCount": prompt, "candidatesTokenCount": output,
                     "totalTokenCount": prompt + output}
            return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model,
                    "responseId": f"resp-scripted{next(self._ids):05d}"}

        text_pieces = pieces(turn.text, turn.chunk_size)
        for piece in text_pieces:
            produced += piece
            yield response([{"text": piece}])
        calls = []
        for call in turn.tool_calls:
            args = arguments_text(call)
            produced += args
            calls.append({"functionCall": {"name": call["name"], "args": json.loads(args)}})
        finish = turn.finish or "STOP"
        if finish in ("SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII"):
            yield {"candidates": [{"index": 0, "finishReason": finish, "safetyRatings": [
                {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH",
                 "blocked": True}]}], "modelVersion": model}
        elif finish == "MALFORMED_FUNCTION_CALL":
            yield {"candidates": [{"index": 0, "content": {}, "finishReason": finish,
                                   "finishMessage": "Malformed function call: execute(code=..."}],
                   "modelVersion": model}
        else:
            yield response(calls or ([] if text_pieces else [{"text": ""}]), finish)


def error_body(turn: Turn, status: int) -> dict:
    """A Google API error body for `status` (details from the turn)."""
    google_status, message, details = _ERRORS.get(status, ("UNKNOWN", f"HTTP {status}", []))
    details = list(details)
    if turn.error_type == "API_KEY_INVALID":
        google_status = "INVALID_ARGUMENT"
        details.append({"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID", "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"}})
    elif turn.error_type:
        google_status = turn.error_type
    if turn.retry_delay is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                        "retryDelay": f"{turn.retry_delay:g}s"})
    error = {"code": status, "message": turn.error or message, "status": google_status}
    if details:
        error["details"] = details
    return {"error": error}


def _merge(responses: list[dict]) -> dict:
    """One non-streamed response from the streamed ones."""
    parts, last = [], responses[-1]
    for response in responses:
        for candidate in response.get("candidates") or ():
            parts += (candidate.get("content") or {}).get("parts") or []
    merged = json.loads(json.dumps(last))
    for candidate in merged.get("candidates") or ():
        if "content" in candidate:
            candidate["content"]["parts"] = [p for p in parts if p != {"text": ""}]
    return merged


def _sse(obj: dict) -> bytes:
    return f"data: {json.dumps(obj)}\r\n\r\n".encode()


if __name__ == "__main__":
    sys.exit(serve_main(GeminiServer))
