"""The HTTP layer interp's own protocol clients share: one JSON body POSTed, the streamed
reply read back as server-sent events or newline-delimited JSON.

OpenAI chat completions, Anthropic Messages, Gemini generateContent and Ollama's /api/chat are
each one JSON body POSTed and a streamed reply read back. Speaking them here costs a JSON
encode and a POST per call, flat with the conversation, and needs no `import litellm`
(seconds) before the first request. Each protocol module has `request(...)`, giving a
WireRequest, and `chunks(response)`, giving the reply as chunk records.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from interp.models.errors import WireError
from interp.models.stream import CallDelta, StreamRecord, records

__all__ = ["ChunkStream", "WireError", "WireRequest", "arguments_object", "event_records",
           "is_json", "ndjson", "post", "sse"]

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class WireRequest:
    """One request of a direct path: where it goes, its headers and its JSON body."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)


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


def event_records(text: str = "", calls: Iterable[dict] = (), finish: str | None = None,
          usage: tuple[int, int] | None = None) -> list[StreamRecord]:
    """The stream records of one event: a text delta, tool-call pieces (dicts with index, id,
    name, arguments), a finish reason and usage (prompt, completion tokens)."""
    return records(text, [CallDelta(c.get("index", 0), c.get("id") or "", c.get("name") or "",
                                    c.get("arguments") or "") for c in calls], finish, usage)


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


class ChunkStream:
    """The stream records of one reply, parsed by `parse`; `close()` releases the connection."""

    def __init__(self, response: httpx.Response,
                 parse: Callable[[httpx.Response], Iterator[Any]]) -> None:
        self.response, self.parse = response, parse

    def __iter__(self) -> Iterator[Any]:
        return self.parse(self.response)

    def close(self) -> None:
        self.response.close()
