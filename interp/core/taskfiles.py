"""What a task says of a file it asks for, checked against the file a block wrote: the name of
a workbook's sheet ("with one sheet named Orders") and values wanted as numbers ("with the
quantity and the price as numbers"). Small models read "Files created: orders.xlsx (sheet
Sheet1)" and call the task done; a note that names the difference is one they act on."""

from __future__ import annotations

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
SHOWN = 4  # names in one note


def unmet(task: str, written: list[str], root: str) -> str | None:
    """The note for files a block wrote (`written`, relative to `root`) that differ from what
    the task says of them, or None."""
    problems = []
    sheets = [m.group("quoted") or m.group("word") for m in _SHEET.finditer(task)]
    numbers = bool(_AS_NUMBERS.search(task))
    for name in written:
        path = Path(root, name)
        suffix = path.suffix.lower()
        if sheets and suffix in (".xlsx", ".xlsm"):
            problems += _sheet_problems(name, path, sheets)
        elif numbers and suffix == ".json":
            problems += _number_problems(name, path, task)
    if not problems:
        return None
    return ("The file does not match the task yet: " + "; ".join(problems)
            + ". Fix the code that writes it and run it again.")


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
