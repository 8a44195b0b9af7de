"""Describing attached files to the model: path, size, type and a short, bounded preview.

Reads are bounded: at most 64 KiB of the head for previews, line counts only for files under
10 MiB, JSON parsed only under 5 MiB, PDFs scanned in their first and last MiB, and xlsx
workbooks read through the zip directory. A description never raises; problems become a line.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from languages.escapes import controls

from interp.core import png
from interp.core.fences import fence
from interp.core.workspace import format_size

HEAD_BYTES = 64 * 1024
COUNT_LIMIT = 10 * 1024 * 1024
JSON_LIMIT = 5 * 1024 * 1024
PDF_SCAN = 1024 * 1024
XML_LIMIT = 2 * 1024 * 1024
LINE_CHARS = 200
PREVIEW_ROWS = 10
PREVIEW_LINES = 40
HEADER_CHARS = 300  # each header line is cut to this; the whole is max_preview_chars + ~1 KiB

MAGIC = ((png.SIGNATURE, "PNG image"), (b"\xff\xd8\xff", "JPEG image"),
         (b"GIF87a", "GIF image"), (b"GIF89a", "GIF image"), (b"PK\x03\x04", "ZIP archive"),
         (b"PK\x05\x06", "ZIP archive"), (b"\x1f\x8b", "gzip data"), (b"%PDF-", "PDF document"),
         (b"\x7fELF", "ELF executable"))
KINDS = {".csv": "CSV", ".tsv": "TSV", ".tab": "TSV", ".json": "JSON", ".jsonl": "JSON Lines",
         ".ndjson": "JSON Lines", ".md": "Markdown", ".py": "Python source",
         ".sh": "shell script", ".js": "JavaScript source", ".html": "HTML", ".xml": "XML",
         ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML", ".log": "log", ".sql": "SQL"}
_CONTROL = controls()  # all but tab and newline
_ANY_CONTROL = controls(keep="")
_SHEET_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


class AttachmentError(Exception):
    """A file given to attach cannot be attached (missing, not a file, unreadable)."""


@dataclass(frozen=True)
class Sniff:
    """What the first bytes of a file say: text or binary, and a decoded head if text."""

    binary: bool
    magic: str | None
    text: str
    valid_utf8: bool


def check_attachable(path: Path | str) -> Path:
    """The absolute path of a regular, readable file; raises AttachmentError otherwise."""
    problem, resolved = _problem(Path(path))
    if problem:
        raise AttachmentError(f"{_clean(str(resolved))}: {problem}")
    return resolved


def describe_file(path: Path | str, *, max_preview_chars: int = 2000) -> str:
    """A bounded, multi-line description of one file for the model; never raises."""
    problem, resolved = _problem(Path(path))
    if problem:
        return f"File {_clean(str(resolved))}: cannot attach: {problem}."
    try:
        size = resolved.stat().st_size
        with resolved.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        kind, details, preview = _describe(resolved, size, head)
    except (OSError, ValueError, csv.Error, zipfile.BadZipFile, RecursionError) as exc:
        return f"File {_clean(str(resolved))}: cannot attach: {_reason(exc)}."
    shown = format_size(size) + (f" ({size:,} bytes)" if size >= 1024 else "")
    lines = [f"File: {resolved}", f"Size: {shown}", f"Type: {kind}", *details]
    text = "\n".join(_clean(line)[:HEADER_CHARS] for line in lines)
    preview = _clean(preview, keep_newlines=True).rstrip("\n")
    if len(preview) > max_preview_chars:
        preview = preview[:max_preview_chars]
        preview = preview[:preview.rfind("\n")] if "\n" in preview else preview
    if preview:
        count = preview.count("\n") + 1
        text += f"\nPreview (first {count} line{'s' * (count > 1)}):\n{fence(preview)}"
    return text


def describe_files(paths: list[Path | str], *, max_preview_chars: int = 2000) -> str:
    """Descriptions of several attached files, one paragraph each, under a heading."""
    parts = [describe_file(p, max_preview_chars=max_preview_chars) for p in paths]
    return "Attached files:\n\n" + "\n\n".join(parts)


def attachment_notice(description: str) -> str:
    """One line for the person from a describe_file description: "Attached PATH (TYPE, SIZE)"."""
    fields = dict(line.split(": ", 1) for line in description.splitlines()[:3] if ": " in line)
    if "File" not in fields:
        return description.splitlines()[0] if description else ""
    kind = fields.get("Type", "").split(";")[0]
    size = fields.get("Size", "").split(" (")[0]
    return f"Attached {fields['File']} ({', '.join(p for p in (kind, size) if p)})."


def sniff(head: bytes) -> Sniff:
    """Classify the first bytes of a file as text (UTF-8 or not) or binary."""
    magic = next((name for sig, name in MAGIC if head.startswith(sig)), None)
    if b"\x00" in head[:8192]:
        return Sniff(True, magic, "", False)
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        valid = True
    except UnicodeDecodeError:
        text, valid = head.decode("utf-8", errors="replace"), False
    if magic and magic != "PDF document":
        return Sniff(True, magic, "", valid)
    sample = text[:8192]
    controls, bad = len(_CONTROL.findall(sample)), sample.count("\ufffd")
    binary = not valid and (controls * 20 > len(sample) or bad * 3 > len(sample))
    return Sniff(binary, magic, "" if binary else text.lstrip("\ufeff"), valid)


# -- dispatch -------------------------------------------------------------------------------
def _describe(path: Path, size: int, head: bytes) -> tuple[str, list[str], str]:
    suffix = path.suffix.lower()
    label = KINDS.get(suffix)
    info = sniff(head)
    if suffix in (".xlsx", ".xlsm") and info.magic == "ZIP archive":
        return _xlsx(path)
    if info.magic == "PDF document" or suffix == ".pdf":
        return _pdf(path, size, info)
    if info.binary:
        return _binary(info, head)
    note = "" if info.valid_utf8 else ", not valid UTF-8 (undecodable bytes shown as \ufffd)"
    if suffix in (".csv", ".tsv", ".tab"):
        return _csv(path, size, info.text, label or "CSV", note)
    if suffix == ".json":
        return _json(path, size, info.text, note)
    kind = f"{label} (text{note})" if label else f"text{note}"
    return kind, _line_count(path, size), _first_lines(info.text, PREVIEW_LINES, 500)


def _binary(info: Sniff, head: bytes) -> tuple[str, list[str], str]:
    details = []
    if info.magic == "PNG image" and (size := png.png_size(head)):
        details.append(f"Dimensions: {size[0]}x{size[1]} pixels")
    elif info.magic == "GIF image" and len(head) >= 10:
        details.append(f"Dimensions: {int.from_bytes(head[6:8], 'little')}x"
                       f"{int.from_bytes(head[8:10], 'little')} pixels")
    return f"binary file ({info.magic or 'unrecognised format'}); content not shown", details, ""


# -- formats --------------------------------------------------------------------------------
def _csv(path: Path, size: int, text: str, label: str, note: str) -> tuple[str, list[str], str]:
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
    details = [f"Columns: {len(first)} ({name}-delimited)", *_line_count(path, size, "rows")]
    preview = "\n".join(_cut(line, LINE_CHARS) for line in lines)
    return f"{label} (text{note})", details, preview


def _json(path: Path, size: int, text: str, note: str) -> tuple[str, list[str], str]:
    preview, kind = _first_lines(text, PREVIEW_LINES, LINE_CHARS), f"JSON (text{note})"
    if size >= JSON_LIMIT:
        top = {"{": "object", "[": "array"}.get(text.lstrip()[:1], "value")
        return kind, [f"Structure: top-level {top}; large file, not parsed"], preview
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff"))
    except RecursionError:
        return kind, ["Structure: nested too deeply to parse"], preview
    except ValueError as exc:
        return kind, [f"Structure: not valid JSON ({_cut(str(exc), 120)})"], preview
    return kind, [f"Structure: {_shape(data)}"], preview


def _shape(data: object) -> str:
    if isinstance(data, dict):
        keys = ", ".join(_cut(json.dumps(k, ensure_ascii=False), 40) for k in list(data)[:20])
        more = f", ... ({len(data) - 20} more)" if len(data) > 20 else ""
        return f"object with {len(data)} keys: {keys}{more}"
    if isinstance(data, list):
        if not data:
            return "empty array"
        first, inner = data[0], ""
        if isinstance(first, dict):
            inner = f" (keys: {', '.join(_cut(str(k), 40) for k in list(first)[:10])})"
        return f"array of {len(data):,} items; first item: {_type_name(first)}{inner}"
    return f"a single {_type_name(data)}"


def _type_name(value: object) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _xlsx(path: Path) -> tuple[str, list[str], str]:
    kind = "Excel workbook (xlsx)"
    try:
        with zipfile.ZipFile(path) as archive:
            entry = archive.getinfo("xl/workbook.xml")
            if entry.file_size > XML_LIMIT:
                return kind, ["Sheets: unknown (workbook.xml too large)"], ""
            root = ElementTree.fromstring(archive.read(entry))
    except KeyError:
        return kind, ["Sheets: unknown (no xl/workbook.xml)"], ""
    except (zipfile.BadZipFile, ElementTree.ParseError, EOFError, zlib.error, RuntimeError,
            NotImplementedError) as exc:
        return kind + ", damaged", [f"Sheets: unknown ({_cut(str(exc), 120)})"], ""
    names = [el.get("name", "?") for el in root.iter(f"{_SHEET_NS}sheet")]
    shown = ", ".join(_cut(n, 60) for n in names[:30]) + (", ..." if len(names) > 30 else "")
    return kind, [f"Sheets ({len(names)}): {shown}"], ""


def _pdf(path: Path, size: int, info: Sniff) -> tuple[str, list[str], str]:
    with path.open("rb") as handle:
        data = handle.read(PDF_SCAN)
        if size > PDF_SCAN:
            handle.seek(max(PDF_SCAN, size - PDF_SCAN))
            data += b"\n" + handle.read(PDF_SCAN)
    version = re.match(rb"%PDF-(\d\.\d)", data)
    kind = f"PDF document{' (version ' + version.group(1).decode() + ')' if version else ''}"
    if info.magic != "PDF document":
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


# -- helpers --------------------------------------------------------------------------------
def _problem(path: Path) -> tuple[str | None, Path]:
    """Why `path` cannot be attached (None if it can), and its absolute form."""
    resolved = path.expanduser().absolute()
    try:
        mode = resolved.stat().st_mode
    except FileNotFoundError:
        return "no such file", resolved
    except OSError as exc:
        return _reason(exc), resolved
    if stat.S_ISDIR(mode):
        return "is a directory, not a file", resolved
    if not stat.S_ISREG(mode):
        return "not a regular file", resolved
    try:
        with resolved.open("rb"):
            pass
    except OSError as exc:
        return _reason(exc), resolved
    return None, resolved


def _line_count(path: Path, size: int, what: str = "lines") -> list[str]:
    if size >= COUNT_LIMIT:
        return [f"{what.capitalize()}: not counted (large file)"]
    count, last = 0, b"\n"
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1024 * 1024), b""):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    count += last != b"\n"
    extra = " (line count, including any header)" if what == "rows" else ""
    return [f"{what.capitalize()}: {count:,}{extra}"]


def _first_lines(text: str, count: int, width: int) -> str:
    return "\n".join(_cut(line, width) for line in text.splitlines()[:count])


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _clean(text: str, keep_newlines: bool = False) -> str:
    """Text safe to show: lone surrogates and control characters replaced."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    if keep_newlines:
        return _CONTROL.sub("\ufffd", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _ANY_CONTROL.sub("\ufffd", text)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return _cut(str(exc) or type(exc).__name__, 200)
