"""The loop guard's parts that need no session: where a repeated failure failed."""

from __future__ import annotations

import pytest

from languages import Result
from languages.records import CapturedOutput, LineFix

from interp.core.loops import LoopGuard, failing_line

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_the_failing_line_is_found_in_the_blocks_own_traceback():
    code = "import math\nx = [1, 2]\narea = math.trapz(x)"
    python = ('Traceback (most recent call last):\n  File "<block 4>", line 3, in <module>\n'
              "    area = math.trapz(x)\nAttributeError: module 'math' has no attribute 'trapz'")
    assert failing_line(code, python, 4) == (3, "area = math.trapz(x)")
    assert failing_line(code, python, 5) is None  # the frame is in a function of block 4
    node = "block-2.js:2\nx = [1, 2]\n\nSyntaxError: Unexpected token"
    assert failing_line(code, node, 2) == (2, "x = [1, 2]")
    assert failing_line(code, 'File "<block 1>", line 9', 1) is None  # past the code's end


def test_output_that_differs_only_by_object_addresses_is_the_same_output():
    """pip's retries print `<... object at 0x7f8924276210>`, a new address each run."""
    guard = LoopGuard()
    for address in ("0x7f8924276210", "0x7f75c006e550"):
        text = f"WARNING: Retrying (<HTTPSConnection object at {address}>)\n"
        output = CapturedOutput(text, "", 0, 0, len(text), None)
        guard.saw("shell", "pip install numpy", Result(status="ok", output=output, exit_code=0), 1)
        repeats = guard.end_reply()
    assert repeats == 2 and guard.note().startswith("Note: this is the same code with the same")


# Qwen2.5-Coder-1.5B on integrals-area-between-curves (interp eval tasks, 2026-11-28): np.trapz
# four times after the note gave line 11 with trapezoid (shortened).
TRAPZ = ("import numpy as np\n\n# the area\nx = np.linspace(0, 3, 1000)\n"
         "area = np.trapz(2 * x + 3 - x ** 2, x)\nprint(area)")
TRAPZ_RAN = ('Traceback (most recent call last):\n  File "<block {n}>", line 5, in <module>\n'
             "    area = np.trapz(2 * x + 3 - x ** 2, x)\n"
             "AttributeError: module 'numpy' has no attribute 'trapz'\n")


def _trapz_result(n: int) -> Result:
    text = TRAPZ_RAN.format(n=n)
    fix = LineFix(f"<block {n}>", 5, "area = np.trapz(2 * x + 3 - x ** 2, x)",
                  "area = np.trapezoid(2 * x + 3 - x ** 2, x)")
    return Result(status="error", output=CapturedOutput(text, "", 0, 0, len(text), None),
                  error="AttributeError: module 'numpy' has no attribute 'trapz'", fix=fix)


def test_the_same_failing_code_again_is_told_with_the_line_its_error_suggests():
    guard = LoopGuard()
    for n in (1, 2):
        guard.saw("python", TRAPZ, _trapz_result(n), n)
        guard.end_reply()
    assert guard.note() == (
        "Note: this is the same code as your previous run, and it failed again on line 5: "
        "`area = np.trapz(2 * x + 3 - x ** 2, x)`. Do not run it again unchanged: read the "
        "error and change that line.\nBlock 2 as it would read with line 5 as the error's note "
        "suggests (not run yet: reply with it in a ```python block to run it):\n```python\n" + TRAPZ.replace("np.trapz", "np.trapezoid") + "\n```")


def test_a_rewrite_of_a_line_before_the_failing_one_is_shown_too():
    """The merge that renamed the column the failing line reads (driver's merge_line)."""
    code = ("df = pd.read_csv('s.csv')\nm = df.groupby('s')['t'].mean().reset_index()\n"
            "df = pd.merge(df, m, on='s')\ndf['t'].fillna(df['mean_t'])")
    text = 'Traceback (most recent call last):\n  File "<block 1>", line 4, in <module>\n'
    fix = LineFix("<block 1>", 3, "df = pd.merge(df, m, on='s')",
                  "df = pd.merge(df, m.rename(columns={'t': 'mean_t'}), on='s')")
    result = Result(status="error", output=CapturedOutput(text, "", 0, 0, len(text), None),
                    error="KeyError: 't'", fix=fix)
    guard = LoopGuard()
    guard.saw("python", code, result, 1)
    assert guard.fixed_note(1).startswith("\nBlock 1 as it would read with line 3 as the error's")
    assert "df = pd.merge(df, m.rename(columns={'t': 'mean_t'}), on='s')\ndf['t']" in (
        guard.fixed_note(1))
    guard.saw("python", code, Result(status="error", output=result.output, error="KeyError: 't'",
                                     fix=LineFix("<block 1>", 5, "x", "y")), 1)
    assert guard.fixed_note(1) == ""  # a rewrite of a line after the failing one: none


def test_a_suggested_line_of_another_block_is_not_shown():
    """The traceback's innermost frame of block 2 is a function block 1 defined."""
    guard = LoopGuard()
    for n in (1, 2):
        guard.saw("python", TRAPZ, _trapz_result(1), n)
        guard.end_reply()
    assert "suggests" not in guard.note()
