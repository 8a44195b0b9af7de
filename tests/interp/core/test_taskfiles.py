"""What a task says of the files it asks for, checked against the files a block wrote."""

from __future__ import annotations

import json

import openpyxl
import pytest
from session_kit import of, py, run

from interp.core.taskfiles import filled_count, unmet

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


@pytest.mark.fast  # files in tmp_path only: no process, pty or server
def test_a_sheet_not_named_as_the_task_asks_is_named(tmp_path):
    workbook(tmp_path / "orders.xlsx", "Sheet1")
    assert unmet(XLSX_TASK, ["orders.xlsx"], str(tmp_path)) == (
        "Not done yet: the task asks for a sheet named Orders, but "
        "orders.xlsx has the sheet Sheet1. Fix the code and run it again.")
    workbook(tmp_path / "orders.xlsx", "orders")  # the case of a name is not held against it
    assert unmet(XLSX_TASK, ["orders.xlsx"], str(tmp_path)) is None


@pytest.mark.fast
def test_a_quoted_sheet_name_may_hold_spaces(tmp_path):
    workbook(tmp_path / "r.xlsx", "Q1", "Q2")
    note = unmet("write r.xlsx with a worksheet called 'Q1 sales'", ["r.xlsx"], str(tmp_path))
    assert "a sheet named Q1 sales, but r.xlsx has the sheets Q1, Q2" in note


@pytest.mark.fast
def test_a_table_holding_another_sheet_than_the_one_the_task_names_is_named(tmp_path):
    """Qwen2.5-Coder-1.5B on conversion-xlsx-to-csv (2026-11-27): pd.read_excel('budget.xlsx')
    read the first sheet, 2023, into budget_2024.csv."""
    book = openpyxl.Workbook()
    for title, rows in (("2023", [("Rent", 1200.5), ("Travel", 300)]),
                        ("2024", [("Rent", 1300), ("Travel", 310.25)])):
        sheet = book.create_sheet(title)
        for row in (("Category", "Amount"), *rows):
            sheet.append(row)
    del book["Sheet"]
    book.save(tmp_path / "budget.xlsx")
    task = "budget.xlsx has a sheet per year. Export the 2024 sheet to budget_2024.csv."
    (tmp_path / "budget_2024.csv").write_text("Category,Amount\nRent,1200.5\nTravel,300\n")
    assert unmet(task, ["budget_2024.csv"], str(tmp_path), ["budget.xlsx"]) == (
        "Not done yet: budget_2024.csv holds the sheet 2023 of budget.xlsx, not the sheet 2024 "
        "the task names (pd.read_excel reads the first sheet unless given sheet_name='2024'). "
        "Fix the code and run it again.")
    (tmp_path / "budget_2024.csv").write_text("Category,Amount\nRent,1300.0\nTravel,310.25\n")
    assert unmet(task, ["budget_2024.csv"], str(tmp_path), ["budget.xlsx"]) is None
    (tmp_path / "budget_2024.csv").write_text("Category,Amount\nRent,1200.5\nTravel,300\n")
    assert unmet("Export budget.xlsx to a.csv", ["budget_2024.csv"], str(tmp_path),
                 ["budget.xlsx"]) is None  # no sheet named
    # the same model in interp --local (2026-11-28): a column of zeros named Total Amount
    (tmp_path / "budget_2024.csv").write_text("Total Amount\n0\n0\n")
    assert unmet(task, ["budget_2024.csv"], str(tmp_path), ["budget.xlsx"]) == (
        "Not done yet: budget_2024.csv is to hold the sheet 2024 of budget.xlsx as it is (its "
        "columns: Category, Amount), but it has the columns Total Amount: write that sheet's "
        "rows to budget_2024.csv. Fix the code and run it again.")
    summary = "Sum the 2024 sheet of budget.xlsx per category into totals.csv."
    assert unmet(summary, ["budget_2024.csv"], str(tmp_path), ["budget.xlsx"]) is None


@pytest.mark.fast
def test_numbers_written_as_text_are_named_when_the_task_asks_for_numbers(tmp_path):
    rows = [{"sku": "SKU-300", "quantity": "437", "price": "39.49", "code": "007"}]
    (tmp_path / "inventory.json").write_text(json.dumps(rows))
    assert unmet(JSON_TASK, ["inventory.json"], str(tmp_path)) == (
        "Not done yet: the task asks for quantity and price as "
        "numbers, but inventory.json has them as text (in quotes): convert them to numbers "
        "before writing the file. Fix the code and run it again.")
    rows[0].update(quantity=437, price=39.49)  # "code" is not named by the task
    (tmp_path / "inventory.json").write_text(json.dumps(rows))
    assert unmet(JSON_TASK, ["inventory.json"], str(tmp_path)) is None


