"""Reading what a run wrote (CSV, JSON, XLSX), writing inputs, and running a script it fixed.

Reads are bounded: a check never loads a file larger than MAX_BYTES. XLSX is read and written
with the standard library (a workbook is a zip of XML parts), so a check needs no openpyxl.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import shutil
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from interp.core.files.file_formats import UnreadableWorkbook
from interp.eval.tasks.workbooks import MAIN_NS, PKG_NS, REL_NS, sheet_rows
from languages.process.plumbing import hidden_by_private_tmp
from languages.process.sandbox import Sandbox, SandboxError, check_sandbox

MAX_BYTES = 8 << 20


class Unreadable(Exception):
    """A file a check needs is missing, too large or malformed; the message says which."""


def read_text(path: Path) -> str:
    """A text file's content (UTF-8, a BOM dropped)."""
    if not path.is_file():
        raise Unreadable(f"{path.name} was not written")
    if path.stat().st_size > MAX_BYTES:
        raise Unreadable(f"{path.name} is larger than {MAX_BYTES >> 20} MiB")
    return path.read_bytes().decode("utf-8-sig", "replace")


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a CSV file, cells stripped; blank lines skipped, and an unnamed first
    column that only counts the rows (pandas' index, written by to_csv) left out."""
    rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(read_text(path)))
            if any(cell.strip() for cell in row)]
    if not rows:
        raise Unreadable(f"{path.name} is empty")
    header, body = rows[0], rows[1:]
    if header and header[0] in ("", "Unnamed: 0") and [r[0] for r in body] == [
            str(i) for i in range(len(body))]:
        header, body = header[1:], [r[1:] for r in body]
    return header, body


def read_json(path: Path):
    """A JSON file's value."""
    try:
        return json.loads(read_text(path))
    except ValueError as exc:
        raise Unreadable(f"{path.name} is not JSON ({exc})") from None


def column(header: list[str], name: str) -> int | None:
    """The index of a column named `name` (any case, spaces or underscores), or None."""
    want = _key(name)
    return next((i for i, h in enumerate(header) if _key(h) == want), None)


def number(cell: object) -> float | None:
    """A cell as a number ("1,299.00", "$5", "12"), or None for blanks and text."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        return float(cell)
    text = str(cell).strip().replace(",", "").lstrip("$")
    try:
        return float(text)
    except ValueError:
        return None


def close(a: float | None, b: float, tol: float = 0.01, rel: float = 1e-3) -> bool:
    """True when `a` is `b` within tol, or rel times b."""
    return a is not None and abs(a - b) <= max(tol, rel * abs(b))


def numeric_grid(path: Path) -> list[list[float]]:
    """The numbers of a square matrix saved as CSV: rows with a blank or text cell (a header)
    are skipped, and so are a first row and a first column that only count (pandas')."""
    grid = []
    for row in csv.reader(io.StringIO(read_text(path))):
        values = [number(cell) for cell in row]
        if values and None not in values:
            grid.append(values)
    counting = list(range(len(grid) - 1))
    if len(grid) > 1 and grid[0] == counting and all(len(r) == len(counting) for r in grid):
        grid = grid[1:]  # pandas' column names 0, 1, ... (to_csv with index=False)
    if grid and len({len(r) for r in grid}) == 1 and len(grid[0]) == len(grid) + 1 \
            and [r[0] for r in grid] == list(range(len(grid))):
        grid = [r[1:] for r in grid]
    return grid


def _key(name: str) -> str:
    return re.sub(r"[\s_]+", "_", str(name).strip().lower())


# -- XLSX -------------------------------------------------------------------------------------
def read_xlsx(path: Path) -> dict[str, list[list[object]]]:
    """Sheet name -> rows (strings and numbers) of a workbook."""
    if not path.is_file():
        raise Unreadable(f"{path.name} was not written")
    try:
        return sheet_rows(path, MAX_BYTES * 4)
    except UnreadableWorkbook as exc:
        raise Unreadable(str(exc)) from None


def write_xlsx(path: Path, sheets: dict[str, list[list[object]]]) -> None:
    """A minimal workbook (inline strings, numbers) that Excel, openpyxl and pandas read."""
    names = list(sheets)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", _content_types(len(names)))
        book.writestr("_rels/.rels", f'<?xml version="1.0" encoding="UTF-8"?><Relationships '
                      f'xmlns="{PKG_NS}"><Relationship Id="rId1" Type="{REL_NS}/officeDocument" '
                      'Target="xl/workbook.xml"/></Relationships>')
        sheet_list = "".join(f'<sheet name="{escape(n)}" sheetId="{i}" r:id="rId{i}"/>'
                             for i, n in enumerate(names, 1))
        book.writestr("xl/workbook.xml", f'<?xml version="1.0" encoding="UTF-8"?><workbook '
                      f'xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets>{sheet_list}</sheets></workbook>')
        rels = "".join(f'<Relationship Id="rId{i}" Type="{REL_NS}/worksheet" '
                       f'Target="worksheets/sheet{i}.xml"/>' for i in range(1, len(names) + 1))
        book.writestr("xl/_rels/workbook.xml.rels", f'<?xml version="1.0" encoding="UTF-8"?>'
                      f'<Relationships xmlns="{PKG_NS}">{rels}</Relationships>')
        for i, name in enumerate(names, 1):
            book.writestr(f"xl/worksheets/sheet{i}.xml", _sheet_xml(sheets[name]))


def _content_types(count: int) -> str:
    sheets = "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="application/'
                     'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                     for i in range(1, count + 1))
    return ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.'
            'org/package/2006/content-types"><Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
            '"application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            f'{sheets}</Types>')


def _sheet_xml(rows: list[list[object]]) -> str:
    body = []
    for r, row in enumerate(rows, 1):
        cells = []
        for c, value in enumerate(row):
            ref = f"{chr(65 + c)}{r}"
            if isinstance(value, int | float) and not isinstance(value, bool):
                cells.append(f'<c r="{ref}"><v>{value}</v></c>')
            else:
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t>{escape(str(value))}</t></is></c>')
        body.append(f'<row r="{r}">{"".join(cells)}</row>')
    return (f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{MAIN_NS}"><sheetData>'
            f'{"".join(body)}</sheetData></worksheet>')


# -- running a script the model fixed ---------------------------------------------------------
def run_script(folder: Path, argv: list[str], timeout: float = 60.0) -> tuple[int | None, str]:
    """(exit status, output) of `argv` run on a copy of `folder`, in the sandbox when bubblewrap
    works here (an interpreter under /tmp stays visible in its private /tmp); None as the
    status when it did not finish in time or could not start."""
    with tempfile.TemporaryDirectory(prefix="interp-task-check-") as top:
        copy = Path(top) / "work"
        shutil.copytree(folder, copy, symlinks=True)
        if sandbox_works():
            argv = Sandbox("workspace").wrap(argv, str(copy), hidden_by_private_tmp(argv))
        try:
            done = subprocess.run(argv, cwd=copy, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=timeout, env=_environment(copy), start_new_session=True)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, str(exc)
    output = (done.stdout + done.stderr)[-20000:].decode("utf-8", "replace")
    return done.returncode, output


@cache
def sandbox_works() -> bool:
    """True when the workspace sandbox (bubblewrap, no network) starts here."""
    try:
        check_sandbox(Sandbox("workspace"), tempfile.gettempdir())
    except SandboxError:
        return False
    return True


def _environment(folder: Path) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL") if k in os.environ}
    return {**keep, "HOME": str(folder), "TMPDIR": str(folder), "MPLBACKEND": "Agg"}
