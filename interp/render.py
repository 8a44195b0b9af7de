"""Showing session events in a terminal with rich."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from . import events as ev
from . import images
from .blocks import DISPLAY_ONLY
from .parsing import CodeBlock, split_text
from .store import Redactor
from .terminal import OutputFilter, safe_text, visible_spans

_LEXERS = {"shell": "bash", "javascript": "javascript", "python": "python"}
HIDDEN_NOTE = "hidden characters shown as \\e, \\u…, ␠"
TABLE_ROWS = 50  # rows of a table display drawn (the Python driver sends at most 20)
TABLE_COLS = 30  # columns drawn (the driver sends at most 20)
TABLE_CELL = 60  # characters of one cell or header
MAX_DISPLAY_TEXT = 20000  # characters of a display's text drawn when it has no table
MAX_DISPLAY_LINES = 200
MAX_FILES_TEXT = 2000  # characters of a block.files line
IMAGE_WIDTH = 100  # cells an inline image may take at most
_NUMERIC = ("int", "uint", "float", "complex", "Int", "UInt", "Float")


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
        table = data_table(data.get("data"), self.scrub) if kind == "table" else None
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


def read_png(path: str) -> bytes | None:
    """The bytes of a regular file of at most images.MAX_INLINE_BYTES, else None; never
    blocks on a FIFO or device and never raises."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > images.MAX_INLINE_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(images.MAX_INLINE_BYTES + 1)
        return data if len(data) <= images.MAX_INLINE_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


def files_line(data: Mapping) -> str:
    """"Files created: a, b; modified: c" from a block.files event without a text."""
    parts = []
    for label in ("created", "modified", "deleted"):
        paths = data.get(label)
        if isinstance(paths, list) and paths:
            names = [p for p in paths[:20] if isinstance(p, str)]
            rest = len(paths) - len(names)
            if rest:
                names.append(f"… and {rest} more")
            parts.append(f"{label}: {', '.join(names)}")
    return "Files " + "; ".join(parts) if parts else ""


def _cell(value: object, scrub: Callable[[str], str]) -> str:
    """One cell or header as a short single line, sanitised; ValueError for a non-scalar."""
    if value is None:
        text = ""
    elif isinstance(value, (str, int, float)):
        text = str(value)
    else:
        raise ValueError("not a table cell")
    text = scrub(safe_text(text[:TABLE_CELL * 4])).replace("\n", " ").replace("\t", " ")
    return text if len(text) <= TABLE_CELL else text[:TABLE_CELL - 1] + "…"


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("not a count")
    return value


def _dims(shape: list[int], rows: int, cols: int) -> str:
    """"10,000 rows × 3 columns (showing 20 × 3)" for the caption."""
    if len(shape) == 1:
        text = f"{shape[0]:,} row{'s' if shape[0] != 1 else ''}"
        return text + (f" (showing {rows})" if rows < shape[0] else "")
    if len(shape) == 2:
        text = f"{shape[0]:,} row{'s' if shape[0] != 1 else ''} × {shape[1]:,} column" \
               f"{'s' if shape[1] != 1 else ''}"
        cut = rows < shape[0] or cols < shape[1]
        return text + (f" (showing {rows} × {cols})" if cut else "")
    return "shape (" + ", ".join(map(str, shape)) + ")"


def data_table(data: object, scrub: Callable[[str], str] = str) -> Group | None:
    """A bounded rich Table and its caption for a table display's `data` (see
    languages.events.Display), or None when it is missing or malformed. Every string is
    sanitised and drawn as plain text."""
    if not isinstance(data, Mapping):
        return None
    try:
        return _build_table(data, scrub)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


def _build_table(data: Mapping, scrub: Callable[[str], str]) -> Group | None:
    columns, rows, index = data.get("columns"), data.get("rows"), data.get("index")
    if not isinstance(columns, list) or not isinstance(rows, list) or not columns:
        return None
    if not all(isinstance(row, list) and len(row) == len(columns) for row in rows):
        return None
    given = [len(rows), len(columns)]
    columns = [_cell(c, scrub) for c in columns[:TABLE_COLS]]
    rows = [[_cell(v, scrub) for v in row[:TABLE_COLS]] for row in rows[:TABLE_ROWS]]
    if isinstance(index, list) and len(index) >= len(rows):
        index = [_cell(i, scrub) for i in index[:len(rows)]]
    else:
        index = None
    dtypes = data.get("dtypes")
    dtypes = ([_cell(d, scrub) for d in dtypes[:len(columns)]]
              if isinstance(dtypes, list) and len(dtypes) >= len(columns) else None)
    shape = data.get("shape")
    shape = ([_count(n) for n in shape] if isinstance(shape, list) and 1 <= len(shape) <= 8
             else given)
    row_gap, col_gap = data.get("row_gap"), data.get("col_gap")
    row_gap = row_gap if isinstance(row_gap, int) and 0 < row_gap < len(rows) else None
    col_gap = col_gap if isinstance(col_gap, int) and 0 < col_gap < len(columns) else None
    kind = data.get("type")
    kind = _cell(kind, scrub) if isinstance(kind, str) else "table"
    label = kind
    if isinstance(data.get("name"), str) and data["name"]:
        label += f" {_cell(data['name'], scrub)}"
    if kind == "ndarray" and isinstance(data.get("dtype"), str):
        label += f" ({_cell(data['dtype'], scrub)})"
        dtypes = None  # one dtype for all, in the caption
    caption = f"{label}: {_dims(shape, len(rows), len(columns))}"

    table = Table(header_style="bold")
    if index is not None:
        names = data.get("index_names")
        name = (", ".join(_cell(n, scrub) for n in names[:4]) if isinstance(names, list)
                else "")
        table.add_column(Text(name), style="dim", no_wrap=True, overflow="ellipsis")
    for at, column in enumerate(columns):
        if at == col_gap:
            table.add_column(Text("…"), no_wrap=True)
        dtype = dtypes[at] if dtypes else ""
        header = Text(column)
        if dtype:
            header.append(("\n" if column else "") + dtype, style="dim")
        numeric = dtype.startswith(_NUMERIC) or (kind == "ndarray"
                                                 and str(data.get("dtype")).startswith(_NUMERIC))
        table.add_column(header, justify="right" if numeric else "left", no_wrap=True,
                         overflow="ellipsis", min_width=1)
    width = len(columns) + (col_gap is not None) + (index is not None)
    for at, row in enumerate(rows):
        if at == row_gap:
            table.add_row(*[Text("…", style="dim")] * width)
        cells = list(row)
        if col_gap is not None:
            cells.insert(col_gap, "…")
        if index is not None:
            cells.insert(0, index[at])
        table.add_row(*[Text(c) for c in cells])
    return Group(table, Text(caption, style="dim"))  # a caption would wrap to the table's width


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