@pytest.mark.fast
def test_files_the_task_says_nothing_of_or_cannot_be_read_pass(tmp_path):
    (tmp_path / "a.json").write_text('[{"quantity": "4"}]')
    (tmp_path / "broken.xlsx").write_text("not a zip")
    (tmp_path / "bad.json").write_text("{")
    assert unmet("Save the quantity to a.json.", ["a.json"], str(tmp_path)) is None
    assert unmet(XLSX_TASK, ["broken.xlsx", "gone.xlsx"], str(tmp_path)) is None
    assert unmet(JSON_TASK, ["bad.json", "a.csv"], str(tmp_path)) is None


@pytest.mark.fast
def test_values_a_cleaned_table_lost_are_named(tmp_path):
    """Qwen2.5-Coder-1.5B on cleaning-bad-types (2026-11-27): pd.to_numeric(errors='coerce')
    made "1,397.87" and "$1,299.00" empty, and it reported the average of the rest."""
    (tmp_path / "products.csv").write_text(
        'sku,price\nP100,"1,397.87"\nP101,618.69\nP102,n/a\nP103,\nP104,"$1,299.00"\n')
    (tmp_path / "products_clean.csv").write_text(
        "sku,price\nP100,\nP101,618.69\nP102,\nP103,\nP104,\n")
    task = "Make the price column of products.csv numeric and save it as products_clean.csv."
    note = unmet(task, ["products_clean.csv"], str(tmp_path), ["products.csv", "products_clean.csv"])
    assert note == ('Not done yet: price is empty in 2 rows of '
                    'products_clean.csv where products.csv has a number ("1,397.87", '
                    '"$1,299.00"): those values were lost, not converted (remove $ and , '
                    "before converting: with pandas, pd.to_numeric(df['price'].astype(str)"
                    ".str.replace('[$,]', '', regex=True), errors='coerce')). Fix the code "
                    'and run it again.')
    (tmp_path / "products_clean.csv").write_text(
        "sku,price\nP100,1397.87\nP101,618.69\nP102,\nP103,\nP104,1299.0\n")
    assert unmet(task, ["products_clean.csv"], str(tmp_path), ["products.csv"]) is None
    (tmp_path / "products_clean.csv").write_text("sku,price\nP101,618.69\n")  # rows dropped
    assert unmet(task, ["products_clean.csv"], str(tmp_path), ["products.csv"]) is None


@pytest.mark.fast
def test_gaps_a_fill_left_in_the_column_the_task_names_are_counted(tmp_path):
    """Qwen2.5-Coder-1.5B on cleaning-fill-missing (2026-11-28): its fillna changed a copy,
    and sensors_filled.csv kept all 12 gaps of sensors.csv."""
    (tmp_path / "sensors.csv").write_text("sensor,temperature,humidity\nS1,20,\nS1,,40\nS2,,41\n")
    (tmp_path / "sensors_filled.csv").write_text("sensor,temperature,humidity\nS1,20,\nS1,,40\nS2,,41\n")
    task = "Fill each missing temperature in sensors.csv and save it as sensors_filled.csv."
    check = lambda: unmet(task, ["sensors_filled.csv"], str(tmp_path), ["sensors.csv"])
    assert check() == ("Not done yet: sensors_filled.csv has 2 empty temperature cells where "
                       "sensors.csv had 2 empty: none of them was filled. Fix the code and run "
                       "it again.")  # humidity is not the task's
    (tmp_path / "sensors_filled.csv").write_text("sensor,temperature,humidity\nS1,20,\nS1,20,40\nS2,,41\n")
    assert check().startswith("Not done yet: sensors_filled.csv has 1 empty temperature cell where "
                              "sensors.csv had 2 empty: only 1 of them was filled.")
    (tmp_path / "sensors_filled.csv").write_text("sensor,temperature,humidity\nS1,20,\nS1,20,40\nS2,41,41\n")
    assert check() is None
    assert unmet("Save sensors.csv as sensors_filled.csv.", ["sensors_filled.csv"], str(tmp_path),
                 ["sensors.csv"]) is None  # gaps the task does not ask to fill


