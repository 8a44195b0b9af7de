"""The shared part of the scripted provider servers in tests/ (Anthropic, Gemini, Ollama).

A `ScriptedServer` is a real HTTP server on 127.0.0.1 that replays scripted `Turn`s in its
provider's own wire format (a subclass writes the bytes) and records what it was sent. Faults
are part of a turn: an HTTP error, a request that is accepted and never answered, headers
followed by keep-alives only, a failure in the middle of the stream, a reply cut off by the
token limit. No delay ever lasts longer than HANG_CAP, and `stop()` releases every wait.
"""

from __future__ import annotations

import argparse
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
from urllib.parse import parse_qs, urlsplit

HANG_CAP = 60.0  # seconds; no hang, keep-alive or delay lasts longer
EMPTY_TEXT = "(scripted server: no scripted reply left)"


@dataclass
class Turn:
    """One scripted model reply, or a fault, in provider-neutral terms."""

    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)  # [{"name", "arguments": dict | str, "id"?}]
    finish: str | None = None  # the provider's own stop reason (default: its normal one)
    status: int = 200  # >= 400: an error answer in the provider's own shape
    error: str | None = None  # the error's message (default: the provider's usual one)
    error_type: str | None = None  # the provider's error type / status (e.g. "overloaded_error")
    retry_after: float | None = None  # Retry-After header on an error
    retry_delay: float | None = None  # Google RetryInfo.retryDelay on an error (Gemini)
    hang: float = 0.0  # accept the request and send nothing for this long
    keepalive: float = 0.0  # send the headers, then only keep-alives, one every this many seconds
    fail_after: int | None = None  # send this many stream events, then fail (see `midstream`)
    midstream: str = "error"  # "error": the provider's error event; "drop": close the connection;
    # "stall": only keep-alives from then on
    cut_at: int | None = None  # cut tool-call arguments after this many characters (token limit)
    fail_times: int = 1  # a faulty turn fails this many requests, then its text/calls are served
    chunk_size: int = 8  # characters per streamed piece of text or arguments
    chunk_delay: float = 0.0  # seconds between stream events
    usage: tuple[int, int] | None = None  # (prompt, completion) tokens; default: estimated

    @property
    def faulty(self) -> bool:
        """Whether this turn fails (an HTTP error, a hang, keep-alives or a mid-stream failure)."""
        return (self.status >= 400 or self.hang > 0 or self.keepalive > 0
                or self.fail_after is not None)

    @property
    def has_content(self) -> bool:
        return bool(self.text or self.tool_calls)


TurnLike = Turn | str | dict | Callable[[dict], Any]


def as_turn(item: Any) -> Turn:
    """A Turn from a Turn, a str (text), a dict of Turn fields or None."""
    if isinstance(item, Turn):
        return item
    if item is None:
        return Turn(text=EMPTY_TEXT)
    if isinstance(item, str):
        return Turn(text=item)
    if isinstance(item, dict):
        return Turn(**item)
    raise TypeError(f"cannot turn {type(item).__name__} into a Turn")


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


def pieces(text: str, size: int) -> list[str]:
    """`text` in pieces of `size` characters."""
    size = max(1, size)
    return [text[i:i + size] for i in range(0, len(text), size)]


def arguments_text(call: dict) -> str:
    """A scripted call's arguments as a JSON string."""
    args = call.get("arguments", {})
    return args if isinstance(args, str) else json.dumps(args)


def estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


