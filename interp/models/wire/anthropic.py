"""The Anthropic Messages API, spoken directly over httpx.

A request is one JSON body POSTed to `{base}/v1/messages`; the reply is a stream of server-sent
events (message_start, content_block_start/delta/stop, message_delta, message_stop, ping,
error). interp's messages are OpenAI chat messages: here they become the API's shape (a
top-level system prompt, alternating user/assistant turns of content blocks, tool_use and
tool_result blocks, base64 or URL images), and the events become typed stream records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interp.models import modelmap
from interp.models.providers import BY_NAME
from interp.models.wire.anthropic_turns import content_blocks, turns
from interp.models.stream import ReasoningDelta, StreamRecord
from interp.models.wire.http import WireError, WireRequest, event_records, is_json, sse

if TYPE_CHECKING:
    import httpx

ANTHROPIC = BY_NAME["anthropic"]
DEFAULT_BASE = ANTHROPIC.base
VERSION = "2023-06-01"
FALLBACK_MAX_TOKENS = 4096  # the API requires max_tokens; for models the map does not know
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


def base_url(api_base: str | None) -> str:
    """The messages endpoint: --api-base (with or without /v1[/messages]), else litellm's
    variables, else Anthropic."""
    base = ANTHROPIC.url(api_base)
    if base.endswith("/v1/messages"):
        return base
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


def request(model: str, api_base: str | None, key: str | None, messages: list[dict],
            tools: list[dict] | None, max_tokens: int | None, params: dict[str, Any]) -> WireRequest:
    """The request for a streamed message (WireError when there is no key to send)."""
    key = key or ANTHROPIC.key()
    if not key:
        raise WireError(f"missing api key: set {ANTHROPIC.key_var} or --api-key", kind="auth")
    headers = {"x-api-key": key, "anthropic-version": VERSION, "Accept": "text/event-stream"}
    return WireRequest(base_url(api_base), headers, body(model, messages, tools, max_tokens, params))


def body(model: str, messages: list[dict], tools: list[dict] | None, max_tokens: int | None,
         params: dict[str, Any]) -> dict[str, Any]:
    """The request body: the conversation in the API's shape, tools and parameters."""
    system = [part for m in messages if m.get("role") in ("system", "developer")
              for part in content_blocks(m.get("content"), keep_empty=False)]
    cap = max_tokens or modelmap.limit("anthropic/" + model, "max_output_tokens", "max_tokens")
    request: dict[str, Any] = {"model": model, "max_tokens": cap or FALLBACK_MAX_TOKENS,
                               "messages": turns(messages), "stream": True}
    if system:
        request["system"] = system
    if tools:
        request["tools"] = [_tool(t) for t in tools]
    request.update(_params(params))
    return request


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


def chunks(response: httpx.Response) -> Iterator[StreamRecord]:
    """The reply's records, from each event that carries something, up to message_stop."""
    if is_json(response):  # a server that ignored stream=True
        yield from _whole(json.loads(response.read()))
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
        if found:  # pings, content_block_stop and unknown events carry nothing
            yield from found


def _finish(event: dict, prompt: int) -> list[StreamRecord]:
    """message_delta: the stop reason in OpenAI's terms and the usage."""
    usage, stop = event.get("usage") or {}, (event.get("delta") or {}).get("stop_reason")
    return event_records(finish=FINISH.get(stop, "stop") if stop else None,
                 usage=(_prompt_tokens(usage) or prompt, usage.get("output_tokens") or 0))


def _block_start(event: dict) -> list[StreamRecord] | None:
    block, index = event.get("content_block") or {}, event.get("index", 0)
    if block.get("type") == "tool_use":
        return event_records(calls=[{"index": index, "id": block.get("id"), "name": block.get("name"),
                             "arguments": ""}])
    return event_records(text=block["text"]) if block.get("type") == "text" and block.get("text") else None


def _delta(event: dict) -> list[StreamRecord] | None:
    delta, index = event.get("delta") or {}, event.get("index", 0)
    kind = delta.get("type")
    if kind == "text_delta" and delta.get("text"):
        return event_records(text=delta["text"])
    if kind == "input_json_delta" and delta.get("partial_json"):
        return event_records(calls=[{"index": index, "arguments": delta["partial_json"]}])
    if kind == "thinking_delta" and delta.get("thinking"):  # progress, but not the reply's text
        return [ReasoningDelta(delta["thinking"])]
    return None


def _prompt_tokens(usage: dict) -> int:
    """Input tokens, cache reads and writes included (all of them are the prompt)."""
    return sum(usage.get(k) or 0 for k in ("input_tokens", "cache_creation_input_tokens",
                                             "cache_read_input_tokens"))


def _raise(event: dict) -> None:
    """An error event (or error body) as a WireError with the status its type stands for."""
    error = event.get("error") if isinstance(event.get("error"), dict) else {}
    raise WireError(json.dumps(event), STATUS.get(error.get("type"), 500))


def _whole(message: dict) -> list[StreamRecord]:
    """A whole (non-streamed) message as the records of one event."""
    if message.get("type") == "error":
        _raise(message)
    text = "".join(b.get("text") or "" for b in message.get("content") or ()
                   if b.get("type") == "text")
    calls = [{"index": i, "id": b.get("id"), "name": b.get("name"),
              "arguments": json.dumps(b.get("input") or {})}
             for i, b in enumerate(message.get("content") or ()) if b.get("type") == "tool_use"]
    usage = message.get("usage") or {}
    stop = message.get("stop_reason")
    return event_records(text, calls, FINISH.get(stop, "stop") if stop else None,
                 (_prompt_tokens(usage), usage.get("output_tokens") or 0))
