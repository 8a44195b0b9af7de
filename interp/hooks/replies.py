"""What a hook said, read from how it ended (as Claude Code reads it): exit status 0 with JSON
on standard output (its decision fields) or plain text; exit status 2, a block or denial whose
reason is standard error; anything else (another status, a time-out, output that is not what
the event takes) a failure, said in one line and never taken as an allow."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from interp.hooks.process import Ran

BLOCKING = 2  # the exit status that blocks (denies, sends back) with standard error as reason
LINE = 300  # characters of a reason or failure quoted in one line

Action = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class Said:
    """What one hook run said: its decision (PreToolUse: allow, deny or ask; PostToolUse and
    Stop: "block" as deny), the reason, context for the model, a line for the person, whether
    to stop the turn, and, when it failed, why."""

    action: Action | None = None
    reason: str = ""
    context: str = ""
    message: str = ""  # systemMessage: shown to the person
    stop: bool = False  # "continue": false
    failed: str | None = None


def read(ran: Ran, pre_tool: bool = False) -> Said:
    """What a run said; `pre_tool`: PreToolUse's decisions (allow, deny, ask) are read."""
    if ran.problem is not None:
        return Said(failed=ran.problem)
    if ran.exit_code == BLOCKING:
        reason = ran.stderr.strip() or "(no reason given on standard error)"
        return Said("deny", reason)
    if ran.exit_code != 0:
        detail = line(ran.stderr) or line(ran.stdout)
        return Said(failed=f"exit status {ran.exit_code}" + (f": {detail}" if detail else ""))
    text = ran.stdout.strip()
    if not text.startswith("{"):
        return Said(context=text)
    try:
        output = json.loads(text)
    except ValueError:
        return Said(context=text)  # text that happens to start with a brace
    return _decision(output, pre_tool)


def _decision(output: dict[str, Any], pre_tool: bool) -> Said:
    specific = output.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    action, reason = None, ""
    if pre_tool:
        decided = specific.get("permissionDecision")
        old = {"approve": "allow", "block": "deny"}.get(output.get("decision"))  # older form
        action = decided if decided in ("allow", "deny", "ask") else old
        if decided not in (None, "allow", "deny", "ask", "defer"):
            return Said(failed=f"unknown permissionDecision {decided!r}")
        reason = _string(specific.get("permissionDecisionReason")) or _string(output.get("reason"))
    elif output.get("decision") == "block":
        action, reason = "deny", _string(output.get("reason"))
    return Said(action, reason, context=_string(specific.get("additionalContext")),
                message=_string(output.get("systemMessage")),
                stop=output.get("continue") is False)


def _string(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def line(text: str) -> str:
    """`text` on one line, shortened for a notice."""
    text = " ".join(text.split())
    return text if len(text) <= LINE else text[:LINE - 1] + "…"
