"""Showing session events in a terminal with rich."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from interp.core import events as ev
from interp.ui import images
from interp.core.steps import DISPLAY_ONLY
from interp.core.fences import CodeBlock, split_text
from interp.ui.tables import data_table, files_line, read_png
from interp.secrets import Redactor
from interp.ui.sanitize import OutputFilter, safe_text, visible_spans

_LEXERS = {"shell": "bash", "javascript": "javascript", "python": "python"}
HIDDEN_NOTE = "hidden characters shown as \\e, \\u…, ␠"
MAX_DISPLAY_TEXT = 20000  # characters of a display's text drawn when it has no table
MAX_DISPLAY_LINES = 200
MAX_FILES_TEXT = 2000  # characters of a block.files line
IMAGE_WIDTH = 100  # cells an inline image may take at most


def markdown(text: str) -> Markdown:
    """Sanitised markdown; links show their target instead of hiding it in a hyperlink."""
    return Markdown(safe_text(text), hyperlinks=False)


class MarkdownStream:
    """Live view of a streaming reply: the tail while it streams, nothing left behind."""

    def __init__(self, console: Console, scrub: Callable[[str], str] = str) -> None:
        self.console = console
        self.scrub = scrub
        self.text = ""
        self._live: Live | None = None
        self._shown = 0.0

    def feed(self, delta: str) -> None:
        """Add streamed text and refresh the view at most ten times a second."""
        self.text += delta
        if not self.console.is_terminal or time.monotonic() - self._shown < 0.1:
            return
        if self._live is None:
            self._live = Live(console=self.console, auto_refresh=False, transient=True)
            self._live.start()
        height = max(3, self.console.size.height - 2)
        lines = self.scrub(safe_text(self.text)).splitlines()[-height:]
        self._live.update(markdown("\n".join(lines)), refresh=True)
        self._shown = time.monotonic()

    def close(self) -> str:
        """Remove the live view; returns the whole text."""
        if self._live is not None:
            self._live.stop()
            self._live = None
        text, self.text = self.text, ""
        return text


class Renderer:
    """Turns events into terminal output; nothing untrusted reaches it unsanitised, and the
    given secrets are replaced by [REDACTED] everywhere.

    The only escape sequences written that rich does not make are interp's own: inline images
    (`image_protocol`, detected from the environment by default, see interp.images) and OSC 8
    links to saved figures, both only on a terminal; paths in them are percent-encoded or
    sanitised first."""

    def __init__(self, console: Console, *, show_final: bool = True,
                 secrets: Iterable[str] = (), image_protocol: str | None = None) -> None:
        self.console = console
        self.show_final = show_final
        self.image_protocol = (images.detect(os.environ) if image_protocol is None
                               else image_protocol)
        self._redactor = Redactor(secrets)
        self._stream = MarkdownStream(console, self.scrub)
        self._output: OutputFilter | None = None
        self._at_line_start = True

    def scrub(self, text: str) -> str:
        """Text with every secret replaced."""
        return self._redactor.walk(text)

    def handle(self, event: ev.Event) -> None:
        """Show one event."""
        handler = getattr(self, "_on_" + event.type.replace(".", "_"), None)
        if handler is not None:
            handler(event.data)

    def stop(self) -> None:
        """Close any live view (after an interruption)."""
        self._stream.close()
        self._output = None

    def _on_message_delta(self, data: dict) -> None:
        self._stream.feed(data["text"])

    def _on_message(self, data: dict) -> None:
        self._stream.close()
        if data.get("final") and not self.show_final:
            return
        self.console.print(reply_markdown(self.scrub(safe_text(data.get("text") or "")),
                                          data.get("blocks")))

    def _on_block_proposed(self, data: dict) -> None:
        self.console.print(code_panel(data["language"], self.scrub(data["code"]),
                                      f"block {data['index']}"))

    def _on_block_approved(self, data: dict) -> None:
        if data.get("edited"):
            self.console.print(code_panel(data["language"], self.scrub(data["code"]),
                                          "edited code"))
        self._at_line_start = True
        self._output = OutputFilter(self._redactor.secrets)

    def _on_block_declined(self, data: dict) -> None:
        reason = f": {data['reason']}" if data.get("reason") else ""
        what, style = ("denied by policy", "red") if data.get("policy") else ("declined", "yellow")
        self.console.print(Text(self.scrub(safe_text(f"{what}{reason}")), style=style))

    def _on_block_output(self, data: dict) -> None:
        if self._output is None:
            self._output = OutputFilter(self._redactor.secrets)
        self._write_output(self._output.feed(data["text"]))

    def _write_output(self, text: str) -> None:
        self.console.file.write(text)
        self.console.file.flush()
        if text:
            self._at_line_start = text.endswith("\n")

    def _on_block_finished(self, data: dict) -> None:
        if self._output is not None:
            self._write_output(self._output.flush())
            self._output = None
        if not self._at_line_start:
            self.console.file.write("\n")
            self._at_line_start = True
        style = "green" if data["status"] == "ok" else "red"
        line = f"{'✓' if data['status'] == 'ok' else '✗'} {data['summary']} ({data['duration']:.2f} s)"
        if data.get("truncated"):
            line += f"; long output saved to {data['spool_path']}"
        self.console.print(Text(self.scrub(safe_text(line)), style=style))

    def _end_output_line(self) -> None:
        """Write what the output filter holds (a block's displays come after its output) and
        make sure the next thing starts on its own line."""
        if self._output is not None:
            self._write_output(self._output.flush())
        if not self._at_line_start:
            self.console.file.write("\n")
            self.console.file.flush()
            self._at_line_start = True

    def _on_block_display(self, data: dict) -> None:
        self._end_output_line()
        try:
            shown = self._show_display(data)
        except Exception:  # malformed display data must never break the session's output
            shown = False
        if not shown:
            self._show_display_text(data.get("text"))

    def _show_display(self, data: dict) -> bool:
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

    def _show_display_text(self, text: object) -> None:
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
            console.print(Text(f"figure saved: {label}", style="dim"))
            return
        link = None
        if self.scrub(path) == path:  # never put a secret into a link target
            try:
                link = images.file_link(Path(path), label)
            except (ValueError, UnicodeError, OSError):
                link = None
        if self.image_protocol in ("kitty", "iterm2", "sixel"):
            png = read_png(path)
            inline = None
            if png is not None:
                width = max(1, min(console.width - 1, IMAGE_WIDTH))
                inline = images.inline_image(png, self.image_protocol, max_width_cells=width)
            if inline:
                console.file.write(inline + "\n")
                console.file.flush()
        console.print(Text("figure saved: ", style="dim"), end="")
        console.file.write((link if link is not None else label) + "\n")
        console.file.flush()

    def _on_block_files(self, data: dict) -> None:
        self._end_output_line()
        text = data.get("text")
        if not isinstance(text, str) or not text:
            text = files_line(data)
        if not text:
            return
        text = self.scrub(safe_text(text[:MAX_FILES_TEXT])).replace("\n", " ")
        self.console.print(Text(text, style="dim"))

    def _on_notice(self, data: dict) -> None:
        partial = self._stream.close()  # a reply cut off (Ctrl-C, error): keep what was shown
        if partial.strip():
            self.console.print(markdown(self.scrub(safe_text(partial))))
        style = {"error": "bold red", "warning": "yellow"}.get(data.get("level"), "cyan")
        self.console.print(Text(self.scrub(safe_text(data["text"])), style=style))


def code_panel(language: str, code: str, title: str) -> Panel:
    """The exact code, syntax-highlighted, with line numbers (so a wrapped line is not taken
    for two) and every control, invisible or trailing-space character shown, in reverse."""
    language = safe_text(language)
    shown, spans = visible_spans(code)
    body = Syntax(shown, _LEXERS.get(language, language or "text"), theme="ansi_dark",
                  word_wrap=True, line_numbers=True)
    for start, end in spans:
        body.stylize_range("reverse", _line_col(shown, start), _line_col(shown, end))
    note = HIDDEN_NOTE if spans else None
    return Panel(body, title=f"{language} {safe_text(title)}", title_align="left",
                 subtitle=note, subtitle_align="left", border_style="blue")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """Syntax.stylize_range's position (1-based line, column) of an offset into text."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start


def reply_markdown(text: str, blocks: object = None) -> Markdown:
    """The reply as markdown; runnable blocks are shown later, one by one, for approval.

    `blocks` is the message event's list of the reply's blocks ({"index", "language"}, in
    order): each runnable fenced block becomes a marker with its number and language, as the
    panel that shows it is titled. Without it (a reply whose blocks are tool calls), fenced
    code is shown as it is."""
    numbered = [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
    parts, count = [], 0
    for part in split_text(safe_text(text)):
        if isinstance(part, CodeBlock) and part.language not in DISPLAY_ONLY and count < len(numbered):
            block, count = numbered[count], count + 1
            language = safe_text(str(block.get("language") or part.language))
            parts.append(f"\n\n*▶ {language} block {block.get('index')}, shown below*\n\n")
        elif isinstance(part, CodeBlock):
            fence = "`" * max(4, max(map(len, re.findall("`+", part.code)), default=0) + 1)
            parts.append(f"\n{fence}{part.language}\n{part.code}\n{fence}\n")
        else:
            parts.append(part)
    return Markdown("".join(parts), hyperlinks=False)
