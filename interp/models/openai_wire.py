"""The OpenAI chat-completions wire protocol, spoken directly over httpx.

For OpenAI and OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, ...) a request is one
JSON body POSTed to `{base}/chat/completions` and the reply is a stream of server-sent events,
each a `chat.completion.chunk`. Speaking it here costs a JSON encode and a POST per call, flat
with the conversation, and needs no `import litellm` (seconds) before the first request. The
chunks are handed on as attribute records shaped like litellm's, for chunks.Accumulator.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interp.models.direct import WireError, WireRequest, is_json, record, sse
from interp.models.hosts import Host, messages_for

if TYPE_CHECKING:
    import httpx

DEFAULT_BASE = "https://api.openai.com/v1"
KEY_VARIABLE = "OPENAI_API_KEY"


def base_url(api_base: str | None) -> str:
    """Where requests go: --api-base, else the OpenAI SDK's variables, else OpenAI."""
    return (api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
            or DEFAULT_BASE).rstrip("/")


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
    key = key or os.environ.get(KEY_VARIABLE)
    if not key:
        raise WireError("missing api key: the api_key client option must be set (set "
                        "OPENAI_API_KEY or --api-key)", kind="auth")
    url = base_url(api_base)
    return WireRequest(url + "/chat/completions",
                       {"Accept": "text/event-stream", "Authorization": f"Bearer {key}"},
                       body(model, messages, tools, max_tokens, params, url == DEFAULT_BASE))


def hosted_request(host: Host, model: str, api_base: str | None, key: str | None,
                   messages: list[dict], tools: list[dict] | None, max_tokens: int | None,
                   params: dict[str, Any]) -> WireRequest:
    """The request for a chat completion on a hosted provider (interp.models.hosts): its URL,
    its key (never OPENAI_API_KEY; WireError when there is none) and the body it takes."""
    key = key or host.key()
    if not key:
        raise WireError(f"missing api key: the api_key client option must be set (set "
                        f"{host.key_var} or --api-key)", kind="auth")
    request_body = body(model, messages_for(host, messages), tools if host.sends_tools else None,
                        max_tokens, params, False)
    if not host.stream_usage and "stream_options" not in params:
        del request_body["stream_options"]
    request_body.update((k, v) for k, v in host.extra if k not in params)
    return WireRequest(host.url(api_base) + "/chat/completions",
                       {"Accept": "text/event-stream", "Authorization": f"Bearer {key}",
                        **host.headers()}, request_body)


def chunks(response: httpx.Response) -> Iterator[Any]:
    """The reply's chunks: one per server-sent event, up to `[DONE]`."""
    if is_json(response):  # a server that ignored stream=True
        yield _as_chunk(json.loads(response.read()))
        return
    for _, data in sse(response):
        data = data.strip()
        if data == "[DONE]":
            return
        if data:
            yield _chunk(json.loads(data))


def _chunk(event: Any) -> Any:
    if isinstance(event, dict) and event.get("error") and not event.get("choices"):
        error = event["error"]
        code = error.get("code") if isinstance(error, dict) else None
        status = code if isinstance(code, int) else None
        raise WireError(json.dumps(event), status or 500, None)
    if isinstance(event, dict):
        _normalise(event)
    return record(event)


def _normalise(event: dict) -> None:
    """OpenAI's shape for what some servers send their own way: content as a list of blocks
    (Mistral's reasoning models), `reasoning` for `reasoning_content` (Groq, OpenRouter, vLLM),
    usage under `x_groq` (Groq)."""
    for choice in event.get("choices") or ():
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            continue
        content = delta.get("content")
        if isinstance(content, list):
            blocks = [b for b in content if isinstance(b, dict)]
            delta["content"] = "".join(str(b.get("text") or "") for b in blocks
                                       if b.get("type") == "text") or None
            thinking = [t for b in blocks if b.get("type") == "thinking"
                        for t in b.get("thinking") or () if isinstance(t, dict)]
            if thinking:
                delta["reasoning_content"] = "".join(str(t.get("text") or "") for t in thinking)
        if "reasoning" in delta and "reasoning_content" not in delta:
            delta["reasoning_content"] = delta.pop("reasoning")
    extra = event.get("x_groq")
    if not event.get("usage") and isinstance(extra, dict) and isinstance(extra.get("usage"), dict):
        event["usage"] = extra["usage"]


def _as_chunk(completion: dict) -> Any:
    """A whole (non-streamed) completion as one chunk: each message becomes a delta."""
    if completion.get("error") and not completion.get("choices"):
        raise WireError(json.dumps(completion), 500)
    choices = [dict(c, delta=c.get("message") or {}) for c in completion.get("choices") or ()]
    return record(dict(completion, choices=choices))