@pytest.mark.fast
def test_a_table_saved_unchanged_from_the_one_it_was_made_from_is_named(tmp_path):
    """Qwen2.5-Coder-1.5B on matrices-determinant-inverse (interp eval tasks, 7203d1a) saved
    the matrix it read to inverse.csv with np.savetxt."""
    (tmp_path / "matrix.csv").write_text("2,-1\n1,4\n")
    (tmp_path / "inverse.csv").write_text("2.000000000000000000e+00,-1.000000000000000000e+00\n"
                                          "1.000000000000000000e+00,4.000000000000000000e+00\n")
    task = "matrix.csv holds a 2x2 matrix. What is its determinant? Save its inverse to inverse.csv."
    assert unmet(task, ["inverse.csv"], str(tmp_path), ["matrix.csv"]) == (
        "Not done yet: inverse.csv holds the same values as matrix.csv, unchanged: the code "
        "saved the table it read, not one computed from it. Fix the code and run it again.")
    assert unmet("Copy matrix.csv to inverse.csv.", ["inverse.csv"], str(tmp_path),
                 ["matrix.csv"]) is None  # a copy is asked for
    (tmp_path / "inverse.csv").write_text("0.444,0.111\n-0.111,0.222\n")
    assert unmet(task, ["inverse.csv"], str(tmp_path), ["matrix.csv"]) is None


@pytest.mark.fast
def test_a_column_emptied_in_every_row_was_emptied_on_purpose(tmp_path):
    (tmp_path / "contacts.csv").write_text("name,phone\nAda,555-0101\nBo,555-0102\n")
    (tmp_path / "public.csv").write_text("name,phone\nAda,\nBo,\n")
    assert unmet("Blank the phone numbers of contacts.csv into public.csv.", ["public.csv"],
                 str(tmp_path), ["contacts.csv"]) is None


@pytest.mark.fast
def test_files_that_left_the_working_folder_are_named_unless_the_task_deletes(tmp_path):
    """Qwen2.5-Coder-1.5B on shell-organize-by-extension (2026-11-27) moved every file of
    downloads/ to a made-up folder outside the working folder, read "Files deleted: ..." and
    said the files were moved."""
    gone = [f"downloads/{name}" for name in ("archive.zip", "data.csv", "notes.txt",
                                             "photo.jpg", "report.pdf")]
    task = "Move the files in the downloads folder into subfolders named after their extension."
    assert unmet(task, [], str(tmp_path), [], gone) == (
        "Not done yet: 5 files left the working folder "
        "(downloads/archive.zip, downloads/data.csv, downloads/notes.txt, downloads/photo.jpg, "
        "…) and none were written in it: files moved elsewhere are no longer in the working "
        "folder, where the task's files are. Fix the code and run it again.")
    code = (f"source_dir = '{tmp_path}/downloads'\n"
            "destination_dir = '/tmp/interp-task-shell-organize-by-extension'")
    assert unmet(task, [], str(tmp_path), [], gone, code=code).endswith(
        "where the task's files are (the code names '/tmp/interp-task-shell-organize-by-"
        f"extension', outside the working folder {tmp_path}: use relative paths). Fix the code "
        "and run it again.")
    assert unmet("Delete the .tmp files in cache.", [], str(tmp_path), [], gone) is None
    assert unmet(task, ["downloads/zip/archive.zip"], str(tmp_path), [], gone) is None


def test_the_report_of_a_block_that_wrote_text_for_numbers_asks_to_fix_it(server, make_session):
    (make_session.work / "inventory.csv").write_text("sku,quantity,price\nSKU-300,437,39.49\n")
    wrote = py("import csv, json\nrows = list(csv.DictReader(open('inventory.csv')))\n"
               "json.dump(rows, open('inventory.json', 'w'))\nprint(len(rows))")
    server.script([wrote, "Done: 1 row."])
    events = run(make_session(server, tools="off"), JSON_TASK)
    assert [e["status"] for e in of(events, "block.finished")] == ["ok"]
    report = server.requests[1]["messages"][-1]["content"]
    assert report.endswith(
        "Not done yet: the task asks for quantity and price as numbers, but inventory.json has "
        "them as text (in quotes): convert them to numbers before writing the file. Fix the "
        "code and run it again.")


