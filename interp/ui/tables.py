"""Drawing data displays: bounded tables from the runner's structured data, and file lines."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text

from interp.ui import images
from interp.ui.sanitize import safe_text

TABLE_ROWS = 50  # rows of a table display drawn (the Python driver sends at most 20)
TABLE_COLS = 30  # columns drawn (the driver sends at most 20)
TABLE_CELL = 60  # characters of one cell or header
_NUMERIC = ("int", "uint", "float", "complex", "Int", "UInt", "Float")


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
