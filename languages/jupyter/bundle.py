"""A kernel's rich outputs (MIME bundles) as interp's Output text and Display records.

`image/png` becomes a figure saved under the output folder, exactly like the Python runner's;
interp's own table type (sent by the formatter that `python/driver/ipython_tables.py` installs
in Python kernels) and `text/html` tables become bounded table displays; anything else is shown as its
`text/plain`.
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser

from ..python.driver import display as driver_display
from ..python.driver import tables as driver_tables
from ..python.driver_source import KERNEL_SETUP, PACKAGE, bundled
from ..records import Display

TABLE_MIME = "application/vnd.interp.table+json"
MAX_HTML = 2_000_000  # characters of HTML parsed for a table; a bigger one is shown as text


@dataclass
class Shown:
    """What one message of a block added: text for the output stream and/or a display."""

    text: str = ""
    display: Display | None = None


@dataclass
class BundleReader:
    """Turns one block's display_data and execute_result messages into text and displays."""

    output_dir: str
    block: int
    figures: int = 0
    displays: list[Display] = field(default_factory=list)
    omitted: int = 0

    def read(self, data: object) -> Shown:
        """The text and display for one MIME bundle (a message's `data`)."""
        if not isinstance(data, dict):
            return Shown()
        plain = data.get("text/plain")
        plain = "".join(plain) if isinstance(plain, list) else plain
        plain = plain if isinstance(plain, str) else ""
        display = None
        if isinstance(data.get(TABLE_MIME), dict):
            display = Display.from_dict(data[TABLE_MIME])
        if display is None and isinstance(data.get("image/png"), str):
            shown = self._figure(data["image/png"])
            if isinstance(shown, str):
                return Shown(text=shown)
            display = shown
        if display is None and isinstance(data.get("text/html"), str | list):
            display = html_display(_joined(data["text/html"]), plain)
        if display is None:
            return Shown(text=plain + "\n" if plain else "")
        self._add(display)
        return Shown(display=display)

    def _add(self, display: Display) -> None:
        if len(self.displays) < driver_display.MAX_DISPLAYS:
            self.displays.append(display)
        else:
            self.omitted += 1

    def _figure(self, encoded: str) -> Display | str:
        """Save a base64 PNG as the next figure file; the Display, or a one-line error text."""
        try:
            png = base64.b64decode(encoded.replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            return "[interp: a figure could not be decoded]\n"
        self.figures += 1
        try:
            path = claim(self.output_dir, self.block, self.figures)
            with open(path, "wb") as handle:
                handle.write(png)
        except OSError as exc:
            return f"[interp: figure {self.figures} could not be saved: {exc.strerror or exc}]\n"
        width, height = driver_display.png_size(path)
        return Display("image", f"[figure saved: {path}]", path,
                       {"format": "png", "mime": "image/png", "width": width, "height": height,
                        "figure": self.figures})

    def finish_note(self) -> str:
        """A line for the output when more displays came than are listed, else ""."""
        if not self.omitted:
            return ""
        return (f"[interp: {self.omitted} more figures or values were not listed; figures are"
                f" in {self.output_dir}]\n")


@cache
def setup_source() -> str:
    """Python-kernel setup: the Python runner's display code plus the table formatter, as the
    driver's package made in the kernel."""
    return (bundled(KERNEL_SETUP)
            + "import sys as __interp_sys\n"
            f"__interp_sys.modules['{PACKAGE}.ipython_tables'].install_formatter(\n"
            "    globals()['get_ipython']() if 'get_ipython' in globals() else None)\n"
            "del __interp_sys\n")


def claim(directory: str, block: int, number: int) -> str:
    """Create the next free figure-BLOCK-N.png in directory (never overwrites); its path."""
    os.makedirs(directory, exist_ok=True)
    stem = os.path.join(directory, f"figure-{block}-{number}")
    extra = 1
    while True:
        path = stem + (".png" if extra == 1 else f"-{extra}.png")
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return path
        except FileExistsError:
            extra += 1


def _joined(value: str | list) -> str:
    return "".join(v for v in value if isinstance(v, str)) if isinstance(value, list) else value


class _TableParser(HTMLParser):
    """Collects the rows of the first <table>: each row a list of (is_header, text) cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[bool, str]]] = []
        self.head_rows = 0
        self._depth = 0
        self._done = False
        self._in_head = False
        self._cell: list[str] | None = None
        self._header = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth += 1
        elif self._depth == 1 and tag == "thead":
            self._in_head = True
        elif self._depth == 1 and tag == "tr":
            self.rows.append([])
            self.head_rows += self._in_head
        elif self._depth == 1 and tag in ("td", "th") and self.rows:
            self._cell, self._header = [], tag == "th"
        elif self._cell is not None and tag == "br":
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth -= 1
            self._done = self._depth <= 0 and bool(self.rows)
        elif tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((self._header, " ".join("".join(self._cell).split())))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and self._depth == 1:
            self._cell.append(data)


def html_display(html: str, plain: str = "") -> Display | None:
    """A bounded table display for the first HTML table, or None when there is none."""
    if "<table" not in html.lower() or len(html) > MAX_HTML:
        return None
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    rows = [row for row in parser.rows if row]
    if not rows:
        return None
    head = rows[:parser.head_rows] or ([rows[0]] if all(h for h, _ in rows[0]) else [])
    body = rows[len(head):]
    indexed = bool(body) and all(row[0][0] for row in body)
    index = [row[0][1] for row in body] if indexed else [str(i) for i in range(len(body))]
    values = [[text for _, text in (row[1:] if indexed else row)] for row in body]
    width = max([len(r) for r in values] + [len(head[0]) - indexed if head else 0])
    columns = [text for _, text in head[0]][int(indexed):] if head else []
    columns = (columns + [str(i) for i in range(len(columns), width)])[:width]
    values = [(r + [""] * width)[:width] for r in values]
    if not columns:
        return None
    data = _bounded(columns, index, values, (head[-1][0][1] if indexed and len(head) > 1 else None))
    text = plain if plain and not plain.startswith("<") else table_text(columns, index, values)
    text += f"\n[table: {len(values)} rows x {width} columns]"
    return Display("table", driver_tables.cut_text(text), None, data)


def _bounded(columns: list[str], index: list[str], values: list[list[str]],
             index_name: str | None) -> dict:
    shape = driver_tables
    keep_rows, row_gap = shape.positions(len(values), shape.MAX_ROWS)
    keep_cols, col_gap = shape.positions(len(columns), shape.MAX_COLS)
    rows = [[shape.cell(values[r][c]) for c in keep_cols] for r in keep_rows]
    return shape.table("table", (len(values), len(columns)), [shape.cell(columns[c]) for c in keep_cols],
                       [""] * len(keep_cols), [shape.cell(index[r]) for r in keep_rows], rows,
                       row_gap, col_gap, index_names=[index_name or None])


def table_text(columns: list[str], index: list[str], values: list[list[str]]) -> str:
    """A plain, aligned text form of a table's first and last rows (for the model)."""
    shape = driver_tables
    keep_rows, _ = shape.positions(len(values), shape.MAX_ROWS)
    keep_cols, _ = shape.positions(len(columns), shape.MAX_COLS)
    grid = [[""] + [shape.cell(columns[c]) for c in keep_cols]]
    grid += [[shape.cell(index[r])] + [shape.cell(values[r][c]) for c in keep_cols]
             for r in keep_rows]
    widths = [max(len(row[i]) for row in grid) for i in range(len(grid[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in grid)
