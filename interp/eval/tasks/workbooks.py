"""The cells of an Excel workbook's sheets, read with the standard library (a workbook is a zip
of XML parts): strings and numbers, row by row."""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree

from interp.core.files.file_formats import UnreadableWorkbook

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_CELL = re.compile(r"[A-Z]+")


def sheet_rows(path: Path, limit: int) -> dict[str, list[list[object]]]:
    """Sheet name -> rows (strings and floats) of a workbook whose parts hold at most `limit`
    bytes; UnreadableWorkbook when it is larger or not a workbook."""
    try:
        with zipfile.ZipFile(path) as book:
            if sum(info.file_size for info in book.infolist()) > limit:
                raise UnreadableWorkbook(f"{path.name} is too large")
            return _sheets(book)
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, EOFError, zlib.error,
            RuntimeError, NotImplementedError) as exc:
        raise UnreadableWorkbook(f"{path.name} is not an Excel workbook ({exc})",
                                 damaged=True) from None


def _sheets(book: zipfile.ZipFile) -> dict[str, list[list[object]]]:
    shared = []
    if "xl/sharedStrings.xml" in book.namelist():
        root = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
        shared = ["".join(t.text or "" for t in si.iter(f"{{{MAIN_NS}}}t"))
                  for si in root.findall(f"{{{MAIN_NS}}}si")]
    rels = ElementTree.fromstring(book.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target") for r in rels.findall(f"{{{PKG_NS}}}Relationship")}
    workbook = ElementTree.fromstring(book.read("xl/workbook.xml"))
    sheets = {}
    for sheet in workbook.iter(f"{{{MAIN_NS}}}sheet"):
        target = targets[sheet.get(f"{{{REL_NS}}}id")].lstrip("/")
        part = target if target.startswith("xl/") else f"xl/{target}"
        sheets[sheet.get("name")] = _rows(ElementTree.fromstring(book.read(part)), shared)
    return sheets


def _rows(root, shared: list[str]) -> list[list[object]]:
    rows = []
    for row in root.iter(f"{{{MAIN_NS}}}row"):
        cells: dict[int, object] = {}
        for cell in row.findall(f"{{{MAIN_NS}}}c"):
            cells[_column_index(cell.get("r", ""), len(cells))] = _cell_value(cell, shared)
        if cells:
            rows.append([cells.get(i, "") for i in range(max(cells) + 1)])
    return rows


def _column_index(ref: str, default: int) -> int:
    letters = _CELL.match(ref)
    if not letters:
        return default
    index = 0
    for letter in letters.group():
        index = index * 26 + ord(letter) - 64
    return index - 1


def _cell_value(cell, shared: list[str]) -> object:
    kind = cell.get("t")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{{{MAIN_NS}}}t"))
    value = cell.find(f"{{{MAIN_NS}}}v")
    text = value.text if value is not None and value.text is not None else ""
    if kind == "s":
        return shared[int(text)] if text.isdigit() and int(text) < len(shared) else ""
    if kind in ("str", "e", "b") or not text:
        return text
    try:
        return float(text)
    except ValueError:
        return text
