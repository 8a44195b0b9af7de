"""The alternate screen a full-screen program draws on is dropped from a block's output, as
a terminal drops it when the program leaves (languages/escapes.py: ScreenFilter)."""

from __future__ import annotations

import pytest

from languages.escapes import ScreenFilter

pytestmark = pytest.mark.fast


def _through(chunks: list[str]) -> str:
    screen = ScreenFilter()
    return "".join(screen.feed(chunk) for chunk in chunks) + screen.flush()


def test_what_is_drawn_on_the_alternate_screen_goes_when_the_program_leaves_it():
    drawn = ["Vim: Warning\n\x1b[?1006h\x1b[?10", "49h\x1b[H~\n~\nType :qa\x1b", "[?1049lVim: Finished.\n"]
    assert _through(drawn) == "Vim: Warning\n\x1b[?1006hVim: Finished.\n"
    assert _through(["before\x1b[?47h", "drawn", "\x1b[?47l after"]) == "before after"


def test_a_program_killed_on_the_alternate_screen_leaves_nothing_after_it():
    assert _through(["out\n\x1b[?1049h", "screen ~\n", "more ~\x1b"]) == "out\n"


def test_other_output_and_sequences_pass_unchanged():
    text = ["plain \x1b[31mred\x1b[0m \x1b[?25l", "cursor\x1b[?25h end\x1b"]
    assert _through(text) == "plain \x1b[31mred\x1b[0m \x1b[?25lcursor\x1b[?25h end\x1b"
