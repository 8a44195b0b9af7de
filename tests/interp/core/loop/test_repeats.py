"""The loop guard's parts that need no session: where a repeated failure failed."""

from __future__ import annotations

import pytest

from languages import Result
from languages.records import CapturedOutput

from interp.core.blocks import failing_line
from interp.core.loop.repeats import LoopGuard

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
