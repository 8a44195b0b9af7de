"""The task benchmark's summary: rates over the tasks scored, model errors counted apart."""

from __future__ import annotations

import pytest

from interp.eval.tasks.results import TaskRecord, notes, summarize

pytestmark = pytest.mark.fast


def _record(task_id: str, right: bool, clean: bool, error: str | None = None) -> TaskRecord:
    return TaskRecord(task_id, "stats", "m", "a task", right=right, answered=clean, clean=clean,
                      exit_code=None if error else 0, reason="done", final_message="",
                      model_calls=0 if error else 2, error=error)


def test_a_model_error_is_no_wrong_answer():
    records = [_record("a", True, True), _record("b", True, False), _record("c", False, False),
               _record("d", False, False, error="Local model: the server stopped")]
    summary = summarize("m", records)
    assert (summary.tasks, summary.scored, summary.right, summary.clean) == (4, 3, 2, 1)
    assert (summary.right_pct, summary.clean_pct) == (66.7, 33.3)
    assert summary.categories == {"stats": {"tasks": 3, "right": 2, "clean": 1}}
    assert summary.exits == {"ok": 3, "model error": 1}
    assert "1 of 4 task(s) not scored: a model error (rerun to try them again)" in notes(summary)
