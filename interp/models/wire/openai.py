"""The OpenAI chat-completions wire protocol, spoken directly over httpx.

For OpenAI and OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, ...) a request is one
JSON body POSTed to `{base}/chat/completions` and the reply is a stream of server-sent events,
each a `chat.completion.chunk`. Speaking it here costs a JSON encode and a POST per call, flat
with the conversation, and needs no `import litellm` (seconds) before the first request. The
reply is handed on as typed stream records (interp.models.stream).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interp.models.providers import BY_NAME, Provider
from interp.models.wire.hosts import messages_for
from interp.models.stream import CallDelta, ReasoningDelta, StreamRecord, records
from interp.models.wire.http import WireError, WireRequest, is_json, sse

if TYPE_CHECKING:
    import httpx

OPENAI = BY_NAME["openai"]
DEFAULT_BASE = OPENAI.base


def base_url(api_base: str | None) -> str:
    """Where requests go: --api-base, else the OpenAI SDK's variables, else OpenAI."""
    return OPENAI.url(api_base)


def body(model: str, messages: list[dict], tools: list[dict] | None,
         max_tokens: int | None, params: dict[str, Any], official: bool) -> dict[str, Any]:
    """The request body. The OpenAI API itself gets `max_completion_tokens` (its reasoning
    models refuse `max_tokens`); other servers get `max_tokens`, which all of them read."""
    request: dict[str, Any] = {"model": model, "messages": messages, "stream": True,
                               "stream_options": {"include_usage": True}}
    if tools:
        request["tools"] = tools
    if max_tokens:
        request["max_completion_tokens" if official else "max_tokens"] = max_tokens
    request.update(params)
    if official and "max_tokens" in params and "max_completion_tokens" in request:
        del request["max_completion_tokens"]  # the user's own setting wins, as given
    return request


def request(model: str, api_base: str | None, key: str | None, messages: list[dict],
            tools: list[dict] | None, max_tokens: int | None, params: dict[str, Any]) -> WireRequest:
    """The request for a chat completion (WireError when there is no key to send)."""
    key = key or OPENAI.key()
    if not key:
        raise WireError(f"missing api key: the api_key client option must be set (set "
                        f"{OPENAI.key_var} or --api-key)", kind="auth")
    url = base_url(api_base)
    return WireRequest(url + "/chat/completions",
                       {"Accept": "text/event-stream", "Authorization": f"Bearer {key}"},
                       body(model, messages, tools, max_tokens, params, url == DEFAULT_BASE))


def hosted_request(host: Provider, model: str, api_base: str | None, key: str | None,
                   messages: list[dict], tools: list[dict] | None, max_tokens: int | None,
                   params: dict[str, Any]) -> WireRequest:
    """The request for a chat completion on a hosted provider (a row of interp.models.providers with a `host`): its URL,
    its key (never OPENAI_API_KEY; WireError when there is none) and the body it takes."""
    key = key or host.key()
    if not key:
        raise WireError(f"missing api key: the api_key client option must be set (set "
                        f"{host.key_var} or --api-key)", kind="auth")
    request_body = body(model, messages_for(host, messages), tools if host.host.sends_tools else None,
                        max_tokens, params, False)
    if not host.host.stream_usage and "stream_options" not in params:
        del request_body["stream_options"]
    request_body.update((k, v) for k, v in host.host.extra if k not in params)
    return WireRequest(host.url(api_base) + "/chat/completions",
                       {"Accept": "text/event-stream", "Authorization": f"Bearer {key}",
                        **host.headers()}, request_body)


def chunks(response: httpx.Response) -> Iterator[StreamRecord]:
    """The reply's records: those of each server-sent event, up to `[DONE]`."""
    if is_json(response):  # a server that ignored stream=True
        yield from _whole(json.loads(response.read()))
        return
    for _, data in sse(response):
        data = data.strip()
        if data == "[DONE]":
            return
        if data:
            yield from _records(json.loads(data))


def _records(event: Any, key: str = "delta") -> list[StreamRecord]:
    """The records of one `chat.completion.chunk` (or, with key "message", a completion)."""
    if not isinstance(event, dict):
        return []
    if event.get("error") and not event.get("choices"):
        error = event["error"]
        code = error.get("code") if isinstance(error, dict) else None
        status = code if isinstance(code, int) else None
        raise WireError(json.dumps(event), status or 500, None)
    out: list[StreamRecord] = []
    for choice in event.get("choices") or ():
        delta = choice.get(key) if isinstance(choice, dict) else None
        delta = delta if isinstance(delta, dict) else {}
        text, thinking = _content(delta)
        calls = [_call(call) for call in delta.get("tool_calls") or () if isinstance(call, dict)]
        out += records(text, calls, choice.get("finish_reason"))
        if thinking:
            out.append(ReasoningDelta(thinking))
    usage = event.get("usage")
    extra = event.get("x_groq")  # Groq's usage
    if not usage and isinstance(extra, dict) and isinstance(extra.get("usage"), dict):
        usage = extra["usage"]
    if isinstance(usage, dict):
        out += records(usage=(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0))
    return out


def _content(delta: dict) -> tuple[str, str]:
    """The text and the reasoning of a delta, also where servers send them their own way:
    content as a list of blocks (Mistral's reasoning models), `reasoning` for
    `reasoning_content` (Groq, OpenRouter, vLLM)."""
    content, thinking = delta.get("content"), delta.get("reasoning_content")
    if thinking is None:
        thinking = delta.get("reasoning")
    if isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
        content = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
        parts = [t for b in blocks if b.get("type") == "thinking"
                 for t in b.get("thinking") or () if isinstance(t, dict)]
        if parts:
            thinking = "".join(str(t.get("text") or "") for t in parts)
    return (content if isinstance(content, str) else ""), (
        thinking if isinstance(thinking, str) else "")


def _call(call: dict) -> CallDelta:
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    return CallDelta(call.get("index"), call.get("id") or "", function.get("name") or "",
                     function.get("arguments") or "")


def _whole(completion: dict) -> list[StreamRecord]:
    """A whole (non-streamed) completion: each message read as a delta."""
    if isinstance(completion, dict) and completion.get("error") and not completion.get("choices"):
        raise WireError(json.dumps(completion), 500)
    return _records(completion, "message")
