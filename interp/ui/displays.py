"""What a block showed besides its output: figures (inline where the terminal can, and a link),
tables, and the text of other rich values; all sanitised, with secrets scrubbed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text

from interp.ui import images
from interp.ui.sanitize import safe_text
from interp.ui.tables import data_table, read_png

MAX_DISPLAY_TEXT = 20000  # characters of a display's text drawn when it has no table
MAX_DISPLAY_LINES = 200
IMAGE_WIDTH = 100  # cells an inline image may take at most


@dataclass
class DisplayPainter:
    """Draws block.display events on `console`; `scrub` replaces secrets."""

    console: Console
    scrub: Callable[[str], str]
    image_protocol: str

    def show(self, data: dict) -> None:
        """Draw one display; malformed data falls back to its text, never to an error."""
        try:
            shown = self._show_rich(data)
        except Exception:  # malformed display data must never break the session's output
            shown = False
        if not shown:
            self._show_text(data.get("text"))

    def _show_rich(self, data: dict) -> bool:
        """Draw an image or table display; False when only its text can be shown."""
        kind, path = data.get("kind"), data.get("path")
        if kind == "image" and isinstance(path, str) and path:
            self._show_image(path)
            return True
        table = (data_table(data.get("data"), self.scrub, width=self.console.width)
                 if kind == "table" else None)
        if table is None:
            return False
        self.console.print(table)
        return True

    def _show_text(self, text: object) -> None:
        if not isinstance(text, str) or not text:
            return
        text = self.scrub(safe_text(text[:MAX_DISPLAY_TEXT]))
        lines = text.splitlines()
        if len(lines) > MAX_DISPLAY_LINES:
            more = len(lines) - MAX_DISPLAY_LINES
            text = "\n".join([*lines[:MAX_DISPLAY_LINES], f"[… {more} more lines]"])
        self.console.print(Text(text))

    def _show_image(self, path: str) -> None:
        """A saved figure: inline where the terminal can show images, and its path (a link
        on a terminal, plain text elsewhere)."""
        label = self.scrub(safe_text(path)).replace("\n", " ")
        console = self.console
        if not console.is_terminal or console.is_dumb_terminal:
            console.print(Text(f"figure saved: {label}", style="dim"), soft_wrap=True)  # whole path
            return
        link = None
        if self.scrub(path) == path:  # never put a secret into a link target
            try:
                link = images.file_link(Path(path), label)
            except (ValueError, UnicodeError, OSError):
                link = None
        if self.image_protocol in ("kitty", "iterm2", "sixel"):
            self._show_inline(path)
        console.print(Text("figure saved: ", style="dim"), end="")
        console.file.write((link if link is not None else label) + "\n")
        console.file.flush()

    def _show_inline(self, path: str) -> None:
        png = read_png(path)
        if png is None:
            return
        width = max(1, min(self.console.width - 1, IMAGE_WIDTH))
        inline = images.inline_image(png, self.image_protocol, max_width_cells=width)
        if inline:
            self.console.file.write(inline + "\n")
            self.console.file.flush()
