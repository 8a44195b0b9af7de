"""A failed block mended in one place: which statement a traceback's line belongs to, and the
block with the model's lines put in its place."""

from __future__ import annotations

import pytest

from interp.core.replies.patch import patch_target

pytestmark = pytest.mark.fast


def put(patch, lines):
    done = patch.put(lines)
    return done and done.code

LOOP = ("rows = [1, 2, 0]\n"
        "for row in rows:\n"
        "    share = 10 / row\n"
        "    print(share)\n")


def test_the_statement_of_the_failing_line_is_replaced_indented_as_it_was():
    patch = patch_target("python", LOOP, 1, 3)
    assert (patch.first, patch.last, patch.lines()) == (3, 3, "line 3")
    assert put(patch, "share = 10 / row if row else 0") == (
        "rows = [1, 2, 0]\nfor row in rows:\n    share = 10 / row if row else 0\n"
        "    print(share)\n")


def test_several_lines_replace_one_and_keep_their_own_indentation():
    patch = patch_target("python", LOOP, 1, 3)
    lines = "    if row == 0:\n        continue\n    share = 10 / row"
    assert put(patch, lines).splitlines()[2:5] == [
        "    if row == 0:", "        continue", "    share = 10 / row"]


def test_a_statement_over_several_lines_is_replaced_whole():
    code = "total = sum([\n    1,\n    'a',\n])\nprint(total)\n"
    patch = patch_target("python", code, 2, 2)
    assert patch.lines() == "lines 1-4"
    assert put(patch, "total = 1") == "total = 1\nprint(total)\n"


def test_a_line_that_does_not_parse_is_the_statement_when_the_rest_parses_without_it():
    code = ("r = 0.2\n"
            "print(f\"kind[{r > 0.5 and 'a' if r < 0.5 and 'b'}]\")\n"
            "print(r)\n")
    patch = patch_target("python", code, 1, 2)
    assert (patch.first, patch.last) == (2, 2)
    fixed = put(patch, "kind = 'a' if r > 0.5 else 'b'\nprint(f\"kind[{kind}]\")")
    assert fixed.splitlines() == ["r = 0.2", "kind = 'a' if r > 0.5 else 'b'",
                                  "print(f\"kind[{kind}]\")", "print(r)"]


def test_no_target_for_a_header_a_broken_block_elsewhere_or_another_language():
    assert patch_target("python", LOOP, 1, 2) is None  # the loop's own line
    broken = "def f(:\n    return 1\nprint(f()\n"
    assert patch_target("python", broken, 1, 3) is None  # does not parse without line 3 either
    assert patch_target("shell", "ls /nowhere\n", 1, 1) is None
    assert patch_target("python", LOOP, 1, 9) is None


def test_a_whole_block_or_nothing_is_not_put_in():
    patch = patch_target("python", LOOP, 1, 3)
    whole = LOOP.replace("10 / row", "10 / row if row else 0")
    assert put(patch, whole) is None  # taken as the model wrote it
    assert put(patch, "\n  \n") is None
    wrong = put(patch, "share = 10 / row if row")  # the model's own error, where it is
    assert wrong.splitlines()[2] == "    share = 10 / row if row"
