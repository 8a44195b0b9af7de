"""The typed records a runner yields: a rewrite of a failing line, read from a status line."""

from __future__ import annotations

import pytest

from languages.records import LineFix

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

CODE = "rows = load()\nfor row in rows:\n    total += int(row['qty'])\n"
FIX = {"file": "<block 2>", "line": 3, "was": "total += int(row['qty'])",
       "reads": "total += int(row['quantity'])"}


def test_a_rewrite_keeps_the_lines_indentation():
    fix = LineFix.from_dict(FIX)
    assert fix.applied(CODE, "<block 2>") == (
        "rows = load()\nfor row in rows:\n    total += int(row['quantity'])")


@pytest.mark.parametrize("file, code", [
    ("<block 1>", CODE),  # the failing frame was in another block's function
    ("<block 2>", CODE.replace("'qty'", "'amount'")),  # not the line that ran
    ("<block 2>", "rows = load()\n"),  # no such line
])
def test_a_rewrite_of_another_line_is_not_applied(file, code):
    assert LineFix.from_dict(FIX).applied(code, file) is None


@pytest.mark.parametrize("raw", [None, "line 3", {**FIX, "line": "3"}, {**FIX, "line": 0},
                                 {**FIX, "reads": FIX["was"]}, {"file": "<block 2>"}])
def test_a_malformed_rewrite_is_none(raw):
    assert LineFix.from_dict(raw) is None
