"""What a task says of a file it asks for, checked against the file a block wrote: the name of
a workbook's sheet ("with one sheet named Orders"), values wanted as numbers ("with the
quantity and the price as numbers"), a pivot's columns ("per class (rows) and subject
(columns)"), and values of the table it starts from that a cleaned copy lost ("$1,299.00"
made empty). Small models read "Files created: orders.xlsx (sheet
Sheet1)" and call the task done; a note that names the difference is one they act on. And
files that left the working folder when the task deletes none (moved to a made-up path)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from interp.core.file_formats import (UnreadableWorkbook, numbers_as_text, read_json,
                                      sheet_names)

# "sheet named Orders", "worksheet called 'Q1 sales'", "a tab titled Summary"
_SHEET = re.compile(r"\b(?:work)?(?:sheet|tab)\s+(?:named|called|titled)\s+"
                    r"(?:[\"'“‘`](?P<quoted>[^\"'”’`\n]{1,60})[\"'”’`]|(?P<word>[\w-]{1,60}))",
                    re.IGNORECASE)
_AS_NUMBERS = re.compile(r"\bas\s+(?:numbers|numeric(?:\s+values)?|integers|floats|"
                         r"numeric\s+types?)\b|\bnumeric\b", re.IGNORECASE)
# "per class (rows) and subject (columns)", "with the subjects as columns"
_AS_COLUMNS = re.compile(r"\b(\w+)\s*\(columns\)|\b(\w+)\s+as\s+(?:the\s+)?columns\b",
                         re.IGNORECASE)
PIVOT_VALUES = 50  # a column with more distinct values is no pivot's columns
SHOWN = 4  # names or values in one note
TABLE_BYTES = 1024 * 1024  # larger tables are not compared
_DIGIT = re.compile(r"\d")
_DELETES = re.compile(r"\b(?:delet|remov|clean|clear|eras|purg|prun|wip|trash|discard|rm\b)",
                      re.IGNORECASE)


def unmet(task: str, written: list[str], root: str, named: list[str] = (),
          deleted: list[str] = (), missing: list[str] = ()) -> str | None:
    """The note for files a block wrote (`written`, relative to `root`) that differ from what
    the task says of them, or lost values of a table it names (`named`), or that stand in for
    a file it names that is still `missing` (share_Acme.png, ... for share.png), or files it
    took out of the working folder (`deleted`, none written) where the task asks for no
    deletion; or None."""
    problems = []
    for wanted in missing:
        stem, suffix = Path(wanted).stem.casefold(), Path(wanted).suffix.casefold()
        instead = [name for name in written if Path(name).suffix.casefold() == suffix
                   and Path(name).stem.casefold().startswith(stem)]
        if instead:
            shown = ", ".join(instead[:SHOWN]) + (", …" if len(instead) > SHOWN else "")
            problems.append(f"the task asks for one file, {wanted}, which is still missing; the "
                            f"code wrote {shown} instead")
    if deleted and not written and not _DELETES.search(task):
        shown = ", ".join(deleted[:SHOWN]) + (", …" if len(deleted) > SHOWN else "")
        problems.append(f"{len(deleted)} file{'s' if len(deleted) != 1 else ''} left the working "
                        f"folder ({shown}) and none were written in it: files moved elsewhere "
                        f"are no longer in the working folder, where the task's files are")
    sheets = [m.group("quoted") or m.group("word") for m in _SHEET.finditer(task)]
    numbers = bool(_AS_NUMBERS.search(task))
    for name in written:
        path = Path(root, name)
        suffix = path.suffix.lower()
        if sheets and suffix in (".xlsx", ".xlsm"):
            problems += _sheet_problems(name, path, sheets)
        elif numbers and suffix == ".json":
            problems += _number_problems(name, path, task)
        elif suffix == ".csv":
            sources = [source for source in named if source != name
                       and source.lower().endswith(".csv") and source not in written]
            problems += [problem for source in sources
                         for problem in _lost_values(name, path, source, Path(root, source))]
            problems += _pivot_problems(name, path, task, [Path(root, s) for s in sources])
    if not problems:
        return None
    return ("Not done yet: " + "; ".join(problems)
            + ". Fix the code and run it again.")


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


def _lost_values(name: str, path: Path, source: str, source_path: Path) -> list[str]:
    """Columns of a written table left empty in some rows (not all) where the table it was
    made from (as many rows, the same column) held a number, perhaps among other characters."""
    written, before = _table(path), _table(source_path)
    if not written or not before or len(written) != len(before) or len(written) < 2:
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
                            f"were lost, not converted")
    return problems


def _table(path: Path) -> list[list[str]] | None:
    try:
        if path.stat().st_size > TABLE_BYTES:
            return None
        text = path.read_bytes().decode("utf-8", errors="replace")
        return [row for row in csv.reader(text.splitlines()) if row]
    except (OSError, csv.Error):
        return None


def _pivot_problems(name: str, path: Path, task: str, sources: list[Path]) -> list[str]:
    """A pivot the task wants with a column's values as its columns, written without them."""
    wanted = [a or b for a, b in _AS_COLUMNS.findall(task)]
    table = _table(path) if wanted else None
    if not table:
        return []
    header = {cell.strip().casefold() for cell in table[0]}
    for word in wanted:
        for source in sources:
            values = _column_values(source, word)
            if values and not header & {value.casefold() for value in values}:
                return [f"the task asks for the {word} values as columns "
                        f"({', '.join(values[:SHOWN])}{', …' if len(values) > SHOWN else ''}), "
                        f"but {name} has the columns {', '.join(table[0][:8])}"]
    return []


def _column_values(path: Path, word: str) -> list[str]:
    """The distinct values of the column of a table named `word` (or its singular), if few."""
    table = _table(path)
    if not table:
        return []
    names = [cell.strip().casefold() for cell in table[0]]
    for candidate in (word.casefold(), word.casefold().removesuffix("s")):
        if candidate in names:
            at = names.index(candidate)
            values = list(dict.fromkeys(row[at].strip() for row in table[1:]
                                        if at < len(row) and row[at].strip()))
            return values if len(values) <= PIVOT_VALUES else []
    return []
