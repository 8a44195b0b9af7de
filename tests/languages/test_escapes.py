"""What a full-screen program draws on the alternate screen is left out of a block's output
once the program closes that screen, as a terminal drops it, and one line says so; a screen
never closed is output as it came, so no program can hide its output by opening one
(languages/escapes.py: ScreenFilter)."""

from __future__ import annotations

import pytest

from languages.escapes import SCREEN_HOLD, SCREEN_NOTE, ScreenFilter

pytestmark = pytest.mark.fast


def _through(chunks: list[str]) -> str:
    screen = ScreenFilter()
    return "".join(screen.feed(chunk) for chunk in chunks) + screen.flush()


def test_a_closed_screen_is_left_out_and_said_so():
    drawn = ["Vim: Warning\n\x1b[?10", "49h\x1b[H~\n~\nType :qa\x1b", "[?1049lVim: Finished.\n"]
    assert _through(drawn) == f"Vim: Warning\n{SCREEN_NOTE}Vim: Finished.\n"
    assert _through(["before\x1b[?47h", "drawn", "\x1b[?47l after"]) == f"before{SCREEN_NOTE} after"
    assert _through(["a\x1b[?1049h\x1b[2J\x1b[?1049lb"]) == "ab"  # nothing drawn, nothing said


def test_a_screen_never_closed_or_too_large_to_hold_is_output_as_it_came():
    assert _through(["out\n\x1b[?1049h", "screen ~\n", "more\n"]) == "out\nscreen ~\nmore\n"
    big = "x" * (SCREEN_HOLD + 1)
    assert _through(["\x1b[?1049h", big, "\x1b[?1049l end"]) == big + " end"


def test_other_output_and_sequences_pass_unchanged():
    text = ["plain \x1b[31mred\x1b[0m \x1b[?25l", "cursor\x1b[?25h end\x1b"]
    assert _through(text) == "plain \x1b[31mred\x1b[0m \x1b[?25lcursor\x1b[?25h end\x1b"
