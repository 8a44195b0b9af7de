"""Ollama's native chat API (POST /api/chat), spoken directly over httpx.

A request is one JSON body: Ollama's own message shape (content a string, images a list of
base64 strings, tool-call arguments as objects, tool results named by `tool_name`), the tools
in OpenAI's function format, and the sampling settings under `options`. The reply streams as
newline-delimited JSON: message pieces, whole tool calls, then a `done` line with the stop
reason and the token counts. It is handed on as typed stream records (interp.models.stream).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interp.models.providers import BY_NAME
from interp.models.stream import ReasoningDelta, StreamRecord
from interp.models.wire.http import (WireError, WireRequest, arguments_object, event_records,
                                     is_json, ndjson)

if TYPE_CHECKING:
    import httpx

SHOW_TIMEOUT = 5.0  # seconds to wait for /api/show before deciding without it
OLLAMA = BY_NAME["ollama"]  # its key is optional: Ollama's cloud and authenticating proxies
DEFAULT_BASE = OLLAMA.base
# Ollama's own request fields outside `options`.
TOP_LEVEL = frozenset({"keep_alive", "format", "think"})
# The model options Ollama reads (api.Options); other parameters are dropped, as litellm does.
OPTIONS = frozenset({
    "num_keep", "seed", "num_predict", "top_k", "top_p", "min_p", "typical_p", "repeat_last_n",
    "temperature", "repeat_penalty", "presence_penalty", "frequency_penalty", "stop", "num_ctx",
    "num_batch", "num_gpu", "main_gpu", "use_mmap", "use_mlock", "num_thread", "mirostat",
    "mirostat_tau", "mirostat_eta", "tfs_z", "penalize_newline", "numa", "low_vram"})
_ROLES = {"developer": "system"}  # OpenAI's name for the system role


def base_url(api_base: str | None) -> str:
    """The server: --api-base, else OLLAMA_API_BASE (litellm's), else OLLAMA_HOST (Ollama's
    own), else localhost:11434; without a trailing `/api` or `/api/chat`."""
    base = (api_base or OLLAMA.env_base()
            or host_url(os.environ.get("OLLAMA_HOST", "")) or DEFAULT_BASE).strip().rstrip("/")
    for suffix in ("/api/chat", "/api"):
        if base.endswith(suffix):
            return base[:-len(suffix)]
    return base


def host_url(value: str) -> str | None:
    """OLLAMA_HOST as a URL, read the way Ollama reads it (`host`, `host:port`, `:port`,
    `scheme://host[:port][/path]`; no scheme: http on 11434); None when unset."""
    value = value.strip()
    if not value:
        return None
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest, port = "http", value, "11434"
    else:
        port = {"http": "80", "https": "443"}.get(scheme, "11434")
    hostport, _, path = rest.partition("/")
    if hostport.startswith("[") and "]" in hostport:  # [ipv6] or [ipv6]:port
        host, _, tail = hostport.partition("]")
        host, port = host + "]", tail[1:] if tail.startswith(":") and tail[1:] else port
    elif hostport.count(":") == 1:
        host, given = hostport.split(":")
        port = given or port
    else:
        host = f"[{hostport}]" if ":" in hostport else hostport
    return f"{scheme}://{host or '127.0.0.1'}:{port}" + (f"/{path}" if path else "")


def request(model: str, api_base: str | None, key: str | None, messages: list[dict],
            tools: list[dict] | None, max_tokens: int | None, params: dict[str, Any]) -> WireRequest:
    """The request for one chat reply; the key (--api-key, else OLLAMA_API_KEY) is optional."""
    key = key or OLLAMA.key()
    headers = {"Accept": "application/x-ndjson"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return WireRequest(base_url(api_base) + "/api/chat", headers,
                       body(model, messages, tools, max_tokens, params))


def capabilities(http: httpx.Client, model: str, api_base: str | None,
                 key: str | None) -> frozenset[str] | None:
    """What the server says the model can do (`tools`, `vision`, ...: Ollama's /api/show), or
    None when it cannot say (an older Ollama, a proxy, no server)."""
    import httpx

    key = key or OLLAMA.key()
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = http.post(base_url(api_base) + "/api/show", json={"model": model},
                             headers=headers, timeout=SHOW_TIMEOUT)
        listed = response.json().get("capabilities") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return frozenset(c for c in listed if isinstance(c, str)) if isinstance(listed, list) else None


def body(model: str, messages: list[dict], tools: list[dict] | None,
         max_tokens: int | None, params: dict[str, Any]) -> dict[str, Any]:
    """The request body: Ollama's messages, the tools, and the parameters as Ollama's options
    (max_tokens is num_predict) or its own top-level fields (keep_alive, format, think)."""
    request: dict[str, Any] = {"model": model, "messages": convert(messages), "stream": True}
    if tools:
        request["tools"] = tools
    options: dict[str, Any] = {"num_predict": max_tokens} if max_tokens else {}
    for name, value in params.items():
        if value is None:
            continue
        if name in ("max_tokens", "max_completion_tokens"):
            options["num_predict"] = value
        elif name == "stop":
            options["stop"] = [value] if isinstance(value, str) else list(value)
        elif name == "options" and isinstance(value, dict):
            options.update(value)
        elif name in OPTIONS:
            options[name] = value
        elif name in TOP_LEVEL:
            request[name] = value
        elif name == "response_format" and isinstance(value, dict):
            schema = (value.get("json_schema") or {}).get("schema")
            request["format"] = schema if value.get("type") == "json_schema" and schema else "json"
        elif name == "reasoning_effort":
            request["think"] = (value if model.startswith("gpt-oss")
                               else value in ("low", "medium", "high"))
    if options:
        request["options"] = options
    return request


def convert(messages: list[dict]) -> list[dict]:
    """OpenAI chat messages in Ollama's shape."""
    names: dict[str, str] = {}  # tool call id -> function name, for the results' tool_name
    out = []
    for message in messages:
        role = message.get("role") or "user"
        content = message.get("content")
        item: dict[str, Any] = {"role": _ROLES.get(role, role), "content": content}
        if content.__class__ is not str:
            item["content"], images = _content(content)
            if images:
                item["images"] = images
        if message.get("reasoning_content"):
            item["thinking"] = message["reasoning_content"]
        calls = message.get("tool_calls")
        if calls:
            item["tool_calls"] = [_call(call, names) for call in calls]
        if role == "tool":
            name = names.get(message.get("tool_call_id") or "") or message.get("name")
            if name:
                item["tool_name"] = name
        out.append(item)
    return out


def _content(content: Any) -> tuple[str, list[str]]:
    """A message's text and its images (the base64 data of `data:` URL image parts)."""
    if content is None or isinstance(content, str):
        return content or "", []
    texts, images = [], []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and part.get("text"):
            texts.append(part["text"])
        elif part.get("type") == "image_url":
            url = part.get("image_url")
            url = url.get("url", "") if isinstance(url, dict) else str(url or "")
            if url.startswith("data:") and "," in url:
                images.append(url.split(",", 1)[1])
    return "\n".join(texts), images


def _call(call: dict, names: dict[str, str]) -> dict:
    """An assistant's tool call as Ollama takes it: arguments as an object."""
    function = call.get("function") or {}
    name = function.get("name") or ""
    if call.get("id"):
        names[call["id"]] = name
    arguments = function.get("arguments")
    if isinstance(arguments, str):  # Ollama only takes an object: {} for anything else
        arguments = arguments_object(arguments)
    return {"function": {"name": name, "arguments": arguments if isinstance(arguments, dict)
                         else {}}}


def chunks(response: httpx.Response) -> Iterator[StreamRecord]:
    """The reply's records, from each NDJSON line that carries something, up to `done`."""
    lines = _whole(response.read()) if is_json(response) else ndjson(response)
    state = _Reply()
    for line in lines:
        yield from state.line(line) or ()
        if state.done:
            return
    raise WireError("the Ollama stream ended before its last (done) line", 502)


def _whole(data: bytes) -> list[Any]:
    """A reply read whole: one JSON document (stream false), or NDJSON labelled as JSON."""
    try:
        return [json.loads(data)]
    except ValueError:
        return [json.loads(line) for line in data.splitlines() if line.strip()]


class _Reply:
    """What one reply has sent so far: the calls (for ids, indexes and the finish)."""

    def __init__(self) -> None:
        self.calls, self.done = 0, False
        self.tag = uuid.uuid4().hex[:8]  # call ids stay distinct across the conversation

    def line(self, line: Any) -> list[StreamRecord] | None:
        """The records of one NDJSON object, or None when it carries nothing."""
        if not isinstance(line, dict):
            raise WireError(f"unexpected line from Ollama: {json.dumps(line)[:200]}", 502)
        if line.get("error"):
            raise WireError(json.dumps({"error": line["error"]}), 500)
        message = line.get("message") or {}
        calls = [self._call(call) for call in message.get("tool_calls") or ()]
        finish = usage = None
        if line.get("done"):
            self.done = True
            reason = line.get("done_reason") or "stop"
            finish = "tool_calls" if self.calls else ("length" if reason == "length" else "stop")
            usage = (line.get("prompt_eval_count") or 0, line.get("eval_count") or 0)
        text, thinking = message.get("content") or "", message.get("thinking") or ""
        if not (text or calls or thinking or finish):
            return None
        item = event_records(text, calls, finish, usage)
        if thinking:  # not shown, but progress: a thinking model is not stalled
            item.append(ReasoningDelta(thinking))
        return item

    def _call(self, call: dict) -> dict:
        """A whole tool call as one piece: an id and an index of its own, arguments as JSON."""
        function, index = call.get("function") or {}, self.calls
        self.calls += 1
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        return {"index": index, "id": call.get("id") or f"call_{self.tag}_{index}",
                "name": function.get("name") or "", "arguments": arguments}
