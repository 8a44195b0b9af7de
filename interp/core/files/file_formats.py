"""What an attached file holds, by format: CSV and TSV columns, JSON structure, Excel sheets,
PDF pages, and line counts; each summary is (kind, details, preview)."""

from __future__ import annotations

import csv
import json
import re
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree

from interp.bounded import TooLarge, chunks, read_at_most

HEAD_BYTES = 64 * 1024  # what is read of a file to sniff and preview it
PREVIEW_LINES = 40
COUNT_LIMIT = 10 * 1024 * 1024
JSON_LIMIT = 5 * 1024 * 1024
PDF_SCAN = 1024 * 1024
XML_LIMIT = 2 * 1024 * 1024
LINE_CHARS = 200
PREVIEW_ROWS = 10
SHAPE_LIMIT = 2 * 1024 * 1024  # a written table larger than this is named by its size only
SHAPE_COLUMNS = 8  # column names shown of a written table
_SHEET_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def csv_summary(path: Path, size: int, text: str, label: str, note: str) -> tuple[str, list[str], str]:
    """(kind, details, preview) of a CSV or TSV file from its first `text`."""
    lines = text.splitlines()
    if size > HEAD_BYTES and len(lines) > 1:
        lines.pop()  # the last line read may be cut mid-row
    lines = lines[:PREVIEW_ROWS]
    delimiter = "\t" if label == "TSV" else ","
    try:
        delimiter = csv.Sniffer().sniff("\n".join(lines)[:8192], delimiters=",;\t|").delimiter
    except csv.Error:
        pass
    first = next(csv.reader(lines[:1], delimiter=delimiter), []) if lines else []
    name = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}[delimiter]
    details = [f"Columns: {len(first)} ({name}-delimited)", *line_count(path, size, "rows")]
    preview = "\n".join(cut(line, LINE_CHARS) for line in lines)
    return f"{label} (text{note})", details, preview


def written_shape(path: Path, size: int) -> str:
    """What a written file holds, so that a wrong one shows in the block's report: a table's
    rows and columns, a JSON file's structure, a workbook's sheets; "" for other files."""
    suffix = path.suffix.lower()
    if size > SHAPE_LIMIT:
        return ""
    if suffix in (".csv", ".tsv"):
        return table_shape(path, suffix)
    if suffix == ".json":
        return json_shape(path)
    if suffix == ".xlsx":
        try:
            names = sheet_names(path)
        except OSError:
            return ""
        except UnreadableWorkbook as exc:
            return f"sheets unknown ({'damaged: ' if exc.damaged else ''}{exc})"
        return (f"sheet {_sheets_shown(names)}" if len(names) == 1
                else f"sheets ({len(names)}): {_sheets_shown(names)}")
    return ""


def table_shape(path: Path, suffix: str) -> str:
    """"4 rows × 3 columns: region, Q1, Q2; empty cells: Q2 1" of a CSV or TSV (rows under its
    header)."""
    try:
        rows = table_rows(path, suffix)
    except (OSError, csv.Error):
        return ""
    if not rows:
        return "empty"
    header, body = rows[0], rows[1:]
    if (all(_NUMBER.fullmatch(cell.strip()) for cell in header)
            and not all(cell.isdigit() for cell in header)):
        # a matrix saved without a header row (whole numbers alone may be years: a header)
        header, body = [f"column {i + 1}" for i in range(len(header))], rows
        return _with_empty(f"{_size(body, header)} of numbers, no header row", header, body)
    names = [cut(name, 30) if name.strip() else "(no name)" for name in header[:SHAPE_COLUMNS]]
    more = ", …" if len(header) > SHAPE_COLUMNS else ""
    return _with_empty(f"{_size(body, header)}: {', '.join(names)}{more}", header, body)


def _size(body: list[list[str]], header: list[str]) -> str:
    """"4 rows × 3 columns"."""
    return (f"{len(body):,} row{'s' if len(body) != 1 else ''} × {len(header)} "
            f"column{'s' if len(header) != 1 else ''}")


