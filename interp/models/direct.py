"""The model protocols interp speaks itself over httpx, and what they share.

OpenAI chat completions, Anthropic Messages, Gemini generateContent and Ollama's /api/chat are
each one JSON body POSTed and a streamed reply read back. Speaking them here costs a JSON
encode and a POST per call, flat with the conversation, and needs no `import litellm`
(seconds) before the first request. Hosted providers that speak OpenAI's protocol (groq,
deepseek, mistral, ...: interp.models.hosts) go by the OpenAI one. Every other provider goes
through litellm, and so does every model with INTERP_TRANSPORT=litellm. Each protocol module
has `request(...)`, giving a WireRequest, and `chunks(response)`, giving the reply as chunk
records shaped like litellm's (what chunks.Accumulator reads).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from interp.models import hosts, modelmap

if TYPE_CHECKING:
    import httpx

TRANSPORT_VARIABLE = "INTERP_TRANSPORT"  # "litellm": every model through litellm
# Name prefix -> the protocol module that speaks it.
PREFIXES = {"openai/": "openai", "anthropic/": "anthropic", "gemini/": "gemini",
            "ollama/": "ollama", "ollama_chat/": "ollama"}
BARE = ("openai", "anthropic")  # providers whose models go by bare names (`gpt-4o`, `claude-x`)
# Protocol -> litellm's name for the provider.
PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "gemini": "gemini",
             "ollama": "ollama_chat", "azure": "azure"}


class WireError(Exception):
    """A failed call on a direct path: an error status, an error event in the stream, or a
    request that could not be made (no key). `str()` holds the server's own text."""

    def __init__(self, message: str, status: int | None = None,
                 response: httpx.Response | None = None, kind: str | None = None):
        super().__init__(message)
        self.status_code, self.response, self.kind = status, response, kind


@dataclass(frozen=True)
class WireRequest:
    """One request of a direct path: where it goes, its headers and its JSON body."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)


def forced_litellm() -> bool:
    """Whether the user asked for litellm on every path (INTERP_TRANSPORT=litellm)."""
    return os.environ.get(TRANSPORT_VARIABLE, "").strip().lower() == "litellm"


def protocol_for(name: str, api_base: str | None = None, api_key: str | None = None) -> str | None:
    """The protocol interp speaks itself for this model name, or None to go through litellm."""
    if forced_litellm():
        return None
    if hosts.azure_speaks(name, api_base, api_key):
        return "azure"
    protocol = next((p for prefix, p in PREFIXES.items() if name.startswith(prefix)), None)
    if protocol is None and hosts.host_for(name):
        return "openai"
    if protocol is None and "/" not in name:  # a bare name: where litellm's map sends it
        provider = (modelmap.entry(name) or {}).get("litellm_provider")
        protocol = provider if provider in BARE else None
    if protocol == "openai" and (modelmap.entry(name, "openai") or {}).get("mode", "chat") != "chat":
        return None  # a model only OpenAI's Responses API serves
    return protocol


def module(protocol: str) -> ModuleType:
    """The module that speaks a protocol (interp.models.<protocol>_wire)."""
    return importlib.import_module(f"interp.models.{protocol}_wire")


def bare(name: str) -> str:
    """The model's own name, without interp's provider prefix (`anthropic/claude-x` -> `claude-x`,
    `groq/llama-3.3-70b` -> `llama-3.3-70b`)."""
    for prefix in PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name.split("/", 1)[1] if hosts.host_for(name) or name.startswith("azure/") else name


def post(http: httpx.Client, request: WireRequest) -> httpx.Response:
    """Send the request and return the streaming response; WireError on an error status."""
    # No cycle check: the body is built afresh from the history (the check costs 10-20% of
    # the encode, a dict entry per object); a cycle would still fail, with a RecursionError.
    payload = json.dumps(request.body, ensure_ascii=False, default=str,
                         check_circular=False).encode()
    headers = {"Content-Type": "application/json", **request.headers}
    response = http.send(http.build_request("POST", request.url, content=payload,
                                            headers=headers), stream=True)
    if response.status_code >= 400:
        try:
            text = response.read().decode("utf-8", "replace")
        finally:
            response.close()
        raise WireError(f"Error code: {response.status_code} - {text.strip()[:2000]}",
                        response.status_code, response,
                        "auth" if "API_KEY_INVALID" in text else None)  # Google's bad key: a 400
    return response


def sse(response: httpx.Response) -> Iterator[tuple[str, str]]:
    """(event name, data) for each `data:` line of a server-sent event stream, line by line
    (some servers leave out the blank line between events); comments and keep-alives skipped."""
    event = ""
    for line in response.iter_lines():
        if not line:
            event = ""
        elif line.startswith("data:"):
            yield event, line[5:].strip()
        elif line.startswith("event:"):
            event = line[6:].strip()


def ndjson(response: httpx.Response) -> Iterator[Any]:
    """Each JSON value of a newline-delimited JSON stream (blank lines skipped)."""
    for line in response.iter_lines():
        if line.strip():
            yield json.loads(line)


def is_json(response: httpx.Response) -> bool:
    """Whether the server sent one JSON document (it ignored the request to stream)."""
    kind = response.headers.get("content-type", "")
    return "json" in kind and "event-stream" not in kind and "ndjson" not in kind


def chunk(text: str = "", calls: Iterable[dict] = (), finish: str | None = None,
          usage: tuple[int, int] | None = None) -> Any:
    """One litellm-shaped chunk: a text delta, tool-call pieces (dicts with index, id, name,
    arguments), a finish reason and usage (prompt, completion tokens)."""
    delta: dict[str, Any] = {"content": text or None}
    pieces = [{"index": c.get("index", 0), "id": c.get("id") or None, "type": "function",
               "function": {"name": c.get("name") or None, "arguments": c.get("arguments", "")}}
              for c in calls]
    if pieces:
        delta["tool_calls"] = pieces
    value: dict[str, Any] = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        value["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
    return record(value)


@functools.lru_cache(maxsize=4096)
def arguments_object(text: str) -> dict | None:
    """Tool-call arguments text as the JSON object it holds ({} for none), or None when it is
    not one (cut off, or another JSON value). Parsed once: the history is sent again every
    turn; the object returned is shared, so bodies built from it are never changed."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def record(value: Any) -> Any:
    """JSON objects as attribute records (what chunks.Accumulator reads)."""
    if isinstance(value, dict):
        return SimpleNamespace(**{str(k): record(v) for k, v in value.items()})
    if isinstance(value, list):
        return [record(v) for v in value]
    return value


class ChunkStream:
    """The chunks of one streamed reply, parsed by `parse`; `close()` releases the connection."""

    def __init__(self, response: httpx.Response,
                 parse: Callable[[httpx.Response], Iterator[Any]]) -> None:
        self.response, self.parse = response, parse

    def __iter__(self) -> Iterator[Any]:
        return self.parse(self.response)

    def close(self) -> None:
        self.response.close()
