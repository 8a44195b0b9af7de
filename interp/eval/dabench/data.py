"""InfiAgent-DABench's layout, read from a folder the user points at (`--data DIR`):
`da-dev-questions.jsonl`, `da-dev-labels.jsonl` and the tables in `da-dev-tables/`. The data's
licence keeps it out of interp; nothing here knows any question."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from interp.eval.data import DataError, _kind, read_rows

QUESTIONS = "da-dev-questions.jsonl"
LABELS = "da-dev-labels.jsonl"
TABLES = "da-dev-tables"
LEVELS = ("easy", "medium", "hard")
MAX_JSONL = 64 * 1024 * 1024  # bytes of either JSONL file (the dev set's are ~0.2 MB)


@dataclass(frozen=True)
class Question:
    """One question: what the model is asked, the table it is about, and the labelled
    answers (`(name, value)` pairs, as `@name[value]` in the final answer)."""

    id: str
    question: str
    constraints: str
    format: str
    file_name: str
    level: str
    labels: tuple[tuple[str, str], ...]
    table: Path  # the table's path in the data folder


def load_questions(folder: str | os.PathLike) -> list[Question]:
    """The labelled questions of a DABench folder, in file order; DataError naming the file and
    line for anything missing or malformed."""
    top = Path(folder).expanduser()
    if not top.is_dir():
        raise DataError(f"--data {folder}: not a folder (it should hold {QUESTIONS}, {LABELS} "
                        f"and {TABLES}/)")
    labels = {key: value for key, value, _ in _labels(_rows(top / LABELS))}
    tables = top / TABLES
    if not tables.is_dir():
        raise DataError(f"{tables}: missing (the folder of the questions' tables)")
    found: list[Question] = []
    seen: set[str] = set()
    for number, row in _rows(top / QUESTIONS):
        where = f"{top / QUESTIONS}:{number}"
        question = _question(row, where, labels, tables)
        if question.id in seen:
            raise DataError(f"{where}: id {question.id} appears twice")
        seen.add(question.id)
        found.append(question)
    if not found:
        raise DataError(f"{top / QUESTIONS} holds no questions")
    return found


def select(questions: list[Question], ids: tuple[str, ...] = (), levels: tuple[str, ...] = (),
           limit: int | None = None) -> list[Question]:
    """The questions `--ids`, `--level` and `--limit` pick, in file order; DataError for an id
    the data does not hold."""
    if ids:
        known = {q.id for q in questions}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise DataError(f"--ids: no question {', '.join(unknown)} in the data")
        questions = [q for q in questions if q.id in ids]
    if levels:
        questions = [q for q in questions if q.level in levels]
    return questions[:limit]


def _rows(path: Path) -> list[tuple[int, dict]]:
    """The rows of a JSONL file that is a regular file of bounded size."""
    try:
        info = path.stat()
    except OSError as exc:
        raise DataError(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise DataError(f"{path}: not a regular file")
    if info.st_size > MAX_JSONL:
        raise DataError(f"{path}: {info.st_size:,} bytes, more than the {MAX_JSONL:,} read")
    return read_rows(path)


def _labels(rows: list[tuple[int, dict]]):
    """(id, labels, line) of each label row."""
    for number, row in rows:
        answers = row.get("common_answers")
        if not isinstance(answers, list) or not answers or not all(
                isinstance(pair, list) and len(pair) == 2
                and all(isinstance(part, str) for part in pair) for pair in answers):
            raise DataError(f"{LABELS}:{number}: common_answers must be a list of [name, value] "
                            f"string pairs, not {_kind(answers)}")
        yield _id(row, f"{LABELS}:{number}"), tuple((n, v) for n, v in answers), number


def _id(row: dict, where: str) -> str:
    value = row.get("id")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise DataError(f"{where}: id must be a number or a string, not {_kind(value)}")
    return str(value)


def _question(row: dict, where: str, labels: dict, tables: Path) -> Question:
    key = _id(row, where)
    texts = {}
    for name in ("question", "constraints", "format", "file_name", "level"):
        value = row.get(name, "")
        if not isinstance(value, str):
            raise DataError(f"{where}: {name} must be a string, not {_kind(value)}")
        texts[name] = value.strip()
    if not texts["question"]:
        raise DataError(f"{where}: question {key} has no text")
    if texts["level"] not in LEVELS:
        raise DataError(f"{where}: level must be one of {', '.join(LEVELS)}, not "
                        f"{_kind(texts['level'])}")
    if key not in labels:
        raise DataError(f"{where}: question {key} has no label in {LABELS}")
    return Question(id=key, question=texts["question"], constraints=texts["constraints"],
                    format=texts["format"], file_name=texts["file_name"], level=texts["level"],
                    labels=labels[key], table=_table(texts["file_name"], tables, where))


def _table(name: str, tables: Path, where: str) -> Path:
    """The table a question names: a plain file name of a regular file in `tables`."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise DataError(f"{where}: file_name {_kind(name)} is not a plain file name")
    path = tables / name
    try:
        info = path.stat()
    except OSError:
        raise DataError(f"{where}: {path} does not exist") from None
    if not stat.S_ISREG(info.st_mode):
        raise DataError(f"{where}: {path} is not a regular file")
    return path
