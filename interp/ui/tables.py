"""Drawing data displays: bounded tables from the runner's structured data, and file lines."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.cells import cell_len
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
    """"10,000 rows × 50 columns (showing 20 × 8; 42 columns left out)" for the caption."""
    if len(shape) == 1:
        text = f"{shape[0]:,} row{'s' if shape[0] != 1 else ''}"
        return text + (f" (showing {rows})" if rows < shape[0] else "")
    if len(shape) == 2:
        text = f"{shape[0]:,} row{'s' if shape[0] != 1 else ''} × {shape[1]:,} column" \
               f"{'s' if shape[1] != 1 else ''}"
        if rows >= shape[0] and cols >= shape[1]:
            return text
        left = shape[1] - cols
        return text + f" (showing {rows} × {cols}" + (
            f"; {left:,} column{'s' if left != 1 else ''} left out)" if left > 0 else ")")
    return "shape (" + ", ".join(map(str, shape)) + ")"


def data_table(data: object, scrub: Callable[[str], str] = str,
               width: int | None = None) -> Group | None:
    """A bounded rich Table and its caption for a table display's `data` (see
    languages.records.Display), or None when it is missing or malformed. Every string is
    sanitised and drawn as plain text. With `width`, columns from the middle are left out
    (marked by a `…` column) until the table fits, as pandas does: the index and whole values
    are kept."""
    if not isinstance(data, Mapping):
        return None
    try:
        return _build_table(_parse(data, scrub), width)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


@dataclass
class _Parsed:
    """A table display's data, checked, bounded and sanitised."""

    columns: list[str]
    rows: list[list[str]]
    index: list[str] | None
    index_name: str
    dtypes: list[str] | None
    shape: list[int]
    row_gap: int | None
    col_gap: int | None
    kind: str
    label: str
    numeric_all: bool  # an ndarray of numbers: every column is right-aligned


def _parse(data: Mapping, scrub: Callable[[str], str]) -> _Parsed | None:
    columns, rows, index = data.get("columns"), data.get("rows"), data.get("index")
    if not isinstance(columns, list) or not isinstance(rows, list) or not columns:
        return None
    if not all(isinstance(row, list) and len(row) == len(columns) for row in rows):
        return None
    given = [len(rows), len(columns)]
    keep, col_gap = _bounded(len(columns), data.get("col_gap"), TABLE_COLS)
    kept_rows, row_gap = _bounded(len(rows), data.get("row_gap"), TABLE_ROWS)
    columns = [_cell(columns[i], scrub) for i in keep]
    index = ([_cell(index[i], scrub) for i in kept_rows]
             if isinstance(index, list) and len(index) >= len(rows) else None)
    rows = [[_cell(rows[r][i], scrub) for i in keep] for r in kept_rows]
    dtypes = data.get("dtypes")
    dtypes = ([_cell(dtypes[i], scrub) for i in keep]
              if isinstance(dtypes, list) and len(dtypes) >= given[1] else None)
    shape = data.get("shape")
    shape = ([_count(n) for n in shape] if isinstance(shape, list) and 1 <= len(shape) <= 8
             else given)
    kind = _cell(data["type"], scrub) if isinstance(data.get("type"), str) else "table"
    label = kind
    if isinstance(data.get("name"), str) and data["name"]:
        label += f" {_cell(data['name'], scrub)}"
    numeric_all = False
    if kind == "ndarray" and isinstance(data.get("dtype"), str):
        label += f" ({_cell(data['dtype'], scrub)})"
        numeric_all = data["dtype"].startswith(_NUMERIC)
        dtypes = None  # one dtype for all, in the caption
    names = data.get("index_names")
    index_name = (", ".join(_cell(n, scrub) for n in names[:4]) if isinstance(names, list)
                  else "")
    return _Parsed(columns, rows, index, index_name, dtypes, shape, row_gap, col_gap, kind,
                   label, numeric_all)


def _bounded(count: int, gap: object, limit: int) -> tuple[list[int], int | None]:
    """The positions of at most `limit` rows or columns (the first and last halves) and the
    position in them before which some are left out, or None."""
    gap = gap if isinstance(gap, int) and not isinstance(gap, bool) and 0 < gap < count \
        else None
    if count <= limit:
        return list(range(count)), gap
    head = limit - limit // 2
    return list(range(head)) + list(range(count - (limit - head), count)), head


def _widths(table: _Parsed) -> list[int]:
    """The width each column needs to show its header, dtype and every value whole."""
    widths = []
    for at, column in enumerate(table.columns):
        texts = [column, table.dtypes[at] if table.dtypes else ""]
        texts += [row[at] for row in table.rows]
        widths.append(max(map(cell_len, texts)))
    return widths


def _fit(widths: list[int], index_width: int | None, gap: int | None,
         width: int | None) -> tuple[list[int], int | None]:
    """The columns to draw (positions) and where the `…` column goes, so that the table fits
    `width`: all of them if they fit, else as many from the left and the right as fit."""
    count = len(widths)
    if width is None:
        return list(range(count)), gap
    base = 1 + (index_width + 3 if index_width is not None else 0)
    cost = [w + 3 for w in widths]
    if base + sum(cost) + (4 if gap is not None else 0) <= width:
        return list(range(count)), gap
    left, right, used = 1, 0, base + 4 + cost[0]  # the first column is always drawn
    while left + right < count:
        take_left = left <= right
        nxt = cost[left] if take_left else cost[count - 1 - right]
        if used + nxt > width:
            break
        used += nxt
        left, right = (left + 1, right) if take_left else (left, right + 1)
    return list(range(left)) + list(range(count - right, count)), left


def _build_table(parsed: _Parsed | None, width: int | None) -> Group | None:
    if parsed is None:
        return None
    index_width = (max(map(cell_len, [parsed.index_name, *parsed.index]))
                   if parsed.index is not None else None)
    keep, gap = _fit(_widths(parsed), index_width, parsed.col_gap, width)
    caption = f"{parsed.label}: {_dims(parsed.shape, len(parsed.rows), len(keep))}"
    table = Table(header_style="bold")
    if parsed.index is not None:
        table.add_column(Text(parsed.index_name), style="dim", no_wrap=True,
                         overflow="ellipsis", min_width=min(index_width, (width or 80) // 3))
    for at, column in enumerate(keep):
        if at == gap:
            table.add_column(Text("…"), no_wrap=True)
        dtype = parsed.dtypes[column] if parsed.dtypes else ""
        header = Text(parsed.columns[column])
        if dtype:
            header.append(("\n" if parsed.columns[column] else "") + dtype, style="dim")
        numeric = dtype.startswith(_NUMERIC) or parsed.numeric_all
        table.add_column(header, justify="right" if numeric else "left", no_wrap=True,
                         overflow="ellipsis", min_width=1)
    cells_per_row = len(keep) + (gap is not None) + (parsed.index is not None)
    for at, row in enumerate(parsed.rows):
        if at == parsed.row_gap:
            table.add_row(*[Text("…", style="dim")] * cells_per_row)
        cells = [row[c] for c in keep]
        if gap is not None:
            cells.insert(gap, "…")
        if parsed.index is not None:
            cells.insert(0, parsed.index[at])
        table.add_row(*[Text(c) for c in cells])
    return Group(table, Text(caption, style="dim"))  # a caption would wrap to the table's width
