"""Reading a workbook's cells with the standard library, against files openpyxl wrote."""

from __future__ import annotations

import openpyxl
import pytest

from interp.core.files.file_formats import UnreadableWorkbook
from interp.eval.tasks.workbooks import sheet_rows


@pytest.mark.fast
def test_the_cells_of_each_sheet_are_read_as_strings_and_numbers(tmp_path):
    book = openpyxl.Workbook()
    book.active.title = "Orders"
    for row in (("sku", "qty", "note"), ("A-1", 3, None), ("B-2", 2.5, "late")):
        book.active.append(row)
    book.create_sheet("Empty")
    book.save(tmp_path / "o.xlsx")
    assert sheet_rows(tmp_path / "o.xlsx", 1 << 20) == {
        "Orders": [["sku", "qty", "note"], ["A-1", 3.0], ["B-2", 2.5, "late"]], "Empty": []}


@pytest.mark.fast
def test_a_damaged_or_too_large_workbook_is_unreadable(tmp_path):
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(UnreadableWorkbook):
        sheet_rows(tmp_path / "bad.xlsx", 1 << 20)
    openpyxl.Workbook().save(tmp_path / "ok.xlsx")
    with pytest.raises(UnreadableWorkbook, match="too large"):
        sheet_rows(tmp_path / "ok.xlsx", 100)