def _with_empty(shape: str, header: list[str], body: list[list[str]]) -> str:
    """`shape` with the count of empty cells of each column that has some."""
    empty = [(name, sum(1 for row in body if i >= len(row) or not row[i].strip()))
             for i, name in enumerate(header)]
    empty = [(cut(name, 30) or "(no name)", n) for name, n in empty if n]
    if empty:
        shape += "; empty cells: " + ", ".join(f"{name} {n}" for name, n in empty[:SHAPE_COLUMNS])
    return shape


def table_rows(path: Path, suffix: str = ".csv", limit: int = SHAPE_LIMIT) -> list[list[str]]:
    """The non-empty rows of a CSV or TSV file of at most `limit` bytes, its delimiter sniffed;
    OSError (TooLarge for a larger one) or csv.Error when it cannot be read."""
    text = read_at_most(path, limit).decode("utf-8", errors="replace")
    delimiter = "\t" if suffix == ".tsv" else ","
    try:
        delimiter = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|").delimiter
    except csv.Error:
        pass
    return [row for row in csv.reader(text.splitlines(), delimiter=delimiter) if row]


def json_summary(path: Path, size: int, text: str, note: str) -> tuple[str, list[str], str]:
    """(kind, details, preview) of a JSON file: its structure, parsed when not too large."""
    preview, kind = first_lines(text, PREVIEW_LINES, LINE_CHARS), f"JSON (text{note})"
    if size >= JSON_LIMIT:
        top = {"{": "object", "[": "array"}.get(text.lstrip()[:1], "value")
        return kind, [f"Structure: top-level {top}; large file, not parsed"], preview
    try:
        data = read_json(path, JSON_LIMIT)
    except TooLarge:  # it grew since it was measured
        return kind, ["Structure: large file, not parsed"], preview
    except TooDeep:
        return kind, ["Structure: nested too deeply to parse"], preview
    except ValueError as exc:
        return kind, [f"Structure: not valid JSON ({cut(str(exc), 120)})"], preview
    return kind, [f"Structure: {_shape(data)}"], preview


def json_shape(path: Path) -> str:
    """A JSON file's structure, and the keys whose values are numbers written as text
    ("quantity": "437") in a list of objects; "" when it cannot be read."""
    try:
        data = read_json(path)
    except TooLarge:  # it grew since it was measured
        return ""
    except (OSError, ValueError):
        return "not valid JSON"
    shape = _shape(data)
    if texts := numbers_as_text(data):
        shape += "; numbers written as text in " + ", ".join(cut(str(k), 40) for k in texts[:10])
    return shape


