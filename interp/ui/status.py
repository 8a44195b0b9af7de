"""A live status line at the bottom of the terminal: what interp waits on, for how long, and
how to stop it ("⠹ waiting for openai/local · 4 s · esc to interrupt").

`StatusLine` owns the bottom of the screen while it is active: the status row and, above it,
optional preview rows (the tail of a streaming reply, a block's unfinished line). A thread
keeps the spinner and the seconds fresh. Everything else written to the same terminal goes
through `hidden()`, which erases the live rows first and draws them again after, so nothing
is left behind. It draws nothing unless its stream, stdout and stderr are all terminals.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.cells import cell_len, set_cell_size

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"
ERASE_LINE = "\r\x1b[2K"
UP_AND_ERASE = "\x1b[1A\x1b[2K"
DIM, RESET = "\x1b[2m", "\x1b[0m"
PREVIEW_EVERY = 0.05  # seconds: preview rows are redrawn at most this often


def is_terminal(stream: TextIO) -> bool:
    """True when `stream`, stdout and stderr are all terminals (and TERM is not dumb)."""
    if os.environ.get("TERM") == "dumb":
        return False
    for item in (stream, sys.stdout, sys.stderr):
        try:
            if item is None or not item.isatty():
                return False
        except (AttributeError, ValueError, OSError):
            return False
    return True


def elapsed(seconds: float) -> str:
    """`7 s`, `2 min 05 s`."""
    whole = int(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


def fit(text: str, width: int) -> str:
    """`text` cut to at most `width` terminal cells (with … when cut)."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(0, width - 1)) + "…" if width > 0 else ""


class StatusLine:
    """The live rows at the bottom of a terminal; see the module docstring.

    `start(what)` shows it (the clock starts), `update(what)` changes the text and keeps the
    clock, `note(text)` adds a part such as "rate limited, retry 3 of 9 in 4 s",
    `preview(rows)` sets rows shown above it, `stop()` erases it, `close()` ends the thread."""

    def __init__(self, stream: TextIO, *, enabled: bool | None = None,
                 interval: float = 0.1) -> None:
        self.stream = stream
        self.enabled = is_terminal(stream) if enabled is None else enabled
        self.interval = interval
        self._lock = threading.RLock()
        self._what: str | None = None
        self._hint = ""
        self._note = ""
        self._since = 0.0
        self._rows: list[str] = []  # preview rows
        self._drawn = 0  # rows on screen now, the status row included
        self._drawn_at = 0.0  # when all rows were last drawn
        self._stale = False  # the preview changed and is not drawn yet
        self._held = 0
        self._frame = 0
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        self._spinner = SPINNER if encoding == "utf8" else ASCII_SPINNER
        self._style = ("", "") if os.environ.get("NO_COLOR") else (DIM, RESET)

    @classmethod
    def for_console(cls, console) -> "StatusLine":
        """The status line of a rich Console's stream, drawn only where it is a terminal."""
        return cls(console.file, enabled=None if console.is_terminal else False)

    # -- what it shows ------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """True between start() and stop()."""
        return self._what is not None

    def start(self, what: str, hint: str = "esc to interrupt") -> None:
        """Show `what` with a fresh clock (replacing whatever was shown)."""
        with self._lock:
            self._what, self._hint, self._note, self._since = what, hint, "", time.monotonic()
            self._redraw()
        self._ensure_thread()

    def update(self, what: str) -> None:
        """Change the text; the clock goes on."""
        with self._lock:
            if self._what is not None:
                self._what = what
                self._redraw()

    def note(self, text: str | None) -> None:
        """An extra part after the seconds (None or "" removes it)."""
        with self._lock:
            if (text or "") != self._note:
                self._note = text or ""
                self._soon()

    def preview(self, rows: list[str]) -> None:
        """Rows shown above the status row while it is active; each must fit `width() - 1`
        cells (SGR styling is allowed, nothing else). Redrawn at most every PREVIEW_EVERY
        seconds (the thread draws the latest rows in time); no rows are removed at once."""
        with self._lock:
            self._rows = list(rows)
            if rows:
                self._soon()
            else:
                self._redraw()

    def _soon(self) -> None:
        """Redraw now, or at the next tick if the last draw was very recent (under the lock)."""
        if time.monotonic() - self._drawn_at < PREVIEW_EVERY:
            self._stale = True
        else:
            self._redraw()

    def stop(self) -> None:
        """Erase the live rows; nothing is shown until the next start()."""
        with self._lock:
            self._erase()
            self._what, self._note, self._rows = None, "", []

    def close(self) -> None:
        """Stop, and end the refreshing thread."""
        self.stop()
        self._closed.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)

    @contextmanager
    def hidden(self) -> Iterator[None]:
        """Write other output inside this: the live rows are erased first (the cursor is then
        at the start of a line) and drawn again below it after."""
        with self._lock:
            self._erase()
            self._held += 1
            try:
                yield
            finally:
                self._held -= 1
                self._redraw()

    # -- the terminal ------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal, at least (20, 5)."""
        try:
            columns, lines = os.get_terminal_size(self.stream.fileno())
        except (AttributeError, ValueError, OSError):
            columns, lines = 80, 24
        env = os.environ.get("COLUMNS", "")
        if env.isdigit() and int(env) > 0:
            columns = min(columns, int(env))
        return max(20, columns), max(5, lines)

    def text(self) -> str:
        """The status row's text, unstyled and uncut."""
        spin = self._spinner[self._frame % len(self._spinner)]
        parts = [f"{spin} {self._what}", elapsed(time.monotonic() - self._since)]
        parts += [p for p in (self._note, self._hint) if p]
        return " · ".join(parts)

    def _visible(self) -> bool:
        return (self.enabled and self._what is not None and not self._held
                and not self._closed.is_set())

    def _status_row(self) -> str:
        before, after = self._style
        return before + fit(self.text(), self.size()[0] - 1) + after

    def _redraw(self) -> None:
        """Erase and draw every live row (under the lock)."""
        if not self._visible():
            self._erase()
            return
        rows = self._rows[-max(0, self.size()[1] - 2):] + [self._status_row()]
        out = self._erase_text() + "\n".join(rows)
        self._drawn, self._drawn_at, self._stale = len(rows), time.monotonic(), False
        self._write(out)

    def _tick(self) -> None:
        """Redraw the status row only (the spinner and the seconds)."""
        with self._lock:
            if self._visible() and self._drawn:
                self._frame += 1
                if self._stale:
                    self._redraw()
                else:
                    self._write(ERASE_LINE + self._status_row())

    def _erase_text(self) -> str:
        if not self._drawn:
            return ""
        return ERASE_LINE + UP_AND_ERASE * (self._drawn - 1)

    def _erase(self) -> None:
        if self._drawn:
            text = self._erase_text()
            self._drawn = 0
            self._write(text)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal: nothing more to draw
            self.enabled = False

    def _ensure_thread(self) -> None:
        if not self.enabled or self._thread is not None or self._closed.is_set():
            return
        self._thread = threading.Thread(target=self._run, name="interp-status", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._closed.wait(self.interval):
            self._tick()
