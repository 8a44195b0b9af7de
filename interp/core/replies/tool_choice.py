"""Whether the execute tool is offered to a model: the tools setting's modes (auto, on, off;
declared here once, read by interp/config/options.py) and the choice for one model."""

from __future__ import annotations

from dataclasses import dataclass

TOOL_MODES = ("auto", "on", "off")
TEXT_CALLS_NOTICE = ("tools: off from now on ({} wrote its tool call as text; code runs from "
                     "fenced blocks)")


def tool_mode(setting: bool | str) -> str:
    """The tools setting as auto|on|off (True means auto, False off)."""
    if setting is True:
        return "auto"
    if setting is False:
        return "off"
    return setting if setting in TOOL_MODES else "auto"


@dataclass(frozen=True)
class ToolChoice:
    """Whether the execute tool is sent, and a notice on why not (once, when it matters: one
    short line, code then runs from fenced blocks)."""

    send: bool
    notice: str | None = None


def choose_tools(setting: bool | str, model) -> ToolChoice:
    """auto: what litellm knows about the model; on: always; off: never (fenced blocks)."""
    mode = tool_mode(setting)
    if mode != "auto":
        return ToolChoice(mode == "on")
    known = getattr(model, "tool_support", None)
    support = known() if callable(known) else model.supports_tools()
    if support:
        return ToolChoice(True)
    measured = getattr(model, "tool_note", None)  # why a model that could take it is not sent it
    source = getattr(model, "tool_source", "litellm")
    why = (measured if measured else f"tool support unknown to {source}" if support is None
           else f"no tool support, says {source}")
    return ToolChoice(False, f"tools: off for {model.name} ({why}; --tools on)")  # one short line
