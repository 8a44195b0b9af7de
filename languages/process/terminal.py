"""The runners' terminal: the user's size (followed while blocks run) and a mode in which
reading the terminal gives end-of-file at once."""

from __future__ import annotations

import os
import termios
import time

DEFAULT_SIZE = (40, 160)  # rows, columns when interp itself is not on a terminal


def user_terminal_size() -> tuple[int, int] | None:
    """(rows, columns) of the terminal interp runs in (stderr, stdout or stdin), or None."""
    for fd in (2, 1, 0):
        try:
            size = os.get_terminal_size(fd)
        except (OSError, ValueError):
            continue
        if size.columns > 0 and size.lines > 0:
            return size.lines, size.columns
    return None


def reading_gives_eof(fd: int) -> None:
    """Put the terminal on fd into the runners' mode: no echo, no CR/LF translation on output,
    and non-canonical input with VMIN = VTIME = 0, so that a read returns at once with
    nothing (end-of-file) instead of waiting for a line nobody will type. ISIG stays on, so
    Ctrl-C written to the terminal still interrupts. On Linux fd may be the pty's master."""
    try:
        attrs = termios.tcgetattr(fd)
    except termios.error:
        return
    chars = attrs[6]
    if not (attrs[1] & termios.ONLCR or attrs[3] & (termios.ICANON | termios.ECHO)
            or chars[termios.VMIN] or chars[termios.VTIME]):
        return  # already so (the usual case: checked before every block)
    attrs[1] &= ~termios.ONLCR
    attrs[3] &= ~(termios.ICANON | termios.ECHO)
    chars[termios.VMIN] = chars[termios.VTIME] = 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except termios.error:
        pass


class SizeFollower:
    """Keeps a runner's terminal at the size `source` gives (polled; the kernel sends
    SIGWINCH to the terminal's processes on a change)."""

    def __init__(self, source) -> None:
        self.source = source
        self.size = self.wanted()
        self._asked = time.monotonic()

    def wanted(self) -> tuple[int, int]:
        """(rows, columns): the source's answer, else DEFAULT_SIZE."""
        try:
            size = self.source() if self.source is not None else None
        except OSError:
            size = None
        return size or DEFAULT_SIZE

    def follow(self, child, every: float = 0.0) -> None:
        """Resize `child`'s terminal if the wanted size changed; with `every`, ask the source
        at most once in that many seconds (a block printing fast loops here often)."""
        if self.source is None or child is None:
            return
        now = time.monotonic()
        if every and now - self._asked < every:
            return
        self._asked = now
        size = self.wanted()
        if size != self.size:
            self.size = size
            try:
                child.setwinsize(*size)
            except OSError:
                pass