@pytest.mark.fast
def test_a_pivot_written_without_the_values_it_asks_as_columns_is_named(tmp_path):
    """Qwen2.5-Coder-1.5B on pivot-mean-grades (2026-11-27) saved a grouped Series with
    index=False: "9 rows × 1 column: grade"; it then answered the question right."""
    (tmp_path / "grades.csv").write_text("student,class,subject,grade\nA,Red,math,3\n"
                                         "B,Blue,art,4\nC,Red,science,5\n")
    (tmp_path / "grades_pivot.csv").write_text("grade\n3.0\n4.0\n5.0\n")
    task = ("From grades.csv, build a table of the average grade per class (rows) and subject "
            "(columns), rounded to one decimal, and save it to grades_pivot.csv.")
    assert unmet(task, ["grades_pivot.csv"], str(tmp_path), ["grades.csv", "grades_pivot.csv"]) == (
        "Not done yet: the task asks for the subject values as columns (math, art, science), "
        "but grades_pivot.csv has the columns grade (with pandas, df.pivot_table(index='class', "
        "columns='subject', values='grade', aggfunc='mean') has one column per subject); the "
        "task asks for the class values as rows (Red, Blue), but grades_pivot.csv does not hold "
        "them. Fix the code and run it again.")
    (tmp_path / "grades_pivot.csv").write_text("class,art,math,science\nBlue,4.0,,\nRed,,3.0,5.0\n")
    assert unmet(task, ["grades_pivot.csv"], str(tmp_path), ["grades.csv"]) is None
    quarters = "Make a pivot from grades.csv with the quarters as columns; save grades_pivot.csv."
    assert unmet(quarters, ["grades_pivot.csv"], str(tmp_path), ["grades.csv"]) is None  # no such column


@pytest.mark.fast
def test_a_pivot_written_without_its_rows_is_named(tmp_path):
    """Qwen2.5-Coder-1.5B on pivot-mean-grades (2026-11-28) made the pivot with pivot_table
    and saved it with to_csv(index=False): the classes were gone."""
    (tmp_path / "grades.csv").write_text("student,class,subject,grade\nA,Red,math,3\n"
                                         "B,Blue,art,4\n")
    (tmp_path / "grades_pivot.csv").write_text("art,math\n,3.0\n4.0,\n")
    task = "Build the average grade per class (rows) and subject (columns) in grades_pivot.csv."
    code = "pivot = df.pivot_table(index='class', columns='subject')\npivot.to_csv(out, index = False)"
    assert unmet(task, ["grades_pivot.csv"], str(tmp_path), ["grades.csv"], code=code) == (
        "Not done yet: the task asks for the class values as rows (Red, Blue), but "
        "grades_pivot.csv does not hold them: to_csv(index=False) leaves out the index, which "
        "holds them; save it with the index. Fix the code and run it again.")
    (tmp_path / "grades_pivot.csv").write_text("class,art,math\nRed,,3.0\nBlue,4.0,\n")
    assert unmet(task, ["grades_pivot.csv"], str(tmp_path), ["grades.csv"], code=code) is None


@pytest.mark.fast
def test_files_written_in_place_of_the_one_the_task_names_are_named(tmp_path):
    """Qwen2.5-Coder-1.5B on charts-market-share-pie (2026-11-27) drew a pie per company, to
    share_Acme.png, share_Globex.png..., and said so; share.png was never written."""
    pies = ["share_Acme.png", "share_Globex.png", "share_Hooli.png", "share_Initech.png",
            "share_Stark.png"]
    task = "Save a pie chart of each company's share of revenue in market.csv to share.png."
    assert unmet(task, pies, str(tmp_path), missing=["share.png"]) == (
        "Not done yet: the task asks for one file, share.png, which is still missing; the code "
        "wrote share_Acme.png, share_Globex.png, share_Hooli.png, share_Initech.png, … instead."
        " Fix the code and run it again.")
    assert unmet(task, ["plot.png"], str(tmp_path), missing=["share.png"]) is None


