"""DABench's folder layout read with one clear line for whatever is missing or malformed."""

from __future__ import annotations

import json
import os

import pytest

from dabench_kit import LABELS, QUESTIONS, write_data
from interp.eval.dabench.data import load_questions, select
from interp.eval.data import DataError

pytestmark = pytest.mark.fast


def test_questions_come_with_their_labels_and_tables(tmp_path):
    questions = load_questions(write_data(tmp_path / "d"))
    assert [(q.id, q.level, q.file_name) for q in questions] == [
        ("1", "easy", "shop.csv"), ("2", "medium", "shop.csv"), ("7", "hard", "city temps.csv")]
    assert questions[1].labels == (("count", "2"), ("total", "11.5"))
    assert questions[2].table == tmp_path / "d" / "da-dev-tables" / "city temps.csv"
    assert questions[0].constraints == "Use all rows. Round to two decimal places."


def test_ids_levels_and_limit_pick_in_file_order(tmp_path):
    questions = load_questions(write_data(tmp_path / "d"))
    assert [q.id for q in select(questions, ids=("7", "1"))] == ["1", "7"]
    assert [q.id for q in select(questions, levels=("medium", "hard"))] == ["2", "7"]
    assert [q.id for q in select(questions, limit=2)] == ["1", "2"]
    with pytest.raises(DataError, match="no question 9 in the data"):
        select(questions, ids=("9",))


@pytest.mark.parametrize("change, message", [
    (lambda d: (d / "da-dev-labels.jsonl").unlink(), "da-dev-labels.jsonl: No such file"),
    (lambda d: (d / "da-dev-questions.jsonl").write_text('{"id": 1,\n'), ":1: not JSON"),
    (lambda d: (d / "da-dev-questions.jsonl").write_text("[1]\n"), "a problem is a JSON object"),
    (lambda d: (d / "da-dev-labels.jsonl").write_text(json.dumps(LABELS[0]) + "\n"),
     "question 2 has no label"),
    (lambda d: (d / "da-dev-labels.jsonl").write_text('{"id": 1, "common_answers": "x"}\n'),
     "common_answers must be a list of [name, value] string pairs"),
    (lambda d: (d / "da-dev-tables" / "shop.csv").unlink(), "shop.csv does not exist"),
    (lambda d: os.mkfifo(d / "da-dev-tables" / "fifo.csv"), "fifo.csv is not a regular file"),
    (lambda d: os.mkfifo(d / "da-dev-labels.jsonl.fifo") or os.replace(
        d / "da-dev-labels.jsonl.fifo", d / "da-dev-labels.jsonl"), "not a regular file"),
])
def test_a_broken_folder_is_one_line_naming_what(tmp_path, change, message):
    folder = write_data(tmp_path / "d", questions=[*QUESTIONS, {
        **QUESTIONS[0], "id": 8, "file_name": "fifo.csv"}] if "fifo.csv" in message else QUESTIONS,
        labels=[*LABELS, {"id": 8, "common_answers": [["a", "1"]]}])
    change(folder)
    with pytest.raises(DataError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_questions(folder)


@pytest.mark.parametrize("name", ["../secret.csv", "/etc/passwd", "..", "", "a/b.csv"])
def test_a_file_name_outside_the_tables_folder_is_refused(tmp_path, name):
    folder = write_data(tmp_path / "d", questions=[{**QUESTIONS[0], "file_name": name}],
                        labels=LABELS[:1])
    with pytest.raises(DataError, match="is not a plain file name"):
        load_questions(folder)


def test_a_level_outside_the_three_and_a_duplicate_id_are_refused(tmp_path):
    folder = write_data(tmp_path / "d", questions=[{**QUESTIONS[0], "level": "expert"}],
                        labels=LABELS[:1])
    with pytest.raises(DataError, match="level must be one of easy, medium, hard"):
        load_questions(folder)
    folder = write_data(tmp_path / "e", questions=[QUESTIONS[0], QUESTIONS[0]], labels=LABELS[:1])
    with pytest.raises(DataError, match="id 1 appears twice"):
        load_questions(folder)


def test_a_path_that_is_no_folder_says_what_it_should_hold(tmp_path):
    with pytest.raises(DataError, match="not a folder .*da-dev-questions.jsonl"):
        load_questions(tmp_path / "missing")
