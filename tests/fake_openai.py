#!/usr/bin/env python3
"""Scripted OpenAI-compatible chat-completions server for tests and manual runs (stdlib only)."""

from __future__ import annotations

import argparse
import itertools
import json
import select
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

EMPTY_TEXT = "(fake server: no scripted reply left)"
HANG_CAP = 60.0  # seconds; no delay or hang ever lasts longer than this
_ERRORS = {  # status -> (type, code, message), shaped like OpenAI's error bodies
    400: ("invalid_request_error", None, "Bad request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-***."),
    403: ("invalid_request_error", "unsupported_country_region_territory", "Forbidden."),
    404: ("invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 10ms."),
    500: ("server_error", None, "The server had an error while processing your request."),
    503: ("server_error", "service_unavailable", "The engine is currently overloaded, please try again later."),
}


@dataclass
class Reply:
    """One scripted reply: text and/or tool calls, or an HTTP error, with optional timing."""

    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)  # [{"name": ..., "arguments": dict | str, "id"?: ...}]
    status: int = 200  # >= 400: answer with an OpenAI-style error body
    error: str | None = None  # error message (default: a realistic one for the status)
    fail_times: int = 1  # with status >= 400: fail this many attempts, then serve text/tool_calls if any
    delay: float = 0.0  # seconds before the first byte
    chunk_delay: float = 0.0  # seconds between stream chunks
    hang: float = 0.0  # stall this long (capped at HANG_CAP; stop() releases it): mid-stream, or before a JSON reply
    chunk_size: int = 8  # characters per streamed content / arguments fragment
    finish_reason: str | None = None  # default "stop", or "tool_calls" when there are tool calls
    keepalive: float = 0.0  # send the role chunk, then only ": keep-alive" comments this often
    no_index: bool = False  # each tool call whole in one chunk without "index" (some proxies)
    drop_after: int | None = None  # close the connection after this many stream events


ReplyLike = Reply | str | dict | Callable[[dict], Any]


def as_reply(item: Any) -> Reply:
    """Coerce a str, dict of Reply fields, Reply or None into a Reply."""
    if isinstance(item, Reply):
        return item
    if item is None:
        return Reply(text=EMPTY_TEXT)
    if isinstance(item, str):
        return Reply(text=item)
    if isinstance(item, dict):
        return Reply(**item)
    raise TypeError(f"cannot turn {type(item).__name__} into a Reply")


