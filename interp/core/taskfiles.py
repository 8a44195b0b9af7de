"""What a task says of a file it asks for, checked against the file a block wrote: the name of
a workbook's sheet ("with one sheet named Orders"), values wanted as numbers ("with the
quantity and the price as numbers"), a pivot's columns ("per class (rows) and subject
(columns)"), rows and values of the table or sheet it was made from that a copy lost
("$1,299.00" made empty: madefrom.py), files written in place of the one it names, and files that left the working folder
when it deletes none. Small models read "Files created: orders.xlsx (sheet Sheet1)" and call
the task done; a note that names the difference is one they act on."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from interp.core.bounded import read_head
from interp.core.file_formats import (UnreadableWorkbook, numbers_as_text, read_json,
                                      sheet_names, table_rows)
from interp.core.madefrom import (SHOWN, asks_to_fill, empty_table, lost_values, miscounted,
                                   other_sheet, rekeyed, shown, skipped_rows, unchanged,
                                   unfilled, unknown_keys)
from interp.core.savedscripts import RUN_WITH

# "sheet named Orders", "worksheet called 'Q1 sales'", "a tab titled Summary"
_SHEET = re.compile(r"\b(?:work)?(?:sheet|tab)\s+(?:named|called|titled)\s+"
                    r"(?:[\"'“‘`](?P<quoted>[^\"'”’`\n]{1,60})[\"'”’`]|(?P<word>[\w-]{1,60}))",
                    re.IGNORECASE)
_AS_NUMBERS = re.compile(r"\bas\s+(?:numbers|numeric(?:\s+values)?|integers|floats|"
                         r"numeric\s+types?)\b|\bnumeric\b", re.IGNORECASE)
# "per class (rows) and subject (columns)", "with the subjects as columns"
_AS_COLUMNS = re.compile(r"\b(\w+)\s*\(columns\)|\b(\w+)\s+as\s+(?:the\s+)?columns\b",
                         re.IGNORECASE)
_ABSOLUTE = re.compile(r"""["'](/[^"'\n]{1,200})["']""")  # a quoted absolute path
_CSV_NAME = re.compile(r"[\w./-]+\.csv\b")
# a key the code looks up: row["qty"], "qty" in row, row.get("qty")
SCRIPT_CHARS = 100_000  # bytes of a named script searched for the tables it reads
_AS_ROWS = re.compile(r"\b(\w+)\s*\(rows\)|\b(\w+)\s+as\s+(?:the\s+)?rows\b", re.IGNORECASE)
AGGREGATES = {"average": "mean", "mean": "mean", "total": "sum", "sum": "sum", "count": "count",
              "number of": "count", "max": "max", "highest": "max", "min": "min", "lowest": "min"}
PIVOT_VALUES = 50  # a column with more distinct values is no pivot's columns
TABLE_BYTES = 1024 * 1024  # larger tables are not compared
_DELETES = re.compile(r"\b(?:delet|remov|clean|clear|eras|purg|prun|wip|trash|discard|rm\b)",
                      re.IGNORECASE)


def unmet(task: str, written: list[str], root: str, named: list[str] = (),
          deleted: list[str] = (), missing: list[str] = (), code: str = "",
          found: list[str] = ()) -> str | None:
    """The note for files a block wrote (`written`, relative to `root`) that differ from what
    the task says of them, or lost values of a table it names (`named`), or that stand in for
    a file it names that is still `missing` (share_Acme.png, ... for share.png), or files it
    took out of the working folder (`deleted`, none written) where the task asks for no
    deletion; or None. `code`: what ran, searched for keys a table does not have; `found`:
    problems already found in what ran, put first."""
    problems = list(found)
    for wanted in missing:
        stem, suffix = Path(wanted).stem.casefold(), Path(wanted).suffix.casefold()
        instead = [name for name in written if Path(name).suffix.casefold() == suffix
                   and Path(name).stem.casefold().startswith(stem)]
        if instead:
            problems.append(f"the task asks for one file, {wanted}, which is still missing; the "
                            f"code wrote {shown(instead)} instead")
    if deleted and not written and not _DELETES.search(task):
        problems.append(f"{len(deleted)} file{'s' if len(deleted) != 1 else ''} left the working "
                        f"folder ({shown(deleted)}) and none were written in it: files moved "
                        f"elsewhere are no longer in the working folder, where the task's files "
                        f"are{_outside(code, root)}")
    sheets = [m.group("quoted") or m.group("word") for m in _SHEET.finditer(task)]
    numbers = bool(_AS_NUMBERS.search(task))
    tables = _Tables(root)
    sources = _tables_of(named, root) if any(n.lower().endswith(".csv") for n in written) else []
    for name in written:
        path = Path(root, name)
        suffix = path.suffix.lower()
        if sheets and suffix in (".xlsx", ".xlsm"):
            problems += _sheet_problems(name, path, sheets)
        elif numbers and suffix == ".json":
            problems += _number_problems(name, path, task)
        elif suffix == ".csv" and (table := tables.read(name)):
            made_from = _made_from(name, written, sources, tables)
            problems += empty_table(name, table, made_from, code)
            problems += [problem for source, rows in made_from
                         for problem in (*lost_values(name, table, source, rows),
                                         *unfilled(name, table, source, rows, task),
                                         *unchanged(name, table, source, rows, task))]
            problems += _pivot_problems(name, table, task, [rows for _, rows in made_from])
            problems += _pivot_rows(name, table, task, [rows for _, rows in made_from], code)
            problems += other_sheet(name, table, task, root, named)
    if not problems:
        return None
    return ("Not done yet: " + "; ".join(problems)
            + ". Fix the code and run it again.")


def filled_count(task: str, written: list[str], root: str, named: list[str],
                 output: str) -> str | None:
    """The note on a count of filled values that `output` states and the written tables of a
    fill task contradict (madefrom.miscounted), or None."""
    if not asks_to_fill(task):  # the tables are read only for a fill task
        return None
    tables = _Tables(root)
    sources = _tables_of(named, root)
    for name in written:
        if name.lower().endswith(".csv") and (table := tables.read(name)):
            for source, rows in _made_from(name, written, sources, tables):
                if note := miscounted(table, source, rows, name, task, output):
                    return note
    return None


def rekeyed_code(code: str, written: list[str], root: str,
                 named: list[str]) -> tuple[str, str] | None:
    """(how, code): `code` with the keys it looks up that a table the task names calls
    otherwise ("qty" for quantity) as that table's columns, where a CSV file it wrote skipped
    every row of that table; else None."""
    tables = _Tables(root)
    sources = _tables_of(named, root)
    for name in written:
        if not name.lower().endswith(".csv") or not (table := tables.read(name)):
            continue
        made_from = _made_from(name, written, sources, tables)
        if not skipped_rows(table, made_from):
            continue
        for _, rows in made_from:
            if renames := unknown_keys(code, rows[0]):
                how = ", ".join(f"'{column}' for '{key}'" for key, column in renames)
                return f"with {how}", rekeyed(code, renames).strip()
    return None


def _made_from(name: str, written: list[str], sources: list[str],
               tables: _Tables) -> list[tuple[str, list[list[str]]]]:
    """The tables of `sources` that the written table `name` may be made from, with their rows."""
    return [(source, rows) for source in sources if source != name and source not in written
            and (rows := tables.read(source))]


def _outside(code: str, root: str) -> str:
    """The absolute folders the code names outside the working folder, as the end of a note."""
    inside = Path(root).resolve()
    named = [path for path in dict.fromkeys(_ABSOLUTE.findall(code))
             if not path.startswith(("/dev/", "/proc/"))
             and not Path(path).resolve().is_relative_to(inside)]
    if not named:
        return ""
    paths = " and ".join(f"'{path}'" for path in named[:2])
    return f" (the code names {paths}, outside the working folder {root}: use relative paths)"


def _sheet_problems(name: str, path: Path, wanted: list[str]) -> list[str]:
    try:
        found = sheet_names(path)
    except (OSError, UnreadableWorkbook):
        return []
    lower = {sheet.casefold() for sheet in found}
    missing = [sheet for sheet in wanted if sheet.casefold() not in lower]
    if not missing:
        return []
    has = ", ".join(found[:SHOWN]) or "no sheets"
    return [f"the task asks for a sheet named {missing[0]}, but {name} has "
            f"{'the sheet' if len(found) == 1 else 'the sheets'} {has}"]


def _number_problems(name: str, path: Path, task: str) -> list[str]:
    try:
        texts = numbers_as_text(read_json(path))
    except (OSError, ValueError):
        return []
    named = [key for key in texts if re.search(rf"\b{re.escape(str(key))}\b", task, re.IGNORECASE)]
    if not named:
        return []
    keys = [str(key) for key in named[:SHOWN]]
    keys = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} and {keys[-1]}"
    return [f"the task asks for {keys} as numbers, but {name} has them as text (in quotes): "
            f"convert them to numbers before writing the file"]


def _tables_of(named: list[str], root: str) -> list[str]:
    """The CSV files the task names, and those its named scripts read (summary.py opens
    stock.csv), that exist."""
    tables = [name for name in named if name.lower().endswith(".csv")]
    for name in named:
        if Path(name).suffix.lower() in RUN_WITH:
            try:
                text = read_head(Path(root, name), SCRIPT_CHARS).data.decode("utf-8", "replace")
            except OSError:
                continue
            tables += [found for found in dict.fromkeys(_CSV_NAME.findall(text))
                       if found not in tables and Path(root, found).is_file()]
    return tables


class _Tables:
    """The CSV tables of the working folder, each read once (None: too large or unreadable)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._read: dict[str, list[list[str]] | None] = {}

    def read(self, name: str) -> list[list[str]] | None:
        if name not in self._read:
            path = Path(self.root, name)
            try:
                self._read[name] = table_rows(path, limit=TABLE_BYTES) or None
            except (OSError, csv.Error):  # TooLarge too
                self._read[name] = None
        return self._read[name]


