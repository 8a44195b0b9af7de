"""The Anthropic Messages API, spoken directly over httpx.

A request is one JSON body POSTed to `{base}/v1/messages`; the reply is a stream of server-sent
events (message_start, content_block_start/delta/stop, message_delta, message_stop, ping,
error). interp's messages are OpenAI chat messages: here they become the API's shape (a
top-level system prompt, alternating user/assistant turns of content blocks, tool_use and
tool_result blocks, base64 or URL images), and the events become litellm-shaped chunks.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interp.models import modelmap
from interp.models.direct import WireError, WireRequest, chunk, is_json, record, sse

if TYPE_CHECKING:
    import httpx

DEFAULT_BASE = "https://api.anthropic.com"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
VERSION = "2023-06-01"
FALLBACK_MAX_TOKENS = 4096  # the API requires max_tokens; for models the map does not know
PLACEHOLDER = "."  # the API rejects empty text blocks and a conversation not opening with user
# The request fields the Messages API itself reads; other parameters are dropped.
NATIVE = frozenset({"max_tokens", "metadata", "stop_sequences", "system", "temperature",
                    "thinking", "tool_choice", "top_k", "top_p", "service_tier", "container",
                    "mcp_servers", "context_management"})
FINISH = {"end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop",
          "tool_use": "tool_calls", "max_tokens": "length",
          "model_context_window_exceeded": "length", "refusal": "content_filter"}
# An error event's type -> the HTTP status the API gives the same error.
STATUS = {"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
          "permission_error": 403, "not_found_error": 404, "request_too_large": 413,
          "rate_limit_error": 429, "api_error": 500, "timeout_error": 504,
          "overloaded_error": 529}
_BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")


def base_url(api_base: str | None) -> str:
    """The messages endpoint: --api-base (with or without /v1[/messages]), else litellm's
    variables, else Anthropic."""
    base = (api_base or os.environ.get("ANTHROPIC_API_BASE") or os.environ.get("ANTHROPIC_BASE_URL")
            or DEFAULT_BASE).rstrip("/")
    if base.endswith("/v1/messages"):
        return base
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


def request(model: str, api_base: str | None, key: str | None, messages: list[dict],
            tools: list[dict] | None, max_tokens: int | None, params: dict[str, Any]) -> WireRequest:
    """The request for a streamed message (WireError when there is no key to send)."""
    key = key or os.environ.get(KEY_VARIABLE)
    if not key:
        raise WireError(f"missing api key: set {KEY_VARIABLE} or --api-key", kind="auth")
    headers = {"x-api-key": key, "anthropic-version": VERSION, "Accept": "text/event-stream"}
    return WireRequest(base_url(api_base), headers, body(model, messages, tools, max_tokens, params))


def body(model: str, messages: list[dict], tools: list[dict] | None, max_tokens: int | None,
         params: dict[str, Any]) -> dict[str, Any]:
    """The request body: the conversation in the API's shape, tools and parameters."""
    system = [part for m in messages if m.get("role") in ("system", "developer")
              for part in _blocks(m.get("content"), keep_empty=False)]
    cap = max_tokens or modelmap.limit("anthropic/" + model, "max_output_tokens", "max_tokens")
    request: dict[str, Any] = {"model": model, "max_tokens": cap or FALLBACK_MAX_TOKENS,
                               "messages": turns(messages), "stream": True}
    if system:
        request["system"] = system
    if tools:
        request["tools"] = [_tool(t) for t in tools]
    request.update(_params(params))
    return request


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
            blocks = _blocks(message.get("content"))
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


def _blocks(content: Any, keep_empty: bool = True) -> list[dict]:
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
    blocks = _blocks(content, keep_empty=False) if content else []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        blocks.append({"type": "tool_use", "id": _id(call.get("id")),
                       "name": function.get("name") or "", "input": _input(function.get("arguments"))})
    return blocks or [_text(PLACEHOLDER)]


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
        block["content"] = _blocks(content)
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
    return _parsed(arguments) if isinstance(arguments, str) else {}


@functools.lru_cache(maxsize=4096)
def _parsed(arguments: str) -> dict:
    """Arguments text as an object, parsed once: the history is sent again on every call
    (what it returns is shared, so a body is encoded and never changed)."""
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"arguments": str(arguments)}


def _tool(tool: dict) -> dict:
    """An OpenAI function tool as {name, description, input_schema}; the API's own as is."""
    function = tool.get("function") if tool.get("type") == "function" else None
    if not isinstance(function, dict):
        return tool
    out = {"name": function.get("name") or "",
           "input_schema": function.get("parameters") or {"type": "object", "properties": {}}}
    if function.get("description"):
        out["description"] = function["description"]
    return out


