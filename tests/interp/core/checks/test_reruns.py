"""Blocks cut off at the length limit: not run, asked again with the model's declared
sampling."""

from __future__ import annotations

import pytest

from check_kit import view
from interp.core.checks.reruns import cut_off

pytestmark = pytest.mark.fast

def test_a_reply_cut_off_inside_its_blocks_is_asked_again_with_repeats_penalised():
    proposed = [("python", "print(1)\nprint(1)\n", True)]
    request = cut_off(view("Print.", proposed=proposed, samples={"runaway"}))
    assert request is not None and request.sampling == "runaway" and request.retracts
    assert cut_off(view("Print.", proposed=proposed)) is None
    assert cut_off(view("Print.", proposed=[("python", "print(1)", False)], samples={"runaway"})) is None