def _pivot_problems(name: str, table: list[list[str]], task: str,
                    sources: list[list[list[str]]]) -> list[str]:
    """A pivot the task wants with a column's values as its columns, written without them."""
    wanted = [a or b for a, b in _AS_COLUMNS.findall(task)]
    header = {cell.strip().casefold() for cell in table[0]}
    for word in wanted:
        for source in sources:
            column = _column(source[0], word)
            values = _column_values(source, column)
            if values and not header & {value.casefold() for value in values}:
                return [f"the task asks for the {word} values as columns ({shown(values)}), "
                        f"but {name} has the columns {', '.join(table[0][:8])}"
                        + _pivot_call(task, source[0], column)]
    return []


def _pivot_rows(name: str, table: list[list[str]], task: str,
                sources: list[list[list[str]]], code: str) -> list[str]:
    """A table the task wants with a column's values as its rows, written without them (a
    pivot saved with to_csv(index=False) loses its index, which holds them)."""
    cells = {cell.strip().casefold() for row in table for cell in row}
    for word in (a or b for a, b in _AS_ROWS.findall(task)):
        for source in sources:
            values = _column_values(source, _column(source[0], word))
            if values and not cells & {value.casefold() for value in values}:
                why = (": to_csv(index=False) leaves out the index, which holds them; save it "
                       "with the index" if "index=False" in code.replace(" ", "") else "")
                return [f"the task asks for the {word} values as rows ({shown(values)}), but "
                        f"{name} does not hold them{why}"]
    return []