def _params(params: dict[str, Any]) -> dict[str, Any]:
    """OpenAI-style parameters in the API's terms; the ones it does not know are dropped."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        if name in ("max_tokens", "max_completion_tokens"):
            out["max_tokens"] = value
        elif name in ("stop", "stop_sequences"):
            stops = [s for s in ([value] if isinstance(value, str) else value)
                     if isinstance(s, str) and s.strip()]  # the API rejects blank ones
            if stops:
                out["stop_sequences"] = stops
        elif name == "user":
            out["metadata"] = {"user_id": value}
        elif name == "tool_choice":
            out["tool_choice"] = _tool_choice(value)
        elif name in NATIVE:
            out[name] = value
    return out


def _tool_choice(value: Any) -> dict:
    if isinstance(value, dict) and value.get("type") == "function":
        return {"type": "tool", "name": (value.get("function") or {}).get("name", "")}
    if isinstance(value, str):
        return {"type": {"required": "any"}.get(value, value)}
    return value


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


@functools.lru_cache(maxsize=4096)
def _id(value: Any) -> str:
    """A tool call id in the characters the API allows (ids from other providers vary)."""
    return _BAD_ID.sub("_", str(value or "")) or "toolu_missing"


def chunks(response: httpx.Response) -> Iterator[Any]:
    """The reply's chunks, one per event that carries something, up to message_stop."""
    if is_json(response):  # a server that ignored stream=True
        yield _whole(json.loads(response.read()))
        return
    prompt = 0
    for _, data in sse(response):
        event = json.loads(data) if data else {}
        kind = event.get("type")
        if kind == "message_stop":
            return
        if kind == "error":
            _raise(event)
        if kind == "message_start":
            prompt = _prompt_tokens((event.get("message") or {}).get("usage") or {})
            continue
        found = (_block_start(event) if kind == "content_block_start" else
                 _delta(event) if kind == "content_block_delta" else
                 _finish(event, prompt) if kind == "message_delta" else None)
        if found is not None:  # pings, content_block_stop and unknown events carry nothing
            yield found


def _finish(event: dict, prompt: int) -> Any:
    """message_delta: the stop reason in OpenAI's terms and the usage."""
    usage, stop = event.get("usage") or {}, (event.get("delta") or {}).get("stop_reason")
    return chunk(finish=FINISH.get(stop, "stop") if stop else None,
                 usage=(_prompt_tokens(usage) or prompt, usage.get("output_tokens") or 0))


def _block_start(event: dict) -> Any:
    block, index = event.get("content_block") or {}, event.get("index", 0)
    if block.get("type") == "tool_use":
        return chunk(calls=[{"index": index, "id": block.get("id"), "name": block.get("name"),
                             "arguments": ""}])
    return chunk(text=block["text"]) if block.get("type") == "text" and block.get("text") else None


def _delta(event: dict) -> Any:
    delta, index = event.get("delta") or {}, event.get("index", 0)
    kind = delta.get("type")
    if kind == "text_delta" and delta.get("text"):
        return chunk(text=delta["text"])
    if kind == "input_json_delta" and delta.get("partial_json"):
        return chunk(calls=[{"index": index, "arguments": delta["partial_json"]}])
    if kind == "thinking_delta" and delta.get("thinking"):  # progress, but not the reply's text
        return record({"choices": [{"index": 0, "delta": {"reasoning_content": delta["thinking"]},
                                    "finish_reason": None}]})
    return None


def _prompt_tokens(usage: dict) -> int:
    """Input tokens, cache reads and writes included (all of them are the prompt)."""
    return sum(usage.get(k) or 0 for k in ("input_tokens", "cache_creation_input_tokens",
                                             "cache_read_input_tokens"))


def _raise(event: dict) -> None:
    """An error event (or error body) as a WireError with the status its type stands for."""
    error = event.get("error") if isinstance(event.get("error"), dict) else {}
    raise WireError(json.dumps(event), STATUS.get(error.get("type"), 500))


def _whole(message: dict) -> Any:
    """A whole (non-streamed) message as one chunk."""
    if message.get("type") == "error":
        _raise(message)
    text = "".join(b.get("text") or "" for b in message.get("content") or ()
                   if b.get("type") == "text")
    calls = [{"index": i, "id": b.get("id"), "name": b.get("name"),
              "arguments": json.dumps(b.get("input") or {})}
             for i, b in enumerate(message.get("content") or ()) if b.get("type") == "tool_use"]
    usage = message.get("usage") or {}
    stop = message.get("stop_reason")
    return chunk(text, calls, FINISH.get(stop, "stop") if stop else None,
                 (_prompt_tokens(usage), usage.get("output_tokens") or 0))
