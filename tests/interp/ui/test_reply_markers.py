"""The reply as shown in the terminal: each runnable block becomes a marker with the session's
block number and the language as the panel names it; the text after it starts its own line."""

from __future__ import annotations

import pytest

from io import StringIO

from rich.console import Console

from interp.core import events as ev
from interp.ui.render import Renderer

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


REPLY = ("Let me look.\n```bash\nls -la | head -3\n```\nThis will display the files.\n"
         "```json\n{\"a\": 1}\n```\n```py\nprint(1)\n```\nDone.")


def shown(events: list[ev.Event]) -> str:
    out = StringIO()
    renderer = Renderer(Console(file=out, width=80, color_system=None))
    for item in events:
        renderer.handle(item)
    return out.getvalue()


def test_markers_carry_the_session_numbers_and_the_panel_language():
    text = shown([
        ev.event(ev.MESSAGE, role="assistant", text=REPLY, final=False,
                 blocks=[{"index": 7, "language": "shell"}, {"index": 8, "language": "python"}]),
        ev.event(ev.BLOCK_PROPOSED, index=7, language="shell", code="ls -la | head -3"),
    ])
    lines = [line.strip() for line in text.splitlines()]
    assert "▶ shell block 7, shown below" in lines and "▶ python block 8, shown below" in lines
    assert "This will display the files." in lines  # its own line, not glued to the marker
    assert lines.index("▶ shell block 7, shown below") < lines.index("This will display the files.")
    assert '{"a": 1}' in text  # display-only blocks are shown as they are
    assert "bash block" not in text and "ls -la" in text.split("▶ python")[-1]  # in the panel
    assert "shell block 7 ─" in text  # the panel title


def test_without_numbered_blocks_fenced_code_is_shown_as_code():
    """A reply whose blocks are tool calls: its fenced code is an example, not a block."""
    text = shown([ev.event(ev.MESSAGE, role="assistant", text=REPLY, final=False, blocks=[])])
    assert "▶" not in text and "ls -la | head -3" in text and "print(1)" in text