def _column(header: list[str], word: str) -> str | None:
    """The column of a header named `word` or its singular ("subjects": subject), or None."""
    names = {cell.strip().casefold(): cell.strip() for cell in header}
    return names.get(word.casefold()) or names.get(word.casefold().removesuffix("s"))


def _column_values(table: list[list[str]], column: str | None) -> list[str]:
    """The distinct values of a table's column, if few (else none: no pivot's columns)."""
    if column is None:
        return []
    at = [cell.strip() for cell in table[0]].index(column)
    values = list(dict.fromkeys(row[at].strip() for row in table[1:]
                                if at < len(row) and row[at].strip()))
    return values if len(values) <= PIVOT_VALUES else []


def _pivot_call(task: str, header: list[str], columns: str) -> str:
    """How pandas makes the pivot, when the task names its rows and a column of values:
    ": df.pivot_table(index='class', columns='subject', values='grade', aggfunc='mean')"."""
    rows = next((_column(header, a or b) for a, b in _AS_ROWS.findall(task)
                 if _column(header, a or b)), None)
    values = [cell.strip() for cell in header if cell.strip() not in (rows, columns)
              and re.search(rf"\b{re.escape(cell.strip())}s?\b", task, re.IGNORECASE)]
    if rows is None or len(values) != 1:
        return ""
    how = next((f for word, f in AGGREGATES.items() if re.search(rf"\b{word}", task, re.I)),
               "mean")
    return (f" (with pandas, df.pivot_table(index={rows!r}, columns={columns!r}, "
            f"values={values[0]!r}, aggfunc={how!r}) has one column per {columns})")
