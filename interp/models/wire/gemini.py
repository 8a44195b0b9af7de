"""Google AI Studio's Gemini API (generateContent), spoken directly over httpx.

A request is one JSON body POSTed to `{base}/v1beta/models/{model}:streamGenerateContent?alt=sse`
with the key in `x-goog-api-key`; the reply is a stream of server-sent events, each a whole
GenerateContentResponse (text parts, whole functionCall parts, a finish reason, usage). The
OpenAI-shaped conversation interp keeps is turned into Gemini's `contents` here, and the reply
into typed stream records (interp.models.stream). Thinking models sign their function calls
(`thoughtSignature`) and want the signature back on the next request: interp keeps only a
call's id, so the signature travels inside the id (`<id>__thought__<signature>`, as litellm
writes it, so that sessions from either path carry over).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from interp.models.stream import StreamRecord
from interp.models.wire.http import (WireError, WireRequest, arguments_object, event_records,
                                     is_json, sse)
from interp.models.providers import BY_NAME
from interp.models.wire.gemini_schema import declaration

if TYPE_CHECKING:
    import httpx

GEMINI = BY_NAME["gemini"]  # its key variables in litellm's order (and Google's SDK's)
DEFAULT_BASE = GEMINI.base
SIGNATURE = "__thought__"  # separates a call's id from its thought signature
SKIP_SIGNATURE = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="  # Google's documented stand-in
_FINISH = {"MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter",
           "BLOCKLIST": "content_filter", "PROHIBITED_CONTENT": "content_filter",
           "SPII": "content_filter", "IMAGE_SAFETY": "content_filter",
           "IMAGE_PROHIBITED_CONTENT": "content_filter", "LANGUAGE": "content_filter",
           "OTHER": "content_filter"}  # the rest (STOP, MALFORMED_FUNCTION_CALL, ...): stop
_CONFIG = {"temperature": "temperature", "top_p": "topP", "top_k": "topK", "seed": "seed",
           "presence_penalty": "presencePenalty", "frequency_penalty": "frequencyPenalty",
           "max_tokens": "maxOutputTokens", "max_completion_tokens": "maxOutputTokens",
           "stop": "stopSequences", "n": "candidateCount"}
_GEMINI_CONFIG = {"maxOutputTokens", "topP", "topK", "stopSequences", "candidateCount", "seed",
                  "thinkingConfig", "responseMimeType", "responseSchema", "responseLogprobs",
                  "logprobs", "presencePenalty", "frequencyPenalty", "mediaResolution"}



def url(model: str, api_base: str | None) -> str:
    """Where requests go: --api-base, else GEMINI_API_BASE, else Google. A base with a path
    (`.../v1beta`, a proxy's prefix) is used as given, as litellm does; a bare host gets /v1beta."""
    base = GEMINI.url(api_base)
    if urlsplit(base).path in ("", "/"):
        base += "/v1beta"
    model = model.removeprefix("models/")
    return f"{base}/models/{model}:streamGenerateContent?alt=sse"


def request(model: str, api_base: str | None, key: str | None, messages: list[dict],
            tools: list[dict] | None, max_tokens: int | None,
            params: dict[str, Any]) -> WireRequest:
    """The request for a streamed generateContent (WireError when there is no key to send)."""
    key = key or GEMINI.key()
    if not key:
        raise WireError("missing api key: set GEMINI_API_KEY (or GOOGLE_API_KEY) or --api-key",
                        kind="auth")
    return WireRequest(url(model, api_base),
                       {"Accept": "text/event-stream", "x-goog-api-key": key},
                       body(model, messages, tools, max_tokens, params))


def body(model: str, messages: list[dict], tools: list[dict] | None, max_tokens: int | None,
         params: dict[str, Any]) -> dict[str, Any]:
    """The generateContent body for an OpenAI-shaped conversation."""
    system, contents = convert(messages, "gemini-3" in model)
    request: dict[str, Any] = {"contents": contents}
    if system:
        request["systemInstruction"] = {"parts": [{"text": text} for text in system]}
    if tools:
        request["tools"] = [{"functionDeclarations": [declaration(t) for t in tools]}]
    config: dict[str, Any] = {"maxOutputTokens": max_tokens} if max_tokens else {}
    for name, value in params.items():
        if value is None:
            continue
        if name in _CONFIG or name in _GEMINI_CONFIG:
            name = _CONFIG.get(name, name)
            config[name] = [value] if name == "stopSequences" and isinstance(value, str) else value
        elif name in ("safetySettings", "toolConfig"):
            request[name] = value
    if config:  # others are dropped, as litellm's drop_params does
        request["generationConfig"] = config
    return request


def convert(messages: list[dict], gemini3: bool = False) -> tuple[list[str], list[dict]]:
    """(system texts, contents): roles user/model, consecutive same-role turns merged (tool
    results become a user turn of functionResponse parts)."""
    system: list[str] = []
    contents: list[dict] = []
    names: dict[str, str] = {}  # call id -> function name, from the assistant messages so far
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if role in ("system", "developer"):
            system += [text for text in [_text(content)] if text]
        elif role == "assistant":
            _add(contents, "model", _model_parts(message, names, gemini3))
        elif role in ("tool", "function"):
            _add(contents, "user", _result_parts(message, names, gemini3))
        else:
            _add(contents, "user", _user_parts(content))
    for turn in contents:
        calls = [p for p in turn["parts"] if "functionCall" in p]
        if gemini3 and calls and not any("thoughtSignature" in p for p in calls):
            calls[0]["thoughtSignature"] = SKIP_SIGNATURE  # Gemini 3 refuses unsigned calls
    return system, contents or [{"role": "user", "parts": [{"text": " "}]}]


def _add(contents: list[dict], role: str, parts: list[dict]) -> None:
    if not parts:
        return
    if contents and contents[-1]["role"] == role:
        contents[-1]["parts"].extend(parts)
    else:
        contents.append({"role": role, "parts": parts})


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text") or "" for p in content
                       if isinstance(p, dict) and p.get("type") == "text")
    return content if isinstance(content, str) else ""


