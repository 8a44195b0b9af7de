"""Showing session events in a terminal with rich."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from . import events as ev
from .blocks import DISPLAY_ONLY
from .parsing import CodeBlock, split_text
from .store import Redactor
from .terminal import OutputFilter, safe_text, visible_spans

_LEXERS = {"shell": "bash", "javascript": "javascript", "python": "python"}
HIDDEN_NOTE = "hidden characters shown as \\e, \\u…, ␠"


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
    given secrets are replaced by [REDACTED] everywhere."""

    def __init__(self, console: Console, *, show_final: bool = True,
                 secrets: Iterable[str] = ()) -> None:
        self.console = console
        self.show_final = show_final
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
        self.console.print(reply_markdown(self.scrub(safe_text(data.get("text") or ""))))

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
        self.console.print(Text(self.scrub(safe_text(f"declined{reason}")), style="yellow"))

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


def reply_markdown(text: str) -> Markdown:
    """The reply as markdown; runnable blocks are shown later, one by one, for approval."""
    parts, count = [], 0
    for part in split_text(safe_text(text)):
        if isinstance(part, CodeBlock) and part.language not in DISPLAY_ONLY:
            count += 1
            parts.append(f"\n*▶ {part.language} block {count}, shown below*\n")
        elif isinstance(part, CodeBlock):
            fence = "````"
            parts.append(f"\n{fence}{part.language}\n{part.code}\n{fence}\n")
        else:
            parts.append(part)
    return Markdown("".join(parts), hyperlinks=False)
