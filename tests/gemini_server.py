#!/usr/bin/env python3
"""A scripted Gemini API server (`models/M:streamGenerateContent?alt=sse` and
`models/M:generateContent`) for tests.

Streams `GenerateContentResponse` objects as server-sent events, as the Google AI Studio API
does: text parts, whole `functionCall` parts, `usageMetadata`, and the faults of a `Turn`:
Google error bodies (`API_KEY_INVALID` as a 400, `RESOURCE_EXHAUSTED` with a
`RetryInfo.retryDelay`, `UNAVAILABLE`), an error object mid-stream, `: keep-alive` comments,
and finish reasons such as `SAFETY`, `MAX_TOKENS` or `MALFORMED_FUNCTION_CALL` (`prompt:SAFETY`:
the prompt is blocked, `promptFeedback.blockReason`). A scripted call may carry a `signature`
(sent as the part's `thoughtSignature`, as thinking models do) and a `native_id` (the
`functionCall.id` Gemini 3 sends). Requests are checked for what the real API refuses (see
`check_request`): such a request gets its 400 INVALID_ARGUMENT, without using up a turn.
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

    def take(self, recorded: Recorded) -> tuple[Turn, bool]:
        problem = check_request(recorded)
        if problem is not None:
            with self._lock:
                self._requests.append(recorded)
            status = 403 if problem.startswith("Method doesn't allow") else 400
            return Turn(status=status, error=problem), True
        return super().take(recorded)

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
            part = {"functionCall": {"name": call["name"], "args": json.loads(args)}}
            if call.get("native_id"):
                part["functionCall"]["id"] = call["native_id"]
            if call.get("signature"):
                part["thoughtSignature"] = call["signature"]
            calls.append(part)
        finish = turn.finish or "STOP"
        if finish.startswith("prompt:"):
            yield {"promptFeedback": {"blockReason": finish[7:]},
                   "usageMetadata": {"promptTokenCount": prompt, "totalTokenCount": prompt},
                   "modelVersion": model}
        elif finish in ("SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII"):
            yield {"candidates": [{"index": 0, "finishReason": finish, "safetyRatings": [
                {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH",
                 "blocked": True}]}], "modelVersion": model}
        elif finish == "MALFORMED_FUNCTION_CALL":
            yield {"candidates": [{"index": 0, "content": {}, "finishReason": finish,
                                   "finishMessage": "Malformed function call: execute(code=..."}],
                   "modelVersion": model}
        else:
            yield response(calls or ([] if text_pieces else [{"text": ""}]), finish)


_DATA = {"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode",
         "codeExecutionResult"}
_PART_META = {"thought", "thoughtSignature", "videoMetadata", "mediaResolution"}
_BODY = {"contents", "systemInstruction", "tools", "toolConfig", "safetySettings",
         "generationConfig", "cachedContent", "labels"}
_GENERATION = {"stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema",
               "candidateCount", "maxOutputTokens", "temperature", "topP", "topK", "seed",
               "presencePenalty", "frequencyPenalty", "responseLogprobs", "logprobs",
               "thinkingConfig", "mediaResolution", "responseModalities", "speechConfig"}
_SCHEMA = {"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
           "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
           "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum",
           "maximum"}


def _camel(name: str) -> str:
    """The proto JSON name (the API reads snake_case and camelCase alike)."""
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _unknown(keys, known: set[str]) -> str | None:
    for key in keys:
        if _camel(key) not in known:
            return f'Invalid JSON payload received. Unknown name "{key}": Cannot find field.'
    return None


def check_request(recorded: Recorded) -> str | None:
    """What the real API would refuse in this request (its message), or None."""
    headers = {k.lower(): v for k, v in recorded.headers.items()}
    if not headers.get("x-goog-api-key") and not recorded.query.get("key"):
        return ("Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API.")
    body = recorded.body
    if not isinstance(body, dict):
        return "Invalid JSON payload received."
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    config = body.get("generationConfig", body.get("generation_config")) or {}
    for declarations in body.get("tools") or ():
        for function in declarations.get("functionDeclarations",
                                         declarations.get("function_declarations", ())):
            problem = _check_schema(function.get("parameters"))
            if problem:
                return problem
    return (_unknown(body, _BODY) or _unknown(config, _GENERATION)
            or _check_contents(contents, "gemini-3" in recorded.path))


def _check_schema(node) -> str | None:
    if not isinstance(node, dict):
        return None
    problem = _unknown(node, _SCHEMA)
    for child in [*(node.get("properties") or {}).values(), node.get("items"),
                  *(node.get("anyOf") or ())]:
        problem = problem or _check_schema(child)
    return problem


def _check_contents(contents: list, gemini3: bool) -> str | None:
    for i, content in enumerate(contents):
        parts = content.get("parts") if isinstance(content, dict) else None
        if content.get("role") not in ("user", "model"):
            return f"* GenerateContentRequest.contents[{i}].role: must be user or model"
        if not parts:
            return f"* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
        for j, part in enumerate(parts):
            data = [_camel(k) for k in part if _camel(k) in _DATA]
            extra = _unknown([k for k in part if _camel(k) not in _DATA], _PART_META)
            if len(data) != 1 or extra:
                return extra or (f"* GenerateContentRequest.contents[{i}].parts[{j}].data: "
                                 "required oneof field 'data' must have one initialized field")
            value = part[next(k for k in part if _camel(k) in _DATA)]
            if data[0] in ("functionCall", "functionResponse") and not value.get("name"):
                return f"* GenerateContentRequest.contents[{i}].parts[{j}].{data[0]}.name: Name cannot be empty."
            if data[0] == "functionResponse" and not isinstance(value.get("response"), dict):
                return f"* GenerateContentRequest.contents[{i}].parts[{j}].functionResponse.response: must be an object"
            if data[0] == "inlineData" and not (value.get("mimeType", value.get("mime_type"))
                                                and value.get("data")):
                return f"* GenerateContentRequest.contents[{i}].parts[{j}].inlineData: mimeType and data are required"
        problem = _check_turn(contents, i, gemini3)
        if problem:
            return problem
    return None


def _check_turn(contents: list, i: int, gemini3: bool) -> str | None:
    """A function call turn: after a user turn, answered by as many function responses."""
    calls = [p for p in contents[i]["parts"] if "functionCall" in p or "function_call" in p]
    if not calls:
        return None
    if i == 0 or contents[i - 1].get("role") != "user":
        return ("Please ensure that function call turn comes immediately after a user turn or "
                "after a function response turn.")
    if gemini3 and not any("thoughtSignature" in p or "thought_signature" in p for p in calls[:1]):
        name = (calls[0].get("functionCall") or calls[0].get("function_call"))["name"]
        return ("Function call is missing a thought_signature in functionCall parts. This is "
                "required for tools to work correctly, and missing thought_signature may lead "
                f"to degraded model performance. Additional data, function call `default_api:{name}` , "
                f"position {i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")
    if i + 1 < len(contents):
        answers = [p for p in contents[i + 1]["parts"]
                   if "functionResponse" in p or "function_response" in p]
        if contents[i + 1].get("role") != "user" or len(answers) != len(calls):
            return ("Please ensure that the number of function response parts is equal to the "
                    "number of function call parts of the function call turn.")
    return None


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