def _user_parts(content: Any) -> list[dict]:
    if not isinstance(content, list):
        text = _text(content)
        return [{"text": text}] if text else []
    parts: list[dict] = []
    for item in content:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "text" and item.get("text"):
            parts.append({"text": item["text"]})
        elif item.get("type") == "image_url":
            parts.append(_image(item.get("image_url")))
    return parts


def _image(image: Any) -> dict:
    """An image part: inline data from a data URL; any other URL is named in text."""
    address = image.get("url", "") if isinstance(image, dict) else str(image or "")
    head, _, data = address.partition(",")
    if address.startswith("data:") and head.endswith(";base64") and data:
        return {"inlineData": {"mimeType": head[5:].split(";")[0] or "image/png", "data": data}}
    return {"text": f"(image: {address})"}


def _model_parts(message: dict, names: dict[str, str], gemini3: bool) -> list[dict]:
    text = _text(message.get("content"))
    parts: list[dict] = [{"text": text}] if text else []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        call_id, _, signature = str(call.get("id") or "").partition(SIGNATURE)
        names[str(call.get("id") or "")] = names[call_id] = function.get("name") or ""
        text = function.get("arguments") or ""
        args = arguments_object(text) if isinstance(text, str) else text
        if not isinstance(args, dict):  # e.g. cut off by the token limit: send what can be sent
            args = {"arguments": text}
        part: dict[str, Any] = {"functionCall": {"name": function.get("name") or "",
                                                 "args": args}}
        if gemini3 and call_id:
            part["functionCall"]["id"] = call_id
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def _result_parts(message: dict, names: dict[str, str], gemini3: bool) -> list[dict]:
    """A tool result as a functionResponse part named after its call (images after it); a
    result whose call is not in the conversation goes as text."""
    raw_id = str(message.get("tool_call_id") or "")
    name = names.get(raw_id) or message.get("name")
    content = message.get("content")
    images = [_image(p.get("image_url")) for p in content or () if isinstance(p, dict)
              and p.get("type") == "image_url"] if isinstance(content, list) else []
    if not name:
        return [{"text": _text(content) or "(no output)"}, *images]
    response: dict[str, Any] = {"name": name, "response": {"content": _text(content)}}
    call_id = raw_id.partition(SIGNATURE)[0]
    if gemini3 and call_id:
        response["id"] = call_id
    return [{"functionResponse": response}, *images]


def chunks(response: httpx.Response) -> Iterator[StreamRecord]:
    """The reply's records: those of each GenerateContentResponse (streamed, or one JSON answer)."""
    reader = _Reader()
    if is_json(response):  # a server that answered in one piece (an object or an array)
        data = json.loads(response.read())
        for event in data if isinstance(data, list) else [data]:
            yield from reader.read(event)
        return
    for _, data in sse(response):
        if data:
            yield from reader.read(json.loads(data))


class _Reader:
    """Turns GenerateContentResponses into stream records, numbering the function calls."""

    def __init__(self) -> None:
        self.calls = 0

    def read(self, event: Any) -> Iterator[StreamRecord]:
        if not isinstance(event, dict):
            return
        if event.get("error"):
            raise _error(event)
        meta = event.get("usageMetadata") or {}
        usage = None
        if meta:
            output = (meta.get("candidatesTokenCount") or 0) + (meta.get("thoughtsTokenCount") or 0)
            usage = (meta.get("promptTokenCount") or 0, output)
        if (event.get("promptFeedback") or {}).get("blockReason"):
            yield from event_records(finish="content_filter", usage=usage)
            return
        candidate = (event.get("candidates") or [{}])[0]
        text, calls = "", []
        for part in (candidate.get("content") or {}).get("parts") or ():
            if "functionCall" in part:
                calls.append(self._call(part))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                text += part["text"]
        reason = candidate.get("finishReason")
        finish = None
        if reason:
            finish = _FINISH.get(reason) or ("tool_calls" if self.calls else "stop")
        if text or calls or finish or usage:
            yield from event_records(text, calls, finish, usage)

    def _call(self, part: dict) -> dict:
        call = part["functionCall"]
        call_id = str(call.get("id") or f"call_{uuid.uuid4().hex[:24]}")
        if part.get("thoughtSignature"):
            call_id += SIGNATURE + part["thoughtSignature"]
        self.calls += 1
        return {"index": self.calls - 1, "id": call_id, "name": call.get("name") or "",
                "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False)}


def _error(event: dict) -> WireError:
    """An error object in the stream, with its HTTP code (an invalid key is an auth error)."""
    error = event["error"]
    code = error.get("code") if isinstance(error, dict) else None
    text = json.dumps(event)
    return WireError(f"Error code: {code or 500} - {text}", code if isinstance(code, int) else 500,
                     kind="auth" if "API_KEY_INVALID" in text else None)