class ScriptedServer:
    """Base of the provider servers: the script, the recorded requests, the socket."""

    name = "scripted"

    def __init__(self, turns: list[TurnLike] = (), *, port: int = 0,
                 default: TurnLike = EMPTY_TEXT, verbose: bool = False):
        self.default, self.verbose, self._bind_port = default, verbose, port
        self._queue: deque[list] = deque()  # [turn-like, faults already served]
        self._requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._abandoned = 0
        self._stopped = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self.script(turns)

    # -- life cycle ------------------------------------------------------------------------
    def start(self):
        """Bind 127.0.0.1 (port 0: any free port), serve in a daemon thread, return self."""
        self._httpd = _Server(("127.0.0.1", self._bind_port), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        daemon=True, name=f"{self.name}-server")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release every wait, stop serving and close the socket."""
        self._stopped.set()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def api_base(self) -> str:
        """The base URL to give litellm as api_base."""
        return f"http://127.0.0.1:{self.port}"

    # -- the script ------------------------------------------------------------------------
    def add(self, turn: TurnLike):
        """Queue one turn: a Turn, str, dict of Turn fields, or callable(body) -> one of those."""
        with self._lock:
            self._queue.append([turn if callable(turn) else as_turn(turn), 0])
        return self

    def script(self, turns: list[TurnLike]):
        for turn in turns:
            self.add(turn)
        return self

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[Recorded]:
        """What was received, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    @property
    def abandoned(self) -> int:
        """How many held requests (hangs, keep-alives, stalls) the client gave up by closing
        the connection."""
        with self._lock:
            return self._abandoned

    def wait_abandoned(self, count: int = 1, timeout: float = HANG_CAP) -> bool:
        """Wait until `count` held requests were abandoned by the client."""
        with self._changed:
            return self._changed.wait_for(lambda: self._abandoned >= count, timeout)

    def _record_abandoned(self) -> None:
        with self._changed:
            self._abandoned += 1
            self._changed.notify_all()

    def take(self, recorded: Recorded) -> tuple[Turn, bool]:
        """Record a request; return the turn that answers it and whether to fail."""
        with self._lock:
            self._requests.append(recorded)
            if not self._queue:
                item, served = self.default, False
            else:
                entry = self._queue[0]
                item = entry[0]
                if isinstance(item, Turn) and item.faulty and entry[1] < item.fail_times:
                    entry[1] += 1
                    if entry[1] >= item.fail_times and not item.has_content:
                        self._queue.popleft()
                    return item, True
                self._queue.popleft()
                served = isinstance(item, Turn) and item.faulty  # its faults are over
        turn = as_turn(item(recorded.body) if callable(item) else item)
        return turn, turn.faulty and not served

    # -- the protocol (subclasses) ---------------------------------------------------------
    def route(self, method: str, path: str) -> bool:
        """Whether this server answers `method path` with a scripted turn."""
        raise NotImplementedError

    def answer(self, h: "_Handler", turn: Turn, fail: bool, recorded: Recorded) -> None:
        """Write the answer to one request."""
        raise NotImplementedError

    def other(self, h: "_Handler", method: str, path: str, recorded: Recorded) -> bool:
        """Answer a request that is not a scripted call (e.g. a model list); False: 404."""
        return False


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.owner.verbose:
            sys.stderr.write(f"{self.server.owner.name}: {format % args}\n")

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        recorded = Recorded(parts.path, query, dict(self.headers), body)
        try:
            if not owner.route(method, parts.path):
                if not owner.other(self, method, parts.path, recorded):
                    self.json(404, {"error": f"unknown path {parts.path}"})
                return
            try:
                turn, fail = owner.take(recorded)
            except Exception as exc:  # a failing dynamic turn shows up in the test
                turn, fail = Turn(status=500, error=f"scripted turn raised {exc!r}"), True
            self._chunked = False
            owner.answer(self, turn, fail, recorded)
            self.end_stream()
        except (ConnectionError, OSError):
            self.close_connection = True

    # -- writing helpers for the protocols ---------------------------------------------------
    def json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def begin_stream(self, content_type: str) -> None:
        """Headers of a streamed answer (chunked, as real APIs send it, so that a dropped
        connection is an incomplete body and not a clean end)."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        self._chunked = True

    def send(self, data: bytes) -> None:
        """Write part of the answer (one chunk of a streamed one)."""
        if getattr(self, "_chunked", False):
            data = b"%x\r\n%s\r\n" % (len(data), data)
        self.wfile.write(data)
        self.wfile.flush()

    def end_stream(self) -> None:
        """The clean end of a streamed answer."""
        if getattr(self, "_chunked", False):
            self._chunked = False
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def hold(self, seconds: float) -> bool:
        """Send nothing for `seconds` (capped); False if the client left or the server stops.

        A client that closes the connection meanwhile is counted as having abandoned it."""
        owner = self.server.owner
        end = time.monotonic() + min(seconds, HANG_CAP)
        while not owner._stopped.is_set():
            left = end - time.monotonic()
            if left <= 0:
                return True
            if self._client_left(min(left, 0.05)):
                owner._record_abandoned()
                self.close_connection, self._chunked = True, False
                return False
        self.close_connection = True
        return False

    def keep_alive(self, every: float, beat: bytes) -> None:
        """Send `beat` every `every` seconds until the client leaves (or HANG_CAP)."""
        owner = self.server.owner
        end = time.monotonic() + HANG_CAP
        while time.monotonic() < end and not owner._stopped.is_set():
            try:
                self.send(beat)
            except OSError:
                owner._record_abandoned()
                self.close_connection, self._chunked = True, False
                return
            if not self.hold(every):
                return

    def pause(self, seconds: float) -> bool:
        """A short pause between stream events; False if the server stops."""
        if seconds > 0:
            self.server.owner._stopped.wait(min(seconds, HANG_CAP))
        return not self.server.owner._stopped.is_set()

    def drop(self) -> None:
        """Close the connection at once, mid-answer."""
        self.close_connection = True
        self._chunked = False
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _client_left(self, wait: float) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], wait)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


def serve_main(cls: type[ScriptedServer], argv: list[str] | None = None) -> int:
    """Command line of a scripted server: serve a JSON list of turns until Ctrl-C."""
    parser = argparse.ArgumentParser(description=f"Scripted {cls.name} server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: a list of strings or objects of Turn fields")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    turns = []
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            turns = json.load(fh)
    server = cls(turns, port=args.port, verbose=args.verbose).start()
    print(f"{cls.name} server: api_base={server.api_base} ({server.pending()} turns queued)",
          flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
