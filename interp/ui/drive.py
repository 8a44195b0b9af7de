"""Running one task from a terminal: Ctrl-C interrupts a running block, else stops the turn."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

from interp.core import events as ev
from interp.core import exits
from interp.core.session import Session


def drive(session: Session, task: str, on_event: Callable[[ev.Event], None]) -> int:
    """Feed the task's events to `on_event`; returns the task's exit code."""
    events = session.run(task)
    restore = _install_sigint(session)
    code, pending = exits.INTERRUPTED, None
    try:
        while True:
            try:
                item = events.throw(pending) if pending else next(events)
                pending = None
            except StopIteration:
                break
            except KeyboardInterrupt:
                return exits.INTERRUPTED
            if item.type == "task.finished":
                code = item.data["exit_code"]
            try:
                on_event(item)
            except KeyboardInterrupt:
                pending = KeyboardInterrupt()
    finally:
        restore()
        events.close()
    return code


def _install_sigint(session: Session) -> Callable[[], None]:
    """While a block runs, Ctrl-C goes to the block instead of raising KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame) -> None:
        if session.running:
            session.interrupt()
        else:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    return lambda: signal.signal(signal.SIGINT, previous)
