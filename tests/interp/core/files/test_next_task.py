"""What the next task's message carries besides the words typed (interp/core/files/next_task.py)."""

from __future__ import annotations

import pytest

from helpers import drain

from interp.core import events as ev
from interp.core.files.next_task import NextTask


pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_notes_come_first_files_last_and_each_is_sent_once(tmp_path):
    (tmp_path / "prices.csv").write_text("day,price\n1,3\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    queued = NextTask(lambda: str(tmp_path))
    queued.notes.append("[interp: resumed]")
    assert "notes.txt" in queued.attach("notes.txt")
    previewed: list[str] = []
    events, text = drain(queued.message("sum prices.csv", True, previewed))
    assert text.startswith("[interp: resumed]\n\nsum prices.csv\n\nAttached files:\n\n")
    assert text.index("notes.txt") < text.index("prices.csv", len("[interp: resumed]\n\nsum prices.csv"))
    assert previewed == ["prices.csv"] and [type(e) for e in events] == [ev.Notice]
    assert drain(queued.message("again", True, previewed)) == ([], "again")
