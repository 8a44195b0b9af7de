"""What a task says of the files it asks for, checked against the files a block wrote."""

from __future__ import annotations

import json

import openpyxl
import pytest

from interp.core.taskfiles import unmet

pytestmark = pytest.mark.fast  # files in tmp_path only: no process, pty or server

# interp eval tasks, the sentences Qwen2.5-Coder-1.5B got wrong (2026-11-27): it saved the
# sheet Sheet1, and every quantity and price as text, and called each task done.
XLSX_TASK = "Save orders.csv as an Excel workbook orders.xlsx with one sheet named Orders."
JSON_TASK = ("Turn inventory.csv into inventory.json: a list of objects, one per row, with the "
             "quantity and the price as numbers.")


def workbook(path, *titles):
    book = openpyxl.Workbook()
    book.active.title = titles[0]
    for title in titles[1:]:
        book.create_sheet(title)
    book.save(path)


def test_a_sheet_not_named_as_the_task_asks_is_named(tmp_path):
    workbook(tmp_path / "orders.xlsx", "Sheet1")
    assert unmet(XLSX_TASK, ["orders.xlsx"], str(tmp_path)) == (
        "The file does not match the task yet: the task asks for a sheet named Orders, but "
        "orders.xlsx has the sheet Sheet1. Fix the code that writes it and run it again.")
    workbook(tmp_path / "orders.xlsx", "orders")  # the case of a name is not held against it
    assert unmet(XLSX_TASK, ["orders.xlsx"], str(tmp_path)) is None


def test_a_quoted_sheet_name_may_hold_spaces(tmp_path):
    workbook(tmp_path / "r.xlsx", "Q1", "Q2")
    note = unmet("write r.xlsx with a worksheet called 'Q1 sales'", ["r.xlsx"], str(tmp_path))
    assert "a sheet named Q1 sales, but r.xlsx has the sheets Q1, Q2" in note


def test_numbers_written_as_text_are_named_when_the_task_asks_for_numbers(tmp_path):
    rows = [{"sku": "SKU-300", "quantity": "437", "price": "39.49", "code": "007"}]
    (tmp_path / "inventory.json").write_text(json.dumps(rows))
    assert unmet(JSON_TASK, ["inventory.json"], str(tmp_path)) == (
        "The file does not match the task yet: the task asks for quantity and price as "
        "numbers, but inventory.json has them as text (in quotes): convert them to numbers "
        "before writing the file. Fix the code that writes it and run it again.")
    rows[0].update(quantity=437, price=39.49)  # "code" is not named by the task
    (tmp_path / "inventory.json").write_text(json.dumps(rows))
    assert unmet(JSON_TASK, ["inventory.json"], str(tmp_path)) is None


def test_files_the_task_says_nothing_of_or_cannot_be_read_pass(tmp_path):
    (tmp_path / "a.json").write_text('[{"quantity": "4"}]')
    (tmp_path / "broken.xlsx").write_text("not a zip")
    (tmp_path / "bad.json").write_text("{")
    assert unmet("Save the quantity to a.json.", ["a.json"], str(tmp_path)) is None
    assert unmet(XLSX_TASK, ["broken.xlsx", "gone.xlsx"], str(tmp_path)) is None
    assert unmet(JSON_TASK, ["bad.json", "a.csv"], str(tmp_path)) is None
