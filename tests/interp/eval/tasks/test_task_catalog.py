"""The task list: every category a few times, unique ids, deterministic inputs, something to check."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from interp.eval.tasks.catalog import TASKS
from interp.eval.tasks.spec import CATEGORIES

pytestmark = pytest.mark.fast


def test_about_thirty_tasks_covering_every_category():
    counts = Counter(t.category for t in TASKS)
    assert 30 <= len(TASKS) <= 40
    assert set(counts) == set(CATEGORIES) and min(counts.values()) >= 2


def test_ids_are_unique_and_sentences_read_like_a_user_wrote_them():
    assert len({t.id for t in TASKS}) == len(TASKS)
    for task in TASKS:
        assert re.fullmatch(r"[a-z0-9-]+", task.id) and task.id.startswith(task.category)
        assert 10 < len(task.sentence) < 260 and "\n" not in task.sentence


def test_every_task_checks_something_and_has_a_right_and_a_wrong_reference():
    for task in TASKS:
        assert task.answer or task.files, task.id
        assert task.right and task.wrong and task.right.code != task.wrong.code, task.id


def _snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_inputs_are_the_same_on_every_run(tmp_path):
    for task in TASKS:
        first, second = tmp_path / task.id / "a", tmp_path / task.id / "b"
        first.mkdir(parents=True)
        second.mkdir()
        task.make(first)
        task.make(second)
        assert _snapshot(first) == _snapshot(second), task.id
