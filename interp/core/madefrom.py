"""A written table against the table or sheet it was made from: rows it skipped (with the
keys the code looks up that the table lacks), values it lost ("$1,299.00" made empty), and a
sheet other than the one the task names."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from languages.python import abbreviates

from interp.core.file_formats import UnreadableWorkbook
from interp.core.workbooks import sheet_rows

SHOWN = 4  # names or values in one note
WORKBOOK_BYTES = 4 * 1024 * 1024  # of a workbook's parts, unpacked: larger ones are not read
_DIGIT = re.compile(r"\d")
_SYMBOLS = "$€£¥,%"  # around a number in a cell: currency, thousands separators, percent
_EXPORTS = re.compile(r"\b(?:export|convert|cop(?:y|ie))", re.IGNORECASE)  # a sheet as it is
_FILLS = re.compile(r"\b(?:fill|impute)", re.IGNORECASE)  # "Fill each missing value"
_FILLED = re.compile(r"\b(?:fill(?:ed|s)?|imputed?|missing|replaced)\b", re.IGNORECASE)
_LEFT = re.compile(r"\b(?:after|remain\w*|left|still|now)\b", re.IGNORECASE)  # gaps left
_COUNT = re.compile(r"(?<![\w.])\d+(?![\w]|\.\d)")  # a whole number in a line of output
_LOOKED_UP = re.compile(r"""\[\s*(["'])([\w ]{2,40})\1\s*\]|(["'])([\w ]{2,40})\3\s+in\s+\w"""
                        r"""|\.get\(\s*(["'])([\w ]{2,40})\5""")


def other_sheet(name: str, table: list[list[str]], task: str, root: str,
                named: list[str]) -> list[str]:
    """A written table that holds another sheet of a workbook the task names than the one
    sheet it names ("Export the 2024 sheet": pd.read_excel reads the first sheet, 2023)."""
    for book in named:
        if Path(book).suffix.lower() not in (".xlsx", ".xlsm"):
            continue
        try:
            sheets = sheet_rows(Path(root, book), WORKBOOK_BYTES)
        except (OSError, UnreadableWorkbook):
            continue
        wanted = [sheet for sheet in sheets if named_in(sheet, task)]
        if len(sheets) < 2 or len(wanted) != 1:
            continue
        cells = _cells(table)
        copied = [sheet for sheet, rows in sheets.items() if _cells(rows) == cells]
        if copied and wanted[0] not in copied:
            return [f"{name} holds the sheet {copied[0]} of {book}, not the sheet {wanted[0]} "
                    f"the task names (pd.read_excel reads the first sheet unless given "
                    f"sheet_name='{wanted[0]}')"]
        header = [str(cell).strip() for cell in (sheets[wanted[0]] or [[]])[0]]
        shared = {cell.casefold() for cell in header} & {c.strip().casefold() for c in table[0]}
        if not copied and header and not shared and _EXPORTS.search(task):
            return [f"{name} is to hold the sheet {wanted[0]} of {book} as it is (its columns: "
                    f"{shown(header)}), but it has the columns {shown(table[0])}: write that "
                    f"sheet's rows to {name}"]
    return []


def named_in(word: str, task: str) -> bool:
    """Whether the task names `word` (a sheet, a column) as a whole word, in any case."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", task, re.IGNORECASE) is not None


def _cells(rows: list[list[object]]) -> list[tuple[object, ...]]:
    """A table's rows for comparing one read from CSV with one from a sheet: numbers as
    numbers, blank rows left out."""
    return [tuple(_cell(value) for value in row) for row in rows
            if any(str(value).strip() for value in row)]


def _cell(value: object) -> object:
    try:
        return round(float(value), 6)
    except (TypeError, ValueError):
        return str(value).strip()


def empty_table(name: str, table: list[list[str]],
                made_from: list[tuple[str, list[list[str]]]], code: str) -> list[str]:
    """A written table with a header and no rows, made from a table of the task that has
    rows: the code skipped every row (`"qty" in row` where the file says quantity), with the
    keys the code looks up that the table lacks."""
    if not skipped_rows(table, made_from):
        return []
    for source, rows in made_from:
        if len(rows) > 1:
            return [f"{name} has no rows, while {source} has {len(rows) - 1:,}: the code "
                    f"skipped every row{_unknown_keys(code, source, rows[0])}"]
    return []


def _unknown_keys(code: str, source: str, header: list[str]) -> str:
    """How the code's keys differ from a table's columns (`header`), as the end of a note:
    the keys it looks up that are like a column but are not one."""
    unknown = unknown_keys(code, header)
    if not unknown:
        return ""
    columns = [column.strip() for column in header]
    looked = " and ".join(f"'{key}'" for key, _ in unknown[:2])
    return (f" (it looks up {looked}, but {source}'s columns are {shown(columns)}: "
            f"{unknown[0][1]} is the closest)")


def unknown_keys(code: str, header: list[str]) -> list[tuple[str, str]]:
    """The keys the code looks up (`row["qty"]`, `"qty" in row`, `.get("qty")`) that are not
    a column of `header` but like one, each with that column: [("qty", "quantity")]."""
    columns = [column.strip() for column in header]
    keys = [key for found in _LOOKED_UP.findall(code) for key in found[1::2] if key]
    return [(key, column) for key in dict.fromkeys(keys)
            if key not in columns and (column := _like(key, columns))]


def rekeyed(code: str, renames: list[tuple[str, str]]) -> str:
    """`code` with each quoted key ("qty", 'qty') as its column ("quantity")."""
    for key, column in renames:
        code = re.sub(rf"""(["']){re.escape(key)}\1""", lambda m: f"{m[1]}{column}{m[1]}", code)
    return code


def skipped_rows(table: list[list[str]], made_from: list[tuple[str, list[list[str]]]]) -> bool:
    """Whether a written table has a header and no rows while a table it was made from has
    rows (the code skipped every row)."""
    return len(table) == 1 and any(len(rows) > 1 for _, rows in made_from)


def _like(key: str, columns: list[str]) -> str | None:
    """The column a key stands for: a close spelling, or its abbreviation (qty: quantity)."""
    close = difflib.get_close_matches(key, columns, n=1, cutoff=0.6)
    if close:
        return close[0]
    return next((column for column in columns if abbreviates(key, column)), None)


def lost_values(name: str, written: list[list[str]], source: str,
                before: list[list[str]]) -> list[str]:
    """Columns of a written table left empty in some rows (not all) where the table it was
    made from (as many rows, the same column) held a number, perhaps among other characters."""
    if len(written) != len(before) or len(written) < 2:
        return []
    problems = []
    for column, header in enumerate(written[0]):
        if header not in before[0]:
            continue
        old = before[0].index(header)
        lost = [row_before[old] for row, row_before in zip(written[1:], before[1:])
                if column < len(row) and not row[column].strip() and old < len(row_before)
                and _DIGIT.search(row_before[old])]
        kept = any(column < len(row) and row[column].strip() for row in written[1:])
        if lost and kept:  # a column emptied on purpose loses every value
            shown = ", ".join(f'"{value.strip()[:30]}"' for value in lost[:SHOWN])
            problems.append(f"{header} is empty in {len(lost)} row{'s' if len(lost) != 1 else ''}"
                            f" of {name} where {source} has a number ({shown}): those values "
                            f"were lost, not converted{_stripping(header, lost)}")
    return problems


def unfilled(name: str, written: list[list[str]], source: str, before: list[list[str]],
             task: str) -> list[str]:
    """Empty cells of the table the task asks to fill that a written copy of it (as many
    rows) still has: "Fill the missing temperatures" whose fillna changed nothing."""
    problems = []
    for header, gaps, left in _fill_gaps(written, before, task):
        if left:
            filled = gaps - left
            done = ("none of them was" if not filled
                    else f"only {filled} of them {'was' if filled == 1 else 'were'}")
            problems.append(f"{name} has {left} empty {header} cell"
                            f"{'s' if left != 1 else ''} where {source} had {gaps} "
                            f"empty: {done} filled")
    return problems


def asks_to_fill(task: str) -> bool:
    """Whether a task asks to fill gaps ("Fill each missing value", "impute")."""
    return bool(_FILLS.search(task))


def miscounted(written: list[list[str]], source: str, before: list[list[str]], name: str,
               task: str, output: str) -> str | None:
    """The count of filled values a fill task's written table shows, where a line of the
    output states another ("Number of values filled: 0"), as a note; else None. The 1.5B
    model counted the gaps after filling them and answered 0."""
    counts = _fill_gaps(written, before, task)
    filled = sum(gaps for _, gaps, left in counts)
    if not filled or any(left for _, _, left in counts):
        return None
    for line in output.splitlines():
        line = line.strip()
        numbers = _COUNT.findall(line)
        if (not _FILLED.search(line) or not numbers or _LEFT.search(line)
                or line.startswith(("<", "File ")) or str(filled) in numbers):
            continue
        headers = " and ".join(header for header, gaps, _ in counts if gaps)
        why = ": it was counted after filling" if set(numbers) == {"0"} else ""
        return (f"Checked against the files: the code filled {filled} value"
                f"{'s' if filled != 1 else ''} ({source} has {filled} empty {headers} cell"
                f"{'s' if filled != 1 else ''}; {name} has none). The printed "
                f'"{line[:120]}" is wrong{why}.')
    return None


def _fill_gaps(written: list[list[str]], before: list[list[str]],
               task: str) -> list[tuple[str, int, int]]:
    """(column, empty cells in `before`, of them still empty in `written`) for each column a
    fill task names (or every column) that both tables have; [] when the task fills nothing or
    the tables differ in length."""
    if not asks_to_fill(task) or len(written) != len(before) or len(written) < 2:
        return []
    named = [header for header in before[0] if header.strip() and named_in(header.strip(), task)]
    counts = []
    for header in named or before[0]:
        if header not in written[0]:
            continue
        old, new = before[0].index(header), written[0].index(header)
        gaps = [i for i, row in enumerate(before[1:]) if old >= len(row) or not row[old].strip()]
        left = [i for i in gaps if new >= len(written[i + 1]) or not written[i + 1][new].strip()]
        counts.append((header, len(gaps), len(left)))
    return counts


def unchanged(name: str, written: list[list[str]], source: str, before: list[list[str]],
              task: str) -> list[str]:
    """A written table that holds the very values of the table it was made from (numbers
    compared as numbers: 2.000000000000000000e+00 is 2), where the task does not ask for a
    copy and the name is not the source's with more to it (sensors_filled.csv may be a copy of
    sensors.csv; inverse.csv of matrix.csv is not): the 1.5B model saved the matrix it read
    to inverse.csv, not its inverse."""
    if (_EXPORTS.search(task) or not written
            or Path(source).stem.casefold() in Path(name).stem.casefold()
            or _cells(written) != _cells(before)):
        return []
    return [f"{name} holds the same values as {source}, unchanged: the code saved the table "
            f"it read, not one computed from it"]


def _stripping(header: str, lost: list[str]) -> str:
    """How to keep lost values whose number sits among symbols ("$1,299.00"): the characters
    to remove first, with the pandas call; "" when they hold other text."""
    extra = sorted({char for value in lost for char in value.strip()
                    if not (char.isdigit() or char in ".-+")})
    if not extra or not all(char in _SYMBOLS for char in extra):
        return ""
    chars = "".join(extra)
    return (f" (remove {' and '.join(extra)} before converting: with pandas, "
            f"pd.to_numeric(df[{header!r}].astype(str).str.replace('[{chars}]', '', regex=True), "
            f"errors='coerce'))")


def shown(names: list[str]) -> str:
    return ", ".join(names[:SHOWN]) + (", …" if len(names) > SHOWN else "")
