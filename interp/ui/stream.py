"""A streaming reply shown live: its last lines, as markdown, above the status line. The
preview is replaced as text arrives and erased at the end (the reply is then printed once),
so a stop, an error or keys typed meanwhile leave nothing half-drawn behind."""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from rich.console import Console
from rich.markdown import Markdown

from interp.ui.sanitize import safe_text
from interp.ui.status import StatusLine

REFRESH = 0.05  # seconds between preview redraws


class ReplyStream:
    """Collects a streaming reply and previews its tail on `status` (when that draws)."""

    def __init__(self, console: Console, status: StatusLine,
                 scrub: Callable[[str], str] = str) -> None:
        self.console = console
        self.status = status
        self.scrub = scrub
        self.text = ""
        self._shown = 0.0

    def feed(self, delta: str) -> None:
        """Add streamed text; the preview is redrawn at most every REFRESH seconds."""
        self.text += delta
        if not self.status.enabled or time.monotonic() - self._shown < REFRESH:
            return
        self.status.preview(self._rows())
        self._shown = time.monotonic()

    def close(self) -> str:
        """Erase the preview; returns the whole text (and forgets it)."""
        if self.text:
            self.status.preview([])
        text, self.text, self._shown = self.text, "", 0.0
        return text

    def _rows(self) -> list[str]:
        columns, lines = self.status.size()
        height = max(3, lines - 4)
        source = self.scrub(safe_text(self.text)).splitlines()
        kept = source[-height:]
        if sum(line.lstrip().startswith(("```", "~~~")) for line in source[:-height]) % 2:
            kept = ["```", *kept]  # the tail starts inside a code block
        scratch = Console(file=io.StringIO(), width=columns - 1, force_terminal=True,
                          color_system=self.console.color_system, no_color=self.console.no_color,
                          highlight=False, emoji=False, legacy_windows=False)
        with scratch.capture() as capture:
            scratch.print(Markdown("\n".join(kept), hyperlinks=False))
        return capture.get().rstrip("\n").split("\n")[-height:]
