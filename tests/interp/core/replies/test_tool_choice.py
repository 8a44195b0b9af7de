"""The tools setting's modes and the choice for one model (interp/core/replies/tool_choice.py)."""

from __future__ import annotations

import pytest

from interp.config.options import OPTIONS
from interp.core.replies.tool_choice import TOOL_MODES, ToolChoice, choose_tools, tool_mode

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_on_and_off_need_no_word_from_the_model():
    assert choose_tools("on", None) == ToolChoice(True)
    assert choose_tools(False, None) == ToolChoice(False)
    assert [tool_mode(s) for s in (True, False, "on", "off", "auto", "?")] == [
        "auto", "off", "on", "off", "auto", "auto"]


def test_the_option_offers_the_modes_declared_with_the_loop():
    tools = next(o for o in OPTIONS if o.name == "tools")
    assert all(mode in str(tools) for mode in TOOL_MODES)
    assert [tools.check(mode) for mode in TOOL_MODES] == list(TOOL_MODES)
