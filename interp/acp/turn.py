"""One prompt's turn: `Session.run(task)` in a worker thread (the loop never waits on a model
or a block), its events handed to the event loop and sent to the editor in order
(updates.py), an approval question put to the editor and waited for within its bound, and a
cancel that stops the turn as Esc does: the running block is interrupted (its runner keeps
its state), a model call being waited for is given up, nothing more runs."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import CancelledError
from dataclasses import dataclass

from interp.acp.permission import Question, question
from interp.acp.updates import TurnUpdates
from interp.approval.decision import Decision, Proposal
from interp.approval.rules import Resolve
from interp.core import exits
from interp.core.session import Session
from interp.models.watch import interrupt_call

_END = object()  # the worker is done


@dataclass(frozen=True)
class Ended:
    """How a turn ended: the task's exit status and, for a model error, what it said."""

    code: int
    error: str | None = None


@dataclass(frozen=True)
class Failed:
    """The worker stopped on an exception of interp's own."""

    error: BaseException


class Turn:
    """A task's run for one prompt. `send` sends an update to the editor; `ask` puts a
    permission request and returns the editor's outcome; `resolve` reads language names."""

    def __init__(self, session: Session, cwd: str, send: Callable[[object], Awaitable[None]],
                 ask: Callable[[Question], Awaitable[object]], resolve: Resolve,
                 approval_wait: float, stop_wait: float) -> None:
        self.session, self.send, self.ask, self.resolve = session, send, ask, resolve
        self.approval_wait, self.stop_wait = approval_wait, stop_wait
        self.updates = TurnUpdates(cwd)
        self.cancelled = False
        self.thread: threading.Thread | None = None
        self._events: asyncio.Queue = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._asking: asyncio.Future | None = None
        self._stop_by: float | None = None  # after a cancel: when to stop waiting for it

    async def run(self, task: str) -> Ended:
        """Work on `task`; returns once every update of it was sent (or, after a cancel, once
        the worker stopped or `stop_wait` passed)."""
        self.thread = threading.Thread(target=self._work, args=(task,), daemon=True,
                                       name="interp-acp-turn")
        self.thread.start()
        while True:
            now = time.monotonic()
            waits = [w for w in (self.updates.due(now), self._stop_by and self._stop_by - now)
                     if w is not None]
            try:
                item = await (asyncio.wait_for(self._events.get(), max(0.0, min(waits)))
                              if waits else self._events.get())
            except TimeoutError:
                item = None
            if item is None and self._stop_by is not None and time.monotonic() >= self._stop_by:
                return Ended(exits.INTERRUPTED)  # it still stops, in its thread; said no more
            batch = [] if item is None else [item, *self._drain()]
            done = await self._send(batch)
            for _ in batch:
                self._events.task_done()
            if done is not None:
                # the worker hands its end last: once its thread is gone (bounded), the
                # session takes the editor's next prompt as soon as this one is answered
                await asyncio.to_thread(self.thread.join, self.stop_wait)
                return done

    def cancel(self) -> None:
        """Stop the turn (the editor's cancel, on the loop): as Esc in the terminal."""
        self.cancelled = True
        self._stop_by = time.monotonic() + self.stop_wait
        self.session.stop()
        if self._asking is not None:
            self._asking.cancel()
        self._loop.create_task(self._interrupting())

    def approve(self, proposal: Proposal) -> Decision:
        """The PolicyApprover's `ask` (in the worker): the editor's answer, within
        approval_wait seconds; a cancel, a failed request or no answer runs nothing."""
        if self.cancelled:
            return Decision(run=False, reason=None, stop=True)
        asked = question(proposal, self.resolve)
        future = asyncio.run_coroutine_threadsafe(self._put(asked), self._loop)
        try:
            return future.result(self.approval_wait + self.stop_wait)
        except TimeoutError:
            future.cancel()
            return _unanswered(f"the editor did not answer within {self.approval_wait:g} s")
        except (CancelledError, asyncio.CancelledError):  # the turn was cancelled meanwhile
            return Decision(run=False, reason=None, stop=True)
        except Exception as exc:  # the request failed: the editor cannot ask, or has gone
            return _unanswered(f"the editor could not ask ({_short(exc)})")

    async def _put(self, asked: Question) -> Decision:
        await self._events.join()  # the block's tool call reaches the editor before the question
        if self.cancelled:
            return Decision(run=False, reason=None, stop=True)
        self._asking = asyncio.ensure_future(asyncio.wait_for(self.ask(asked),
                                                              self.approval_wait))
        try:
            outcome = await self._asking
        finally:
            self._asking = None
        return asked.decision(outcome)

    def _work(self, task: str) -> None:
        try:
            for event in self.session.run(task):
                self._hand(event)
        except BaseException as exc:  # noqa: BLE001 - said by the loop, in one line
            self._hand(Failed(exc))
        finally:
            self._hand(_END)

    def _hand(self, item: object) -> None:
        try:
            self._loop.call_soon_threadsafe(self._events.put_nowait, item)
        except RuntimeError:  # the loop has closed: the agent is ending
            self.session.stop()

    def _drain(self) -> list:
        items = []
        while not self._events.empty():
            items.append(self._events.get_nowait())
        return items

    async def _send(self, batch: list) -> Ended | None:
        """Send the updates of a batch of events (and the output that is due); the turn's
        end once the worker is done."""
        now, end = time.monotonic(), None
        updates = []
        for item in batch:
            if item is _END:
                end = Ended(self.updates.exit_code if self.updates.exit_code is not None
                            else exits.INTERRUPTED)
            elif isinstance(item, Failed):
                raise item.error
            else:
                updates += self.updates.feed(item, now)
        updates += self.updates.flush(now, force=end is not None)
        for update in updates:
            await self.send(update)
        if end is not None and end.code == exits.MODEL_ERROR:
            return Ended(end.code, "\n".join(self.updates.errors) or "the model call failed")
        return end

    async def _interrupting(self) -> None:
        """Give up the model call the worker waits for, until it has stopped (a call may
        start just after the cancel)."""
        deadline = time.monotonic() + self.stop_wait
        while self.thread is not None and self.thread.is_alive() \
                and time.monotonic() < deadline:
            interrupt_call(self.thread)
            await asyncio.sleep(0.05)


def _unanswered(why: str) -> Decision:
    return Decision(run=False, reason=None, stop=True, notice_level="warning",
                    notice=f"Not run: {why}.")


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__
