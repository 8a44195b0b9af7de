"""Reading what a run wrote: CSV, JSON, matrices and XLSX (written here and by openpyxl)."""

from __future__ import annotations

import pytest

from interp.eval.tasks.files import (Unreadable, column, numeric_grid, read_csv, read_json,
                                     read_xlsx, write_xlsx)

pytestmark = pytest.mark.fast


def test_csv_rows_are_stripped_and_blank_lines_skipped(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"\xef\xbb\xbfRegion , Total\n\nEast, 1\n,\nWest,2\n")
    assert read_csv(tmp_path / "a.csv") == (["Region", "Total"], [["East", "1"], ["West", "2"]])
    assert column(["Region", "Grand Total"], "grand_total") == 1 and column(["a"], "b") is None


def test_a_pandas_index_column_is_left_out(tmp_path):
    (tmp_path / "i.csv").write_text(",id,city\n0,501,Lyon\n1,502,Graz\n")
    assert read_csv(tmp_path / "i.csv") == (["id", "city"], [["501", "Lyon"], ["502", "Graz"]])
    (tmp_path / "j.csv").write_text(",id\nx,501\n")  # not a count of the rows: kept
    assert read_csv(tmp_path / "j.csv") == (["", "id"], [["x", "501"]])


@pytest.mark.parametrize("name, content, message", [
    ("missing.csv", None, "missing.csv was not written"),
    ("empty.csv", b"\n\n", "empty.csv is empty"),
])
def test_an_unreadable_csv_says_why(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_bytes(content)
    with pytest.raises(Unreadable, match=message):
        read_csv(tmp_path / name)


def test_json_that_is_not_json_is_unreadable(tmp_path):
    (tmp_path / "x.json").write_text("[1, 2")
    with pytest.raises(Unreadable, match="x.json is not JSON"):
        read_json(tmp_path / "x.json")


def test_a_matrix_grid_skips_a_header_row_and_an_index_column(tmp_path):
    (tmp_path / "m.csv").write_text(",0,1\n0,1.5,-2\n1,3,4e-1\n")  # pandas' to_csv
    assert numeric_grid(tmp_path / "m.csv") == [[1.5, -2.0], [3.0, 0.4]]
    (tmp_path / "n.csv").write_text("a,b\n0,1\n1,2\n")  # a header; the first column is data
    assert numeric_grid(tmp_path / "n.csv") == [[0.0, 1.0], [1.0, 2.0]]
    (tmp_path / "o.csv").write_text("0,1\n1.5,-2\n3,0.4\n")  # pandas' to_csv(index=False)
    assert numeric_grid(tmp_path / "o.csv") == [[1.5, -2.0], [3.0, 0.4]]
    (tmp_path / "p.csv").write_text("1 2\n")
    assert numeric_grid(tmp_path / "p.csv") == []


def test_a_workbook_written_here_reads_back(tmp_path):
    sheets = {"2023": [["Category", "Amount"], ["Rent & Co", 1200.5]], "2024": [["a"], [3]]}
    write_xlsx(tmp_path / "b.xlsx", sheets)
    assert read_xlsx(tmp_path / "b.xlsx") == {"2023": [["Category", "Amount"], ["Rent & Co", 1200.5]],
                                              "2024": [["a"], [3.0]]}


def test_a_workbook_written_by_openpyxl_reads_and_ours_opens_in_it(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = "Orders"
    for row in (["id", "customer", "amount"], [1, "Ana", 9.5], [2, "Ben", None], [3, None, 4]):
        book.active.append(row)
    book.create_sheet("Notes").append(["x"])
    book.save(tmp_path / "o.xlsx")
    assert read_xlsx(tmp_path / "o.xlsx") == {
        "Orders": [["id", "customer", "amount"], [1.0, "Ana", 9.5], [2.0, "Ben"], [3.0, "", 4.0]],
        "Notes": [["x"]]}
    write_xlsx(tmp_path / "ours.xlsx", {"S": [["k", "v"], ["a", 1]]})
    loaded = openpyxl.load_workbook(tmp_path / "ours.xlsx")
    assert loaded.sheetnames == ["S"] and list(loaded["S"].values) == [("k", "v"), ("a", 1)]


def test_a_file_that_is_not_a_workbook_is_unreadable(tmp_path):
    (tmp_path / "x.xlsx").write_text("name,amount\n")
    with pytest.raises(Unreadable, match="x.xlsx is not an Excel workbook"):
        read_xlsx(tmp_path / "x.xlsx")
