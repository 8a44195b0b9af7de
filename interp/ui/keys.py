"""The keyboard of a terminal: watched while a task runs, read one key at a time for questions.

While a task runs the terminal is in no-echo cbreak mode and a thread reads every key, so
that nothing typed lands in the transcript: Esc calls back (the caller stops the turn), other
keys are dropped, Ctrl-C stays a signal. Questions pause the watch and read single keys in
raw mode. The terminal is restored on every way out, and typeahead is discarded.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

ESC_WAIT = 0.05  # seconds to wait after ESC for the rest of an escape sequence (arrow keys)
_LFLAG = 3
_CC = 6


def _attrs(fd: int) -> list | None:
    try:
        return termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):
        return None


def _apply(fd: int, attrs: list, when: int = termios.TCSANOW) -> None:
    try:
        termios.tcsetattr(fd, when, attrs)
    except (termios.error, OSError, ValueError):
        pass


def _mode(attrs: list, *, signals: bool) -> list:
    """`attrs` with echo and line editing off (and Ctrl-C a key when not `signals`)."""
    new = [list(a) if isinstance(a, list) else a for a in attrs]
    off = termios.ECHO | termios.ICANON | termios.IEXTEN | (0 if signals else termios.ISIG)
    new[_LFLAG] &= ~off
    new[_CC][termios.VMIN] = 1
    new[_CC][termios.VTIME] = 0
    return new


def scan(data: bytes) -> tuple[int, bytes]:
    """The number of Esc presses in `data` and an unfinished escape sequence left at its end.

    Escape sequences (arrow and function keys: ESC [ ... or ESC O x) and Alt+key pairs are
    not Esc presses; a lone ESC at the very end may be either, so it is left over."""
    count, i = 0, 0
    while i < len(data):
        if data[i] != 0x1B:
            i += 1
            continue
        if i + 1 == len(data):
            return count, data[i:]
        follower = data[i + 1]
        if follower == 0x1B:
            count, i = count + 1, i + 1
        elif follower == ord("["):
            j = i + 2
            while j < len(data) and not 0x40 <= data[j] <= 0x7E:
                j += 1
            if j >= len(data):
                return count, data[i:]
            i = j + 1
        elif follower == ord("O"):
            if i + 2 >= len(data):
                return count, data[i:]
            i += 3
        else:  # Alt+key
            i += 2
    return count, b""


_NAMES = {b"\x03": "ctrl-c", b"\x04": "ctrl-d", b"\r": "enter", b"\n": "enter",
          b"\x7f": "backspace", b"\x08": "backspace", b"\t": "tab"}


def key_name(data: bytes) -> str:
    """The first key in `data`: a character ("y"), or "esc", "enter", "ctrl-c", "ctrl-d",
    "backspace", "tab", or "other" (arrows, function keys, other controls)."""
    if not data:
        return "ctrl-d"
    if data == b"\x1b" or data.startswith(b"\x1b\x1b"):
        return "esc"
    if data[:1] == b"\x1b":
        return "other"
    if data[:1] in _NAMES:
        return _NAMES[data[:1]]
    text = data.decode("utf-8", "replace")
    return text[0] if text[0].isprintable() else "other"


class Keys:
    """One terminal's keyboard (a file descriptor that is a tty)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._saved: list | None = None  # the attributes to restore while watching
        self._thread: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None
        self._on_escape: Callable[[], None] | None = None

    @classmethod
    def for_stdin(cls) -> Keys | None:
        """Keys for standard input, or None when it is not a terminal."""
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):
            return None
        return cls(fd) if os.isatty(fd) else None

    @property
    def watching_now(self) -> bool:
        """True while a watch is on (paused or not)."""
        return self._saved is not None

    @contextmanager
    def watching(self, on_escape: Callable[[], None]) -> Iterator[None]:
        """No echo and no line editing while the body runs; keys are read and dropped, except
        Esc, which calls `on_escape` (from another thread). Nested calls only swap the callback."""
        if self._saved is not None:
            previous, self._on_escape = self._on_escape, on_escape
            try:
                yield
            finally:
                self._on_escape = previous
            return
        saved = _attrs(self.fd)
        if saved is None:
            yield
            return
        self._saved, self._on_escape = saved, on_escape
        previous = self._restore_on_sigterm(saved)
        try:
            self._start()
            yield
        finally:
            self._finish()
            _apply(self.fd, saved, termios.TCSAFLUSH)  # TCSAFLUSH drops what was typed ahead
            self._saved, self._on_escape = None, None
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def _restore_on_sigterm(self, saved: list):
        """Make SIGTERM restore the terminal before it ends the process; returns the handler
        to put back (None when another handler is in place or this is not the main thread)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        previous = signal.getsignal(signal.SIGTERM)
        if previous != signal.SIG_DFL:
            return None

        def handler(signum, frame) -> None:
            _apply(self.fd, saved)
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

        signal.signal(signal.SIGTERM, handler)
        return previous

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The terminal as it was before the watch (for a question or an editor), then the
        watch again. Outside a watch it does nothing."""
        if self._saved is None or self._thread is None:
            yield
            return
        self._finish()
        _apply(self.fd, self._saved)
        try:
            yield
        finally:
            if self._saved is not None:
                self._start()

    def discard(self) -> None:
        """Drop keys typed so far and not read yet."""
        try:
            termios.tcflush(self.fd, termios.TCIFLUSH)
        except (termios.error, OSError, ValueError):
            pass

    def read_key(self) -> str:
        """Wait for one key, typed after this call (typeahead is dropped), in raw mode: Ctrl-C
        is the key "ctrl-c", not a signal. See key_name for the names."""
        attrs = _attrs(self.fd)
        if attrs is None:
            return "ctrl-d"
        self.discard()
        _apply(self.fd, _mode(attrs, signals=False))
        try:
            data = os.read(self.fd, 64)
            if data == b"\x1b" and select.select([self.fd], [], [], ESC_WAIT)[0]:
                data += os.read(self.fd, 64)
        except OSError:
            data = b""
        finally:
            _apply(self.fd, attrs)
        return key_name(data)

    # -- the watch thread -------------------------------------------------------------
    def _start(self) -> None:
        _apply(self.fd, _mode(self._saved, signals=True))
        self._wake = os.pipe()
        self._thread = threading.Thread(target=self._watch, args=(self._wake[0],),
                                        name="interp-keys", daemon=True)
        self._thread.start()

    def _finish(self) -> None:
        thread, wake = self._thread, self._wake
        self._thread, self._wake = None, None
        if thread is None or wake is None:
            return
        os.write(wake[1], b"x")
        thread.join(timeout=5)
        for fd in wake:
            os.close(fd)

    def _watch(self, wake: int) -> None:
        left = b""
        while True:
            try:
                ready = select.select([self.fd, wake], [], [], ESC_WAIT if left else None)[0]
            except (OSError, ValueError):
                return
            if wake in ready:
                return
            if not ready:  # nothing followed: a lone ESC is the Esc key, a cut sequence is dropped
                if left == b"\x1b":
                    self._escape()
                left = b""
                continue
            try:
                data = os.read(self.fd, 1024)
            except OSError:
                return
            if not data:
                return
            count, left = scan(left + data)
            for _ in range(count):
                self._escape()

    def _escape(self) -> None:
        callback = self._on_escape
        if callback is not None:
            callback()