@pytest.mark.fast
def test_a_table_written_without_rows_from_one_with_rows_is_named(tmp_path):
    """Qwen2.5-Coder-1.5B on fixing-summary-keyerror (2026-11-28) skipped rows without a key
    "qty" (the file says quantity): totals.csv had no rows, "The grand total is 0."."""
    (tmp_path / "stock.csv").write_text("item,warehouse,quantity\nbolt,North,12\nnut,South,30\n")
    (tmp_path / "totals.csv").write_text("warehouse,total\n")
    task = "summary.py stops with a KeyError. Fix it and run it (it writes totals.csv)."
    assert unmet(task, ["totals.csv"], str(tmp_path), ["summary.py", "totals.csv"]) is None
    (tmp_path / "summary.py").write_text('import csv\nrows = csv.DictReader(open("stock.csv"))\n')
    assert unmet(task, ["totals.csv"], str(tmp_path), ["summary.py", "totals.csv"]) == (
        "Not done yet: totals.csv has no rows, while stock.csv has 2: the code skipped every "
        "row. Fix the code and run it again.")  # the table summary.py reads
    code = ('for row in csv.DictReader(handle):\n    if "warehouse" in row and "qty" in row:\n'
            '        totals[row["warehouse"]] += int(row.get("Qty", 0))')
    assert unmet(task, ["totals.csv"], str(tmp_path), ["summary.py"], code=code) == (
        "Not done yet: totals.csv has no rows, while stock.csv has 2: the code skipped every "
        "row (it looks up 'qty' and 'Qty', but stock.csv's columns are item, warehouse, "
        "quantity: quantity is the closest). Fix the code and run it again.")


def test_the_same_code_again_hears_what_is_still_wrong_not_to_answer(server, make_session):
    """Qwen2.5-Coder-1.5B on pivot-mean-grades (2026-11-28) ran its block again after the note
    on the pivot's columns; the repeat note then asked for its answer, and it answered."""
    (make_session.work / "inventory.csv").write_text("sku,quantity,price\nSKU-300,437,39.49\n")
    wrote = py("import csv, json\nrows = list(csv.DictReader(open('inventory.csv')))\n"
               "json.dump(rows, open('inventory.json', 'w'))\nprint(len(rows))")
    server.script([wrote, wrote, "Done: 1 row."])
    run(make_session(server, tools="off"), JSON_TASK)
    assert server.requests[2]["messages"][-1]["content"].endswith(
        "Note: this is the same code with the same output as your previous run. Not done yet: "
        "the task asks for quantity and price as numbers, but inventory.json has them as text "
        "(in quotes): convert them to numbers before writing the file. Fix the code and run it "
        "again.")


@pytest.mark.fast
def test_a_count_of_filled_values_the_files_contradict_is_checked(tmp_path):
    """Qwen2.5-Coder-1.5B on cleaning-fill-missing (2026-11-28): sensors_filled.csv filled all
    12 gaps, and the block printed "Number of values filled: 0" (it counted after filling);
    the model answered 0."""
    (tmp_path / "sensors.csv").write_text("sensor,temperature\nS1,20\nS1,\nS2,\nS2,22\n")
    (tmp_path / "sensors_filled.csv").write_text("sensor,temperature\nS1,20\nS1,20\nS2,22\nS2,22\n")
    task = ("Fill each missing temperature in sensors.csv, save it as sensors_filled.csv, and "
            "tell me how many values you filled.")
    check = lambda output, task=task: filled_count(task, ["sensors_filled.csv"], str(tmp_path),
                                                   ["sensors.csv"], output)
    warning = ("<block 2>:16: ChainedAssignmentError: A value is being set on a copy\n"
               "  df['temperature'].fillna(df['mean'], inplace=True)\n")
    assert check(warning + "Number of values filled: 0\n") == (
        "Checked against the files: the code filled 2 values (sensors.csv has 2 empty "
        'temperature cells; sensors_filled.csv has none). The printed "Number of values '
        'filled: 0" is wrong: it was counted after filling.')
    assert check("Filled 144 missing values\n").endswith('"Filled 144 missing values" is wrong.')
    assert check(warning + "Filled 2 missing values\n") is None
    assert check("Filled missing values with the mean 21.5\n") is None  # no count
    assert check("Missing values after filling: 0\n") is None  # what is left, not filled
    assert check("") is None
    assert check("Number of values filled: 0", "Save sensors.csv as sensors_filled.csv.") is None
    (tmp_path / "sensors_filled.csv").write_text("sensor,temperature\nS1,20\nS1,\nS2,22\nS2,22\n")
    assert check("Number of values filled: 0") is None  # a gap left: unmet says so