def numbers_as_text(data: object) -> list[str]:
    """The keys of a list of objects (parsed JSON) whose values include numbers written as
    text ("quantity": "437"), in order of appearance."""
    rows = [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []
    return list(dict.fromkeys(key for row in rows for key, value in row.items()
                              if isinstance(value, str) and _NUMBER.fullmatch(value.strip())))


class TooDeep(ValueError):
    """A JSON value nested too deeply to parse."""


def read_json(path: Path, limit: int = SHAPE_LIMIT) -> object:
    """The value of a JSON file of at most `limit` bytes; ValueError when it is not JSON,
    OSError when it cannot be read (TooLarge when it is larger)."""
    text = read_at_most(path, limit).decode("utf-8", errors="replace").lstrip("\ufeff")
    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeep("nested too deeply") from None


def _shape(data: object) -> str:
    if isinstance(data, dict):
        keys = ", ".join(cut(json.dumps(k, ensure_ascii=False), 40) for k in list(data)[:20])
        more = f", ... ({len(data) - 20} more)" if len(data) > 20 else ""
        return f"object with {len(data)} key{'s' if len(data) != 1 else ''}: {keys}{more}"
    if isinstance(data, list):
        if not data:
            return "empty array"
        first, inner = data[0], ""
        if isinstance(first, dict):
            inner = f" (keys: {', '.join(cut(str(k), 40) for k in list(first)[:10])})"
        return f"array of {len(data):,} items; first item: {_type_name(first)}{inner}"
    return f"a single {_type_name(data)}"


def _type_name(value: object) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


class UnreadableWorkbook(Exception):
    """A workbook whose sheet names cannot be read; the text says why, `damaged` whether the
    file itself is broken."""

    def __init__(self, why: str, damaged: bool = False) -> None:
        super().__init__(why)
        self.damaged = damaged


def sheet_names(path: Path) -> list[str]:
    """The sheet names of an Excel workbook, in order; UnreadableWorkbook when it has none to
    read."""
    try:
        with zipfile.ZipFile(path) as archive:
            entry = archive.getinfo("xl/workbook.xml")
            if entry.file_size > XML_LIMIT:
                raise UnreadableWorkbook("workbook.xml too large")
            root = ElementTree.fromstring(archive.read(entry))
    except KeyError:
        raise UnreadableWorkbook("no xl/workbook.xml") from None
    except (zipfile.BadZipFile, ElementTree.ParseError, EOFError, zlib.error, RuntimeError,
            NotImplementedError) as exc:
        raise UnreadableWorkbook(cut(str(exc), 120), damaged=True) from None
    return [el.get("name", "?") for el in root.iter(f"{_SHEET_NS}sheet")]


def _sheets_shown(names: list[str]) -> str:
    return ", ".join(cut(n, 60) for n in names[:30]) + (", ..." if len(names) > 30 else "")


def xlsx_summary(path: Path) -> tuple[str, list[str], str]:
    """(kind, details, preview) of an Excel workbook: its sheet names."""
    kind = "Excel workbook (xlsx)"
    try:
        names = sheet_names(path)
    except UnreadableWorkbook as exc:
        return kind + (", damaged" if exc.damaged else ""), [f"Sheets: unknown ({exc})"], ""
    return kind, [f"Sheets ({len(names)}): {_sheets_shown(names)}"], ""


def pdf_summary(path: Path, size: int, magic: str | None) -> tuple[str, list[str], str]:
    """(kind, details, preview) of a PDF: its version and page count."""
    with path.open("rb") as handle:
        data = handle.read(PDF_SCAN)
        if size > PDF_SCAN:
            handle.seek(max(PDF_SCAN, size - PDF_SCAN))
            data += b"\n" + handle.read(PDF_SCAN)
    version = re.match(rb"%PDF-(\d\.\d)", data)
    kind = f"PDF document{' (version ' + version.group(1).decode() + ')' if version else ''}"
    if magic != "PDF document":
        kind += ", but it does not start with a PDF header"
    return kind, [f"Pages: {_pdf_pages(data, size <= PDF_SCAN)}"], ""


def _pdf_pages(data: bytes, whole: bool) -> str:
    counts = []
    for match in re.finditer(rb"/Type\s*/Pages\b", data):
        start = data.rfind(b"obj", max(0, match.start() - 4096), match.start())
        end = data.find(b"endobj", match.end(), match.end() + 4096)
        window = data[start if start >= 0 else max(0, match.start() - 1000):
                      end if end >= 0 else match.end() + 1000]
        counts += [int(n) for n in re.findall(rb"/Count\s+(\d{1,7})\b", window)]
    if counts:
        return str(max(counts))
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", data))
    return str(pages) if whole and pages else "unknown"


def line_count(path: Path, size: int, what: str = "lines") -> list[str]:
    """A "Lines: N" (or "Rows: N") detail; large files are not counted."""
    if size >= COUNT_LIMIT:
        return [f"{what.capitalize()}: not counted (large file)"]
    count, last = 0, b"\n"
    for chunk in chunks(path, size):  # the lines it had when measured, however it grows
        count += _line_ends(chunk, after_return=last == b"\r")
        last = chunk[-1:]
    count += last not in (b"\n", b"\r")
    extra = " (line count, including any header)" if what == "rows" else ""
    return [f"{what.capitalize()}: {count:,}{extra}"]


def _line_ends(chunk: bytes, after_return: bool) -> int:
    """Line ends in chunk, of every convention: LF, CRLF and a lone CR (old Mac files, one
    line if only LF is counted); `after_return`: the chunk before ended on a CR, so an LF
    that starts this one ends the same line."""
    ends = chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
    return ends - (after_return and chunk.startswith(b"\n"))


def first_lines(text: str, count: int, width: int) -> str:
    """The first `count` lines of text, each cut to `width`."""
    return "\n".join(cut(line, width) for line in text.splitlines()[:count])


def cut(text: str, width: int) -> str:
    """text cut to `width` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[:width - 1] + "…"
