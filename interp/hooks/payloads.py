"""What each hook is given on its standard input: one JSON object, with Claude Code's field
names where they mean the same (`session_id`, `transcript_path`, `cwd`, `permission_mode`,
`hook_event_name`, `tool_name`, `tool_input`, `tool_use_id`, `tool_response`,
`stop_hook_active`, `source`) and interp's own beside them (`block`, `language`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from interp.core.blocks import BlockRecord
from interp.mcpcall import LANGUAGE as MCP, CallError, function_name, parse_call

EXECUTE = "execute"  # the tool name of a code block (the tool the model calls to run code)


@dataclass(frozen=True)
class Where:
    """The session a hook runs in: its id and file, its folder and the approval mode."""

    session_id: str | None
    transcript_path: str | None
    cwd: str
    permission_mode: str  # "ask" or "auto"


def common(where: Where, event: str) -> dict[str, Any]:
    return {"session_id": where.session_id, "transcript_path": where.transcript_path,
            "cwd": where.cwd, "permission_mode": where.permission_mode,
            "hook_event_name": event}


def tool(index: int, language: str, code: str, call_id: str | None) -> dict[str, Any]:
    """`tool_name`, `tool_input` and `tool_use_id` of a block: a code block is the `execute`
    tool with its language and code; an MCP call is `mcp__SERVER__TOOL` with its arguments."""
    name, arguments = EXECUTE, {"language": language, "code": code}
    if language == MCP:
        try:
            call = parse_call(code)
            name, arguments = function_name(call.server, call.tool), call.arguments
        except CallError:
            pass  # not a call: it fails without running; the hook sees it as written
    return {"tool_name": name, "tool_input": arguments, "tool_use_id": call_id or f"block-{index}",
            "block": index, "language": language}


def pre_tool_use(where: Where, event: str, index: int, language: str, code: str,
                 call_id: str | None = None) -> str:
    return _dumps({**common(where, event), **tool(index, language, code, call_id)})


def post_tool_use(where: Where, event: str, record: BlockRecord) -> str:
    files = record.files
    response = {"status": record.status, "exit_code": record.exit_code, "error": record.error,
                "summary": record.summary, "output_head": record.output_head,
                "output_tail": record.output_tail, "omitted_chars": record.omitted_chars,
                "full_output": record.spool_path, "duration": record.duration,
                "files": {"created": list(files.created) if files else [],
                          "modified": list(files.modified) if files else [],
                          "deleted": list(files.deleted) if files else []},
                "figures": record.figures}
    return _dumps({**common(where, event),
                   **tool(record.index, record.language, record.code, record.call_id),
                   "tool_response": response})


def stop(where: Where, event: str, answer: str, active: bool) -> str:
    return _dumps({**common(where, event), "stop_hook_active": active,
                   "last_assistant_message": answer})


def session_start(where: Where, event: str, source: str) -> str:
    return _dumps({**common(where, event), "source": source})


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)
