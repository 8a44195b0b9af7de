"""What a hook said, read as Claude Code reads it: exit status 2 blocks with standard error as
the reason, JSON on standard output carries the decision, anything else that is not exit
status 0 is a failure (and never an allow)."""

from __future__ import annotations

import json

import pytest

from interp.hooks.process import Ran
from interp.hooks.replies import read

pytestmark = pytest.mark.fast  # reads records only


def pre(decision: str, reason: str = "", **more) -> Ran:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                  "permissionDecisionReason": reason}, **more}
    return Ran(0, json.dumps(out))


def test_exit_status_2_denies_with_standard_error_as_the_reason():
    said = read(Ran(2, "ignored", "no pushing to main\n"), pre_tool=True)
    assert (said.action, said.reason, said.failed) == ("deny", "no pushing to main", None)


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
def test_permission_decisions_in_json(decision):
    said = read(pre(decision, "because"), pre_tool=True)
    assert (said.action, said.reason) == (decision, "because")


def test_the_older_top_level_decision_and_defer_and_continue_false():
    assert read(Ran(0, '{"decision": "approve"}'), pre_tool=True).action == "allow"
    assert read(Ran(0, '{"decision": "block", "reason": "r"}'), pre_tool=True).action == "deny"
    assert read(pre("defer"), pre_tool=True).action is None
    stopping = read(Ran(0, '{"continue": false, "systemMessage": "done for today"}'), True)
    assert stopping.stop and stopping.message == "done for today"


@pytest.mark.parametrize("ran, failed", [
    (Ran(1, "", "Traceback: boom"), "exit status 1: Traceback: boom"),
    (Ran(None, problem="timed out after 2 s"), "timed out after 2 s"),
    (Ran(0, json.dumps({"hookSpecificOutput": {"permissionDecision": "yes"}})),
     "unknown permissionDecision 'yes'"),
])
def test_failures_are_said_and_decide_nothing(ran, failed):
    said = read(ran, pre_tool=True)
    assert said.failed == failed and said.action is None


def test_after_and_stop_block_with_a_reason_and_text_is_context():
    blocked = read(Ran(0, '{"decision": "block", "reason": "tests fail", '
                          '"hookSpecificOutput": {"additionalContext": "see log"}}'))
    assert (blocked.action, blocked.reason, blocked.context) == ("deny", "tests fail", "see log")
    assert read(Ran(0, "The project uses tabs.\n")).context == "The project uses tabs."
    assert read(Ran(0, "{not json")).context == "{not json"
    assert read(Ran(0, '{"permissionDecision": "allow"}')).action is None  # not PreToolUse
