"""A tool call's life on the event loop: the block runs in a worker thread, its output goes out
as progress notifications while it runs, a cancellation interrupts it (the runner keeps its
state), and an approval question goes to the person through elicitation."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread

from languages.escapes import strip_escapes

from interp.mcp.approval import NoAnswer, Question, Reply

T = TypeVar("T")
PROGRESS_EVERY = 0.25  # seconds between two progress notifications carrying output
KEEPALIVE = 10.0  # a notification at least this often while a block runs, output or not
CHUNK = 4000  # characters of output in one notification; the middle of more is left out
STOP_WAIT = 5.0  # seconds a cancelled call waits for its block to stop


class Progress:
    """Output the worker thread hands over, sent by the loop as progress notifications
    (`notifications/progress`; `message` carries the text), so a client whose requests time
    out (often after 60 to 120 s) sees a long block is alive."""

    def __init__(self, send: Callable[[float, float | None, str | None], Awaitable[None]]) -> None:
        self._send = send
        self._lock = threading.Lock()
        self._head: list[str] = []
        self._tail = ""
        self._size = 0
        self._left_out = 0
        self._count = 0
        self._began = time.monotonic()

    def feed(self, text: str) -> None:
        """Add output (any thread); beyond CHUNK characters only the last part is kept."""
        with self._lock:
            if self._size < CHUNK:
                self._head.append(text)
            else:
                self._tail = (self._tail + text)[-CHUNK // 2:]
                self._left_out += len(text)
            self._size += len(text)

    def _take(self) -> str:
        with self._lock:
            head = "".join(self._head)
            tail, left_out = self._tail, self._left_out - len(self._tail)
            self._head, self._tail, self._size, self._left_out = [], "", 0, 0
        if left_out > 0:
            head += f"\n[… {left_out:,} characters left out …]\n"
        return strip_escapes(head + tail)

    async def pump(self) -> None:
        """Send what has come, every PROGRESS_EVERY seconds (and every KEEPALIVE without it);
        runs until cancelled."""
        last = time.monotonic()
        while True:
            await anyio.sleep(PROGRESS_EVERY)
            text, now = self._take(), time.monotonic()
            if not text and now - last < KEEPALIVE:
                continue
            self._count += 1
            message = text or f"(still running after {now - self._began:.0f} s)"
            await self._send(float(self._count), None, message)
            last = now


async def in_worker(work: Callable[[], T], on_cancel: Callable[[], None]) -> T:
    """`work()` in a worker thread. If the call is cancelled meanwhile, `on_cancel()` (which
    interrupts the block) runs and the thread is given STOP_WAIT seconds to end before the
    cancellation goes on."""
    running = threading.Lock()  # held while the work runs (a lock is cheaper than an Event)
    running.acquire()

    def job() -> T:
        try:
            return work()
        finally:
            running.release()

    try:
        return await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        on_cancel()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(lambda: running.acquire(timeout=STOP_WAIT))
        raise


def eliciter(ask: Callable[[Question], Awaitable[Reply]], withdrawn: anyio.Event,
             wait: float) -> Callable[[Question], Reply]:
    """A function for the worker thread that puts a question through `ask` on the loop and
    waits for the answer: at most `wait` seconds, and no longer than until `withdrawn` is set
    (the call was cancelled or interrupted). NoAnswer says why there is none."""

    async def on_loop(asked: Question) -> Reply:
        with anyio.move_on_after(wait):
            async with anyio.create_task_group() as group:
                group.start_soon(_cancel_when, withdrawn, group.cancel_scope)
                reply = await ask(asked)
                group.cancel_scope.cancel()
                return reply
        if withdrawn.is_set():
            raise NoAnswer("the call was cancelled or interrupted before the user answered",
                           stop=True)
        raise NoAnswer(f"the user did not answer within {wait:g} s")

    def elicit(asked: Question) -> Reply:
        try:
            return anyio.from_thread.run(on_loop, asked)
        except NoAnswer:
            raise
        except Exception as exc:  # the client failed to ask, or the session is gone
            raise NoAnswer(f"the client could not ask the user ({_short(exc)})") from None

    return elicit


async def _cancel_when(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
