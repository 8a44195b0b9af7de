"""What both `interp eval` commands share: the local model's load lines end with the last line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from interp.eval.setup import LoadLines

pytestmark = pytest.mark.fast


def test_load_lines_stop_at_the_commands_last_line(capsys):
    """CI, 2026-11-28: a worker thread started the broken model's load again after `interp
    eval` had written its last line, and "Loading the local model broken.gguf..." came last."""
    lines = LoadLines()
    lines(SimpleNamespace(phase="loading", text="Loading the local model a.gguf", seconds=0.0))
    lines(SimpleNamespace(phase="ready", text="Local model a.gguf ready", seconds=2.5))
    lines.last("no problem reached the model")
    lines(SimpleNamespace(phase="loading", text="Loading the local model a.gguf", seconds=0.0))
    lines.last("twice")
    assert capsys.readouterr().err.splitlines() == [
        "interp eval: Loading the local model a.gguf...",
        "interp eval: Local model a.gguf ready (loaded in 2.5 s)",
        "interp eval: no problem reached the model"]
