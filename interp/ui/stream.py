"""A streaming reply in the terminal, as aider shows one: finished paragraphs are printed for
good as they come, and only the paragraph being written is previewed, in a few rows above the
status line. From the first code fence on, everything stays in the preview until the reply
is complete (its runnable blocks are then shown as markers, and each in its own panel).

The preview is replaced as text arrives and erased at the end, so a stop, an error, a
resize or keys typed meanwhile leave at most those few rows behind, never a second copy of
the reply.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable

from rich.console import Console
from rich.markdown import Markdown

from interp.ui.sanitize import safe_text
from interp.ui.status import StatusLine

REFRESH = 0.05  # seconds between preview redraws
LIVE_ROWS = 8  # rows of preview at most
_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.M)


class ReplyStream:
    """Collects a streaming reply; prints its finished paragraphs (when `permanent`) and
    previews the rest on `status` (when that draws)."""

    def __init__(self, console: Console, status: StatusLine, scrub: Callable[[str], str] = str,
                 print_: Callable[..., None] | None = None, *, permanent: bool = True) -> None:
        self.console = console
        self.status = status
        self.scrub = scrub
        self.print = print_ or console.print
        self.permanent = permanent
        self.text = ""
        self.printed = ""  # the clean text printed for good so far
        self._shown = 0.0

    def clean(self, text: str | None = None) -> str:
        """Text (the reply so far by default) as it may be shown: sanitised, secrets removed."""
        return self.scrub(safe_text(self.text if text is None else text))

    def feed(self, delta: str) -> None:
        """Add streamed text; the terminal is updated at most every REFRESH seconds."""
        self.text += delta
        if not self.status.enabled or time.monotonic() - self._shown < REFRESH:
            return
        clean = self.clean()
        if self.permanent:
            self._print_paragraphs(clean)
        self.status.preview(self._rows(clean[len(self.printed):]))
        self._shown = time.monotonic()

    def rest(self, text: str) -> str:
        """What of the reply `text` is not printed yet (all of it if it does not start with
        what was printed)."""
        clean = self.clean(text)
        return clean[len(self.printed):] if clean.startswith(self.printed) else clean

    def close(self) -> None:
        """Erase the preview and forget the reply."""
        if self.text:
            self.status.preview([])
        self.text, self.printed, self._shown = "", "", 0.0

    def _print_paragraphs(self, clean: str) -> None:
        """Print the paragraphs that are finished and come before any code fence."""
        fence = _FENCE.search(clean, len(self.printed))
        limit = fence.start() if fence else len(clean)
        end = clean.rfind("\n\n", len(self.printed), limit)
        if end <= len(self.printed):
            return
        chunk = clean[len(self.printed):end].strip("\n")
        if chunk.strip():
            if self.printed.strip():
                self.print()
            self.print(Markdown(chunk, hyperlinks=False))
        self.printed = clean[:end + 2]

    def _rows(self, text: str) -> list[str]:
        columns, lines = self.status.size()
        height = max(1, min(LIVE_ROWS, lines - 4))
        source = text.splitlines()
        keep = height * 3  # source lines enough for the last rows
        kept = source[-keep:]
        if len(_FENCE.findall("\n".join(source[:-keep]))) % 2:
            kept = ["```", *kept]  # the kept lines start inside a code block
        scratch = Console(file=io.StringIO(), width=columns - 1, force_terminal=True,
                          color_system=self.console.color_system, no_color=self.console.no_color,
                          highlight=False, emoji=False, legacy_windows=False)
        with scratch.capture() as capture:
            scratch.print(Markdown("\n".join(kept), hyperlinks=False))
        rows = capture.get().rstrip("\n").split("\n")
        return rows[-height:] if any(row.strip() for row in rows) else []
