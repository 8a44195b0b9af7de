"""The interp process itself: standard streams that never crash on text, and SIGTERM/SIGHUP
turned into an orderly exit (runners stopped, the conversation file closed)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from interp.core import exits

ENDING_SIGNALS = ("SIGTERM", "SIGHUP")


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (every `finally` runs), then die of that signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def harden_streams() -> None:
    """stdout and stderr escape what they cannot encode (a lone surrogate, a character the
    terminal's encoding lacks) instead of raising; stdin keeps bytes that are not UTF-8 as
    surrogates, which the session then replaces (interp/core/text.py)."""
    for stream, errors in ((sys.stdout, "backslashreplace"), (sys.stderr, "backslashreplace"),
                           (sys.stdin, "surrogateescape")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            reconfigure(errors=errors)
        except (ValueError, OSError):  # a closed or unusual stream: leave it as it is
            pass


@contextmanager
def ending_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Terminated (once: a second one during the
    clean-up is ignored); after the unwinding the process dies of the signal, as it would have
    without the handler, so its parent sees the usual status."""
    numbers = [getattr(signal, name) for name in ENDING_SIGNALS if hasattr(signal, name)]

    def handler(signum, frame) -> None:
        for number in numbers:
            signal.signal(number, signal.SIG_IGN)
        if signum == getattr(signal, "SIGHUP", None):
            _detach_terminal()  # it hung up: writing to it would fail the clean-up
        raise Terminated(signum)

    previous = {number: signal.signal(number, handler) for number in numbers}
    try:
        yield
    except BaseException as exc:
        signum = _signal_of(exc)
        if signum is None:
            raise
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        raise SystemExit(exits.killed_by(signum)) from None  # only if the signal did not end us
    finally:
        for number, action in previous.items():
            if signal.getsignal(number) is handler:
                signal.signal(number, action)


def _signal_of(exc: BaseException) -> int | None:
    """The signal a Terminated carries, also when a task group wrapped it (interp mcp)."""
    if isinstance(exc, Terminated):
        return exc.signum
    if isinstance(exc, BaseExceptionGroup):
        found, _ = exc.split(Terminated)
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        return found.signum if found is not None else None
    return None


def _detach_terminal() -> None:
    """Point standard input, output and error at /dev/null."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)


def unexpected(prog: str, exc: BaseException, debug: bool) -> int:
    """The last line of defence of a command: one line on stderr naming the error (its
    traceback before it with --debug); the exit status of an unexpected error."""
    if debug:
        import traceback

        traceback.print_exception(exc)
    sys.stderr.write(f"{prog}: unexpected error: {type(exc).__name__}: {exc}"
                     + ("" if debug else " (run with --debug for details)") + "\n")
    return exits.MODEL_ERROR
