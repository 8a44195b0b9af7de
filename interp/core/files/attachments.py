"""Describing attached files to the model: path, size, type and a short, bounded preview.

Reads are bounded: at most 64 KiB of the head for previews, line counts only for files under
10 MiB, JSON parsed only under 5 MiB, PDFs scanned in their first and last MiB, and xlsx
workbooks read through the zip directory. A description never raises; problems become a line.
"""

from __future__ import annotations

import codecs
import csv
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path

from languages.escapes import controls

from interp.core.prompt import png
from interp.bounded import read_head
from interp.core.replies.fences import fence
from interp.core.files.file_formats import (HEAD_BYTES, PREVIEW_LINES, csv_summary, cut, first_lines, json_summary,
                                      line_count, pdf_summary, xlsx_summary)
from interp.core.files.workspace import format_size

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
        head = read_head(resolved, HEAD_BYTES)  # never more: a FIFO or a growing file is safe
        size = head.size
        kind, details, preview = _describe(resolved, size, head.data)
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


def attachment_notice(description: str, verb: str = "Attached") -> str:
    """One line for the person from a describe_file description: "Attached PATH (TYPE, SIZE)"."""
    fields = dict(line.split(": ", 1) for line in description.splitlines()[:3] if ": " in line)
    if "File" not in fields:
        return description.splitlines()[0] if description else ""
    kind = fields.get("Type", "").split(";")[0]
    size = fields.get("Size", "").split(" (")[0]
    return f"{verb} {fields['File']} ({', '.join(p for p in (kind, size) if p)})."


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
        return xlsx_summary(path)
    if info.magic == "PDF document" or suffix == ".pdf":
        return pdf_summary(path, size, info.magic)
    if info.binary:
        return _binary(info, head)
    note = "" if info.valid_utf8 else ", not valid UTF-8 (undecodable bytes shown as \ufffd)"
    if suffix in (".csv", ".tsv", ".tab"):
        return csv_summary(path, size, info.text, label or "CSV", note)
    if suffix == ".json":
        return json_summary(path, size, info.text, note)
    kind = f"{label} (text{note})" if label else f"text{note}"
    return kind, line_count(path, size), first_lines(info.text, PREVIEW_LINES, 500)


def _binary(info: Sniff, head: bytes) -> tuple[str, list[str], str]:
    details = []
    if info.magic == "PNG image" and (size := png.png_size(head)):
        details.append(f"Dimensions: {size[0]}x{size[1]} pixels")
    elif info.magic == "GIF image" and len(head) >= 10:
        details.append(f"Dimensions: {int.from_bytes(head[6:8], 'little')}x"
                       f"{int.from_bytes(head[8:10], 'little')} pixels")
    return f"binary file ({info.magic or 'unrecognised format'}); content not shown", details, ""


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
        read_head(resolved, 0)  # it opens (without waiting on a FIFO put there meanwhile)
    except OSError as exc:
        return _reason(exc), resolved
    return None, resolved


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
    return cut(str(exc) or type(exc).__name__, 200)
