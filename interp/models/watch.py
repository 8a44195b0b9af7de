"""Bounding a model call: a deadline to the first token and between tokens, enforced by interp.

The call runs in a worker thread that pumps its chunks into a queue; the caller waits on the
queue with the deadline in force. Chunks that carry nothing (keep-alives, pings, a lone role)
do not count as progress. When a deadline passes, or the caller stops listening (Ctrl-C, an
error), the connection is shut down under the worker, so that the request is really abandoned
and not left running on the server.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

WIRE_ATTRIBUTE = "interp_wire"  # the worker thread's Wire, found by the HTTP client's hook
CALL_ATTRIBUTE = "interp_model_call"  # on a thread waiting for a call: that call's _Pump


@dataclass(frozen=True)
class Deadlines:
    """How long a model call may take: to its first token, and between two tokens."""

    first_token: float = 600.0  # prompt reading on a CPU can take minutes
    idle: float = 120.0


class DeadlineExceeded(TimeoutError):
    """No first token (``which == "first_token"``) or no next one (``"idle"``) in time."""

    def __init__(self, which: str, seconds: float):
        super().__init__(f"no {'reply' if which == 'first_token' else 'progress'} "
                         f"within {seconds:g} s")
        self.which, self.seconds = which, seconds


class Wire:
    """The connections of one model call, so that giving up on it can close them."""

    def __init__(self) -> None:
        self._sockets: list[socket.socket] = []
        self._responses: list[Any] = []  # the call's httpx responses, closed when it ends
        self._lock = threading.Lock()
        self.abandoned = False

    def keep(self, response: Any) -> None:
        """Remember an HTTP response of the call, for release()."""
        with self._lock:
            self._responses.append(response)

    def release(self) -> None:
        """Close the call's responses: a stream its reader left unfinished (litellm stops at
        Anthropic's message_stop) would otherwise hold its pooled connection forever."""
        with self._lock:
            responses, self._responses = self._responses, []
        for response in responses:
            with contextlib.suppress(Exception):
                response.close()

    def track(self, response: Any) -> None:
        """Remember the socket under an httpx response, if it can be found."""
        self.track_socket(socket_of(response))

    def track_socket(self, sock: Any) -> None:
        """Remember a connection's socket (shut at once if the call was already abandoned)."""
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            if any(known is sock for known in self._sockets):
                return
            self._sockets.append(sock)
            late = self.abandoned
        if late:
            _shut(sock)

    def abandon(self) -> None:
        """Shut every tracked connection down: a blocked read returns, the server sees EOF."""
        with self._lock:
            self.abandoned = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _shut(sock)


def socket_of(response: Any) -> socket.socket | None:
    """The socket under an httpx response (or an object holding one), if it can be found."""
    for candidate in (response, getattr(response, "response", None),
                      getattr(response, "completion_stream", None),
                      getattr(getattr(response, "completion_stream", None), "response", None)):
        extensions = getattr(candidate, "extensions", None)
        if not isinstance(extensions, dict):
            continue
        stream = extensions.get("network_stream")
        with contextlib.suppress(Exception):  # a transport without sockets
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                return sock
    return None


def on_response(response: Any) -> None:
    """httpx response hook: the calling worker's Wire tracks the connection."""
    wire = getattr(threading.current_thread(), WIRE_ATTRIBUTE, None)
    if wire is not None:
        wire.track(response)
        wire.keep(response)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, also under TLS


class _Pump(threading.Thread):
    """Runs the call and feeds its chunks to a queue."""

    def __init__(self, start: Callable[[Wire], Iterable[Any]], close: Callable[[Any], None]):
        super().__init__(name="interp-model-call", daemon=True)
        self.start_call, self.close_call = start, close
        self.items: queue.SimpleQueue = queue.SimpleQueue()
        self.cancelled = False
        setattr(self, WIRE_ATTRIBUTE, Wire())

    @property
    def wire(self) -> Wire:
        return getattr(self, WIRE_ATTRIBUTE)

    def run(self) -> None:
        response = None
        try:
            response = self.start_call(self.wire)
            self.wire.track(response)
            for item in response:
                if self.cancelled:
                    return
                self.items.put(("item", item))
            self.items.put(("end", None))
        except BaseException as exc:  # handed to the caller, who decides
            self.items.put(("error", exc))
        finally:
            if response is not None:
                self.close_call(response)
            self.wire.release()

    def cancel(self) -> None:
        self.cancelled = True
        self.wire.abandon()


def interrupt_call(thread: threading.Thread) -> bool:
    """Make the model call `thread` is waiting for (if any) raise KeyboardInterrupt in that
    thread at once, as Ctrl-C would in the main thread; its connections are then shut down.
    Safe from any thread; returns whether a call was waiting."""
    pump = getattr(thread, CALL_ATTRIBUTE, None)
    if pump is None:
        return False
    pump.items.put(("interrupt", None))
    return True


def watched(start: Callable[[Wire], Iterable[Any]], deadlines: Deadlines,
            is_progress: Callable[[Any], bool],
            close: Callable[[Any], None] = lambda response: None) -> Iterator[Any]:
    """Yield the items of ``start(wire)``, iterated in a worker thread, within the deadlines.

    Raises DeadlineExceeded when the first item that is progress, or the next one, is late,
    and re-raises what the call raised. Whenever this generator ends before the call did (a
    deadline, Ctrl-C, interrupt_call(), close()), the call's connections are shut down."""
    pump = _Pump(start, close)
    finished = False
    waiter = threading.current_thread()
    setattr(waiter, CALL_ATTRIBUTE, pump)
    pump.start()
    which, limit = "first_token", deadlines.first_token
    deadline = time.monotonic() + limit
    try:
        while True:
            try:
                kind, value = pump.items.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise DeadlineExceeded(which, limit) from None
            if kind == "end":
                finished = True
                return
            if kind == "error":
                finished = True
                raise value
            if kind == "interrupt":
                raise KeyboardInterrupt
            if is_progress(value):
                which, limit = "idle", deadlines.idle
                deadline = time.monotonic() + limit
            yield value
    finally:
        if getattr(waiter, CALL_ATTRIBUTE, None) is pump:
            setattr(waiter, CALL_ATTRIBUTE, None)
        if not finished:
            pump.cancel()
