"""Reading checkpoints and rewinds back from a session file (interp/checkpoints/history.py):
block numbers after a reset, the latest run of a number, what changed outside interp, what the
model was not told yet, and old files without any of it."""

from __future__ import annotations

import json

import pytest

from interp.checkpoints.capture import State
from interp.checkpoints.history import Mark, RewindMark, read_history, untold_notes
from interp.storage.replay import replay

pytestmark = pytest.mark.fast
A, B, C, D = ("a" * 40, "b" * 40, "c" * 40, "d" * 40)


def _line(kind: str, data: dict) -> dict:
    return {"type": "event", "ts": "t", "kind": kind, "data": data}


def _mark(block: int, stage: str, tree: str | None, **extra) -> dict:
    state = State(tree) if tree else None
    return _line("checkpoint", Mark(block, stage, "/w", state, **extra).to_dict())


def _task(text: str) -> dict:
    return {"type": "message", "message": {"role": "user", "content": text, "_task": True}}


def _write(tmp_path, lines: list[dict]):
    path = tmp_path / "s.jsonl"
    meta = {"type": "meta", "v": 1, "id": "s", "model": "m", "cwd": "/w"}
    path.write_text("\n".join(json.dumps(x) for x in [meta, *lines]) + "\n")
    return path


def test_points_blocks_and_what_the_model_was_not_told(tmp_path):
    rewind = RewindMark("/w", State(C), State(A), 1, restored=("x.txt",))
    path = _write(tmp_path, [
        _task("one"), _mark(1, "before", A, language="python"), _mark(1, "after", B),
        _mark(2, "before", C), _mark(2, "after", None, why="too slow"),
        _line("rewind", rewind.to_dict()), {"type": "reset"},
        _mark(1, "before", D), _line("checkpoint", {"block": "bad"}), "not json"])
    path.write_text(path.read_text().replace('"not json"', "{cut"))
    history = read_history(path)
    assert list(history.before) == [1] and history.before[1].state.tree == D
    assert history.rewinds == [rewind] and history.untold == [rewind]
    assert [p.state.tree for p in history.points] == [A, B, C, C, A, D]
    spans = history.spans(0)
    assert [(a.tree, b.tree, ours) for a, b, ours in spans] == [
        (A, B, True), (B, C, False), (C, C, False), (C, A, True), (A, D, False)]
    assert untold_notes(path) == [rewind.note()]
    assert "put back: x.txt" in rewind.note() and "before block 1" in rewind.note()


def test_a_task_after_a_rewind_means_the_model_was_told(tmp_path):
    rewind = RewindMark("/w", State(C), None, None)
    path = _write(tmp_path, [_line("rewind", rewind.to_dict()), _task("next")])
    assert read_history(path).untold == [] and untold_notes(path) == []
    assert untold_notes(tmp_path / "missing.jsonl") == []


def test_session_files_with_checkpoints_still_replay_and_old_ones_have_none(tmp_path):
    path = _write(tmp_path, [_task("one"), _mark(1, "before", A)])
    meta, messages, warnings = replay(path)
    assert [m.content for m in messages] == ["one"] and warnings == []
    old = _write(tmp_path, [_task("one")])
    history = read_history(old)
    assert history.root is None and history.before == {} and history.points == []