def _split(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(prompt: str, completion: str) -> dict:
    prompt_tokens, completion_tokens = (max(1, (len(t) + 3) // 4) if t else 0 for t in (prompt, completion))
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


class FakeOpenAI:
    """An OpenAI chat-completions server on 127.0.0.1 that replays scripted replies."""

    def __init__(
        self, replies: list[ReplyLike] = (), *, port: int = 0, default: ReplyLike = EMPTY_TEXT, verbose: bool = False,
        usage_always: bool = False,
    ):
        self.default, self.verbose, self._bind_port = default, verbose, port
        self.usage_always = usage_always  # usage in the last chunk unasked (Mistral, Cerebras)
        self._queue: deque[list] = deque()  # entries: [reply-like, errors already served]
        self._requests: list[dict] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self.headers: dict[str, str] = {}  # of the last request
        self.path = ""  # of the last request, with its query
        self.abandoned = 0  # keep-alive streams the client gave up on
        self.script(replies)

    def start(self) -> FakeOpenAI:
        """Bind 127.0.0.1 (port 0 = any free port), serve in a daemon thread, return self."""
        self._httpd = _Server(("127.0.0.1", self._bind_port), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release any delay or hang in progress, stop serving and close the socket."""
        self._stopped.set()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port."""
        return self._httpd.server_address[1]

    @property
    def api_base(self) -> str:
        """Base URL to give litellm / OpenAI clients, e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict]:
        """A copy of the JSON bodies received on /v1/chat/completions, oldest first."""
        with self._lock:
            return list(self._requests)

    def add(self, reply: ReplyLike) -> FakeOpenAI:
        """Queue one reply: str, dict of Reply fields, Reply, or callable(request_body) -> any of those."""
        with self._lock:
            self._queue.append([reply if callable(reply) else as_reply(reply), 0])
        return self

    def script(self, replies: list[ReplyLike]) -> FakeOpenAI:
        """Queue several replies in order."""
        for reply in replies:
            self.add(reply)
        return self

    def pending(self) -> int:
        """Number of replies still queued."""
        with self._lock:
            return len(self._queue)

    def _take(self, body: dict, headers: dict[str, str]) -> tuple[Reply, bool]:
        """Record the request; return the next reply for it and whether it is an error."""
        with self._lock:
            self._requests.append(body)
            self.headers = headers
            if not self._queue:
                item, served = self.default, 0
            else:
                entry = self._queue[0]
                item, served = entry
                if isinstance(item, Reply) and item.status >= 400 and served < item.fail_times:
                    entry[1] += 1
                    if entry[1] >= item.fail_times and not (item.text or item.tool_calls):
                        self._queue.popleft()
                    return item, True
                self._queue.popleft()
        reply = as_reply(item(body) if callable(item) else item)
        return reply, reply.status >= 400 and not served

    def _sleep(self, seconds: float) -> bool:
        """Wait (capped, interruptible by stop()); False if the server is stopping."""
        if seconds > 0:
            self._stopped.wait(min(seconds, HANG_CAP))
        return not self._stopped.is_set()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeOpenAI

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.fake.verbose:
            sys.stderr.write(f"fake_openai: {format % args}\n")

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/") in ("/v1/models", "/models"):
            data = [{"id": "fake", "object": "model", "created": 1700000000, "owned_by": "fake-openai"}]
            return self._json(200, {"object": "list", "data": data})
        self._json(404, _error_body(404, f"Unknown path: {self.path}", code="unknown_url"))

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0].rstrip("/")
        azure = path.startswith("/openai/deployments/") and path.count("/") == 5  # Azure OpenAI
        if path not in ("/v1/chat/completions", "/chat/completions") and not (
                azure and path.endswith("/chat/completions")):
            return self._json(404, _error_body(404, f"Unknown path: {self.path}", code="unknown_url"))
        fake.path = self.path
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return self._json(400, _error_body(400, "Request body must be a JSON object."))
        try:
            reply, is_error = fake._take(body, dict(self.headers))
        except Exception as exc:  # a failing dynamic reply should show up in the test, not kill the thread
            reply, is_error = Reply(status=500, error=f"fake server: dynamic reply raised {exc!r}"), True
        try:
            self._answer(reply, is_error, body)
        except ConnectionError:
            self.close_connection = True

    def _answer(self, reply: Reply, is_error: bool, body: dict) -> None:
        fake = self.server.fake
        if not self._hold(reply.delay):
            self.close_connection = True
            return
        if is_error:
            extra = {"retry-after-ms": "10", "retry-after": "0"} if reply.status in (429, 503) else {}
            return self._json(reply.status, _error_body(reply.status, reply.error), extra)
        base = {"id": f"chatcmpl-fake{next(fake._ids):06d}", "created": int(time.time()),
                "model": body.get("model") or "fake", "system_fingerprint": "fp_fake"}
        calls = [_tool_call(c, f"call_fake{next(fake._ids):06d}") for c in reply.tool_calls]
        usage = _usage(json.dumps(body.get("messages") or []), reply.text + json.dumps(calls) * bool(calls))
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        if body.get("stream"):
            return self._stream(reply, base, calls, usage, finish, body)
        if not fake._sleep(reply.hang):
            self.close_connection = True
            return
        message = {"role": "assistant", "content": reply.text or (None if calls else ""), "refusal": None}
        message.update({"tool_calls": calls} if calls else {})
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
        self._json(200, dict(base, object="chat.completion", choices=[choice], usage=usage))

    def _stream(self, reply: Reply, base: dict, calls: list, usage: dict, finish: str, body: dict) -> None:
        include_usage = self.server.fake.usage_always or bool(
            (body.get("stream_options") or {}).get("include_usage"))
        events = list(_stream_events(reply, base, calls, usage, finish, include_usage))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")  # a dropped connection is not a clean end
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        fake = self.server.fake
        hang_at = min(2, len(events) - 1)  # after the role chunk and the first content/tool chunk
        for i, event in enumerate(events):
            if i == reply.drop_after:
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if (i and not fake._sleep(reply.chunk_delay)) or (
                i == hang_at and not fake._sleep(reply.hang)
            ):
                return
            self._chunk(b"data: " + json.dumps(event).encode() + b"\n\n")
            if i == 0 and reply.keepalive:
                return self._keep_alive(reply.keepalive)
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _hold(self, seconds: float) -> bool:
        """Send nothing for `seconds` (capped); False if the server stops or the client leaves
        (then counted in `abandoned`)."""
        fake, end = self.server.fake, time.monotonic() + min(seconds, HANG_CAP)
        while time.monotonic() < end:
            if not fake._sleep(min(0.05, end - time.monotonic())):
                return False
            readable, _, _ = select.select([self.connection], [], [], 0)
            if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                fake.abandoned += 1
                return False
        return True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _keep_alive(self, every: float) -> None:
        """Comments only, until the client leaves, the server stops or HANG_CAP passes."""
        fake, end = self.server.fake, time.monotonic() + HANG_CAP
        while time.monotonic() < end and fake._sleep(every):
            try:
                self._chunk(b": keep-alive\n\n")
            except OSError:
                fake.abandoned += 1
                return

    def _json(self, status: int, obj: dict, extra: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _error_body(status: int, message: str | None, code: str | None = None) -> dict:
    kind, default_code, default_message = _ERRORS.get(status, ("server_error", None, f"HTTP {status}"))
    error = {"message": message or default_message, "type": kind, "param": None, "code": code or default_code}
    return {"error": error}


def _tool_call(call: dict, fallback_id: str) -> dict:
    """Normalise {"name", "arguments"} (or OpenAI's nested form) into an OpenAI tool call."""
    fn = call.get("function", call)
    args = fn.get("arguments", {})
    args = args if isinstance(args, str) else json.dumps(args)
    function = {"name": fn["name"], "arguments": args}
    return {"id": call.get("id") or fallback_id, "type": "function", "function": function}


def _stream_events(reply: Reply, base: dict, calls: list, usage: dict, finish: str, include_usage: bool):
    """Yield chat.completion.chunk objects the way OpenAI streams them."""

    def chunk(delta: dict, finish_reason: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        event = dict(base, object="chat.completion.chunk", choices=[choice])
        return dict(event, usage=None) if include_usage else event

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in _split(reply.text, reply.chunk_size):
        yield chunk({"content": piece})
    for index, call in enumerate(calls):
        if reply.no_index:  # each call whole, in its own chunk, without an index
            yield chunk({"tool_calls": [call]})
            continue
        head = {"index": index, "id": call["id"], "type": "function"}
        yield chunk({"tool_calls": [dict(head, function={"name": call["function"]["name"], "arguments": ""})]})
        for piece in _split(call["function"]["arguments"], reply.chunk_size):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, finish)
    if include_usage:
        yield dict(base, object="chat.completion.chunk", choices=[], usage=usage)


def main(argv: list[str] | None = None) -> int:
    """CLI: serve scripted replies from a JSON file until Ctrl-C."""
    parser = argparse.ArgumentParser(description="Fake OpenAI chat-completions server replaying scripted replies.")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--script", help="JSON file: a list of strings or objects with Reply fields")
    parser.add_argument("--verbose", action="store_true", help="log each HTTP request to stderr")
    args = parser.parse_args(argv)
    replies = []
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            replies = json.load(fh)
        if not isinstance(replies, list):
            parser.error("--script must hold a JSON list")
    server = FakeOpenAI(replies, port=args.port, verbose=args.verbose).start()
    print(f"fake OpenAI server: api_base={server.api_base} ({server.pending()} replies queued)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
