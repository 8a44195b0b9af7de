"""A block's output in the terminal, bounded: the first lines as they come, then a count,
then the last lines when the block ends (as Claude Code does), so that 200,000 printed lines
leave about seventy in the scrollback. What the model gets is decided elsewhere.

Lines are what a terminal would show of them: carriage-return progress updates collapse to
their last state, and a very long line is cut with a note of how much was left out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

HEAD_LINES = 50  # lines shown as they come
HEAD_CHARS = 8000  # ... or fewer, once they hold this many characters
TAIL_LINES = 20  # lines shown at the end, after the count
TAIL_CHARS = 4000
LINE_CHARS = 2000  # a longer line is cut


@dataclass(frozen=True)
class Collapsed:
    """What a collapsed block shows at its end: how many lines were left out, and its tail."""

    left_out: int
    tail: list[str]


class OutputView:
    """Feeds a block's (already sanitised) output to `write` within bounds; see the module doc.

    `write` gets whole lines only. The unfinished last line, or, once the output is being
    left out, the latest line, goes to `live` (a preview that is replaced, never kept)."""

    def __init__(self, write: Callable[[str], None], live: Callable[[str], None] | None = None,
                 *, head_lines: int = HEAD_LINES, head_chars: int = HEAD_CHARS,
                 tail_lines: int = TAIL_LINES, tail_chars: int = TAIL_CHARS,
                 line_chars: int = LINE_CHARS) -> None:
        self._write, self._live = write, live
        self._head_lines, self._head_chars = head_lines, head_chars
        self._tail_chars, self._line_chars = tail_chars, line_chars
        self._tail: deque[str] = deque(maxlen=max(1, tail_lines))
        self._shown_lines = self._shown_chars = 0
        self.hidden = 0  # lines not shown yet (the tail among them)
        self._line, self._extra, self._restart = "", 0, False

    @property
    def collapsed(self) -> bool:
        """True once lines are being left out."""
        return self.hidden > 0

    def feed(self, text: str) -> None:
        """Add output; complete lines within the bounds are written at once."""
        if not text:
            return
        pieces = text.split("\n")
        out: list[str] = []
        for piece in pieces[:-1]:
            self._grow(piece)
            self._emit(self._take(), out)
        self._grow(pieces[-1])
        if out:
            self._write("".join(out))
        if self._live is not None:
            latest = self._line if self._line or not self.collapsed else self._tail[-1]
            self._live(latest)

    def end_line(self) -> None:
        """Treat the unfinished line as complete (something else is shown after it)."""
        if self._line or self._extra:
            out: list[str] = []
            self._emit(self._take(), out)
            if out:
                self._write("".join(out))

    def finish(self) -> Collapsed | None:
        """The output has ended: write its unfinished line; what to show after, if collapsed."""
        self.end_line()
        if not self.collapsed:
            return None
        tail, size = [], 0
        for line in reversed(self._tail):
            if tail and size + len(line) > self._tail_chars:
                break
            tail.append(line)
            size += len(line) + 1
        tail.reverse()
        return Collapsed(self.hidden - len(tail), tail)

    def _grow(self, text: str) -> None:
        """Add text without newlines to the current line, as a terminal would show it."""
        for number, segment in enumerate(text.split("\r")):
            if number:
                self._restart = True
            if not segment:
                continue
            if self._restart:
                self._line, self._extra, self._restart = "", 0, False
            room = max(0, self._line_chars - len(self._line))
            self._line += segment[:room]
            self._extra += max(0, len(segment) - room)

    def _take(self) -> str:
        line = self._line + (f" … [{self._extra:,} more characters]" if self._extra else "")
        self._line, self._extra, self._restart = "", 0, False
        return line

    def _emit(self, line: str, out: list[str]) -> None:
        fits = (self._shown_lines < self._head_lines
                and self._shown_chars + len(line) <= self._head_chars)
        if fits and not self.collapsed:
            out.append(line + "\n")
            self._shown_lines += 1
            self._shown_chars += len(line) + 1
        else:
            self.hidden += 1
            self._tail.append(line)


def left_out_line(count: int, spool_path: str | None) -> str:
    """`… 199,950 lines left out (full output: PATH) …`."""
    lines = f"{count:,} line{'s' * (count != 1)}"
    where = f"full output: {spool_path}" if spool_path else "the model got all of them"
    return f"… {lines} left out ({where}) …"
