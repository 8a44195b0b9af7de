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
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"
TRANSPORT_VARIABLE = "INTERP_TRANSPORT"  # "litellm": every model through litellm


class WireError(Exception):
    """A failed call on the direct path: an error status, an error event in the stream, or a
    request that could not be made (no key). `str()` holds the server's own text."""

    def __init__(self, message: str, status: int | None = None,
                 response: httpx.Response | None = None, kind: str | None = None):
        super().__init__(message)
        self.status_code, self.response, self.kind = status, response, kind


def forced_litellm() -> bool:
    """Whether the user asked for litellm on every path (INTERP_TRANSPORT=litellm)."""
    return os.environ.get(TRANSPORT_VARIABLE, "").strip().lower() == "litellm"


def base_url(api_base: str | None) -> str:
    """Where requests go: --api-base, else the OpenAI SDK's variables, else OpenAI."""
    return (api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
            or OPENAI_DEFAULT_BASE).rstrip("/")


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


def open_stream(http: httpx.Client, url: str, key: str | None, request: dict) -> ChunkStream:
    """POST the request; the stream of its chunks (WireError on an error status)."""
    if not key:
        raise WireError("missing api key: the api_key client option must be set (set "
                        "OPENAI_API_KEY or --api-key)", kind="auth")
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
               "Authorization": f"Bearer {key}"}
    payload = json.dumps(request, ensure_ascii=False, default=str).encode()
    response = http.send(http.build_request("POST", url, content=payload, headers=headers),
                         stream=True)
    if response.status_code >= 400:
        try:
            text = response.read().decode("utf-8", "replace")
        finally:
            response.close()
        raise WireError(f"Error code: {response.status_code} - {text.strip()[:2000]}",
                        response.status_code, response)
    return ChunkStream(response)


class ChunkStream:
    """The chunks of one streamed reply; `close()` releases the connection."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response

    def __iter__(self) -> Iterator[Any]:
        kind = self.response.headers.get("content-type", "")
        if "json" in kind and "event-stream" not in kind:  # a server that ignored stream=True
            yield _as_chunk(json.loads(self.response.read()))
            return
        for line in self.response.iter_lines():
            if not line.startswith("data:"):
                continue  # blank separators, comments (": keep-alive"), event names
            data = line[5:].strip()
            if data == "[DONE]":
                return
            if data:
                yield _chunk(json.loads(data), self.response)

    def close(self) -> None:
        self.response.close()


def _chunk(event: Any, response: httpx.Response) -> Any:
    if isinstance(event, dict) and event.get("error") and not event.get("choices"):
        error = event["error"]
        code = error.get("code") if isinstance(error, dict) else None
        status = code if isinstance(code, int) else None
        raise WireError(json.dumps(event), status or 500, None)
    return _record(event)


def _as_chunk(completion: dict) -> Any:
    """A whole (non-streamed) completion as one chunk: each message becomes a delta."""
    if completion.get("error") and not completion.get("choices"):
        raise WireError(json.dumps(completion), 500)
    choices = [dict(c, delta=c.get("message") or {}) for c in completion.get("choices") or ()]
    return _record(dict(completion, choices=choices))


def _record(value: Any) -> Any:
    """JSON objects as attribute records (what chunks.Accumulator reads)."""
    if isinstance(value, dict):
        return SimpleNamespace(**{str(k): _record(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_record(v) for v in value]
    return value
