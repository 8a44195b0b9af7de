"""Running one task from a terminal: Ctrl-C and Esc stop the turn, in every approval mode.

A stop interrupts the running block (the runner keeps its state), runs no later block of the
reply and calls the model no more (`Session.stop`). While the model is awaited or streams,
the wait is broken at once by raising KeyboardInterrupt in the main thread (the partial reply
is kept); never while an event is being drawn, so the screen is never left half-drawn.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext

from interp.core import events as ev
from interp.core import exits
from interp.core.session import Session
from interp.ui.keys import Keys

_MODEL_PHASE_ENDS = (ev.Message, ev.Notice, ev.BlockProposed, ev.TaskFinished)


class TurnControl:
    """Tracks what a task is doing (from its events) and turns Ctrl-C and Esc into a stop."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.waiting_for_model = False
        self.in_session = False  # the session's code is running (not the UI's)
        self.interrupted = False  # Ctrl-C or Esc was pressed during the task
        self._main = threading.main_thread().ident

    def observe(self, item: ev.Event) -> None:
        """Note the phase an event starts or ends."""
        if isinstance(item, ev.ModelRequest):
            self.waiting_for_model = True
        elif isinstance(item, _MODEL_PHASE_ENDS):
            self.waiting_for_model = False

    def on_sigint(self, signum=None, frame=None) -> None:
        """The SIGINT handler while a task runs (main thread)."""
        self.interrupted = True
        self.session.stop()
        if self.waiting_for_model and self.in_session:
            raise KeyboardInterrupt

    def escape(self) -> None:
        """Esc (called from the key thread): the same as Ctrl-C."""
        if _handler_is(self.on_sigint):
            signal.pthread_kill(self._main, signal.SIGINT)
        else:
            self.interrupted = True
            self.session.stop()


def _handler_is(handler) -> bool:
    try:
        return signal.getsignal(signal.SIGINT) == handler
    except (ValueError, TypeError):
        return False


def interrupt_main() -> None:
    """Deliver SIGINT to the main thread (Esc outside a task: as Ctrl-C)."""
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


@contextmanager
def _sigint(handler: Callable) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def drive(session: Session, task: str, on_event: Callable[[ev.Event], None],
          keys: Keys | None = None) -> int:
    """Feed the task's events to `on_event`; returns the task's exit code (130 after any
    Ctrl-C or Esc). With `keys`, the keyboard is watched meanwhile (no echo; Esc stops)."""
    control = TurnControl(session)
    events = session.run(task)
    code, pending = exits.INTERRUPTED, None
    watch = keys.watching(control.escape) if keys is not None else nullcontext()
    try:
        with _sigint(control.on_sigint), watch:
            while True:
                try:
                    control.in_session = True
                    item = events.throw(pending) if pending else next(events)
                    pending = None
                except StopIteration:
                    break
                except KeyboardInterrupt:
                    return exits.INTERRUPTED
                finally:
                    control.in_session = False
                control.observe(item)
                if isinstance(item, ev.TaskFinished):
                    code = item.exit_code
                try:
                    on_event(item)
                except KeyboardInterrupt:
                    pending = KeyboardInterrupt()
    finally:
        events.close()
    return exits.INTERRUPTED if control.interrupted else code
