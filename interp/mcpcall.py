"""An MCP tool call as a block of the `mcp` language: its text is `SERVER.TOOL` followed by
its JSON arguments (`github.create_issue {"title": "Crash on start"}`), as the person sees and
approves it, as rules match it (`mcp: github.*`, by name only), as hooks are given it, and as
a fenced-mode model writes it in an ```mcp block. Written and read here, once; the servers
and their tools are interp.mcp.client's."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

LANGUAGE = "mcp"
FUNCTION_PREFIX = "mcp__"  # a tool offered as a function: mcp__SERVER__TOOL (Claude Code's names)
_FUNCTION_CHARS = re.compile(r"[^A-Za-z0-9_-]")
FUNCTION_MAX = 64  # characters of a function name the providers take


class CallError(ValueError):
    """Text that is not an MCP call; the message says what is wrong, for the model."""


@dataclass(frozen=True)
class McpCall:
    """A call of one tool of one server with its arguments."""

    server: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def name(self) -> str:
        """`SERVER.TOOL`, what rules match."""
        return f"{self.server}.{self.tool}"

    def text(self) -> str:
        """The block's code: the name, then the arguments as indented JSON."""
        if not self.arguments:
            return self.name
        return f"{self.name} {json.dumps(self.arguments, indent=2, ensure_ascii=False)}"


def call_name(code: str) -> str:
    """The `SERVER.TOOL` a call's text starts with ("" for empty text)."""
    words = code.split(None, 1)
    return words[0] if words else ""


def parse_call(code: str) -> McpCall:
    """The call a block's text spells; CallError saying what is wrong."""
    text = code.strip()
    name = call_name(text)
    server, dot, tool = name.partition(".")
    if not (server and dot and tool):
        raise CallError("an mcp block is `SERVER.TOOL` followed by the JSON arguments, e.g. "
                        '`files.read_file {"path": "notes.txt"}`')
    rest = text[len(name):].strip()
    try:
        arguments = json.loads(rest) if rest else {}
    except ValueError as exc:
        raise CallError(f"the arguments of {name} are not valid JSON ({exc})") from None
    if not isinstance(arguments, dict):
        raise CallError(f"the arguments of {name} must be a JSON object")
    return McpCall(server, tool, arguments)


def function_name(server: str, tool: str) -> str:
    """The function a tool is offered as: `mcp__SERVER__TOOL`, with what providers refuse in a
    name replaced by `_` and cut to FUNCTION_MAX characters (the caller keeps names unique)."""
    name = _FUNCTION_CHARS.sub("_", f"{FUNCTION_PREFIX}{server}__{tool}")
    return name[:FUNCTION_MAX]
