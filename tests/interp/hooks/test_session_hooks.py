"""Hooks where a session asks for them, with real hook programs (bash, python3): before a
block (deny, allow, ask, and a failing or hanging hook that never lets a block through), after
it (what they say goes to the model), on the answer (Stop sends it back) and at the start
(their output joins the context). Sessions run against the fake OpenAI server with real
runners; timeouts are hang guards."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from session_kit import Person, answer, contents, finished, of, run

from languages import Registry, RunnerConfig, default_registry
from languages.python import PythonRunner
from languages.shell import ShellRunner

from interp.approval.decision import ApprovalState, Proposal
from interp.approval.policy import Policy, PolicyApprover, registry_resolver
from interp.cli.integrations import with_stop_hooks
from interp.core import exits
from interp.core.session import Session, SessionConfig
from interp.hooks.config import parse_hooks
from interp.hooks.payloads import Where
from interp.hooks.session import SessionHooks
from interp.models.reach import model_for

RESOLVE = registry_resolver(default_registry(plugins=False))


def hook_script(tmp_path: Path, name: str, body: str) -> str:
    """A Python hook program: `body` runs with `event` (its JSON input) and `out` (a file
    where the event is kept for the test)."""
    path = tmp_path / f"{name}.py"
    path.write_text("import json, sys\nevent = json.load(sys.stdin)\n"
                    f"open({str(tmp_path / (name + '.json'))!r}, 'a').write(json.dumps(event) + '\\n')\n"
                    + body)
    return f"{sys.executable} {path}"


def seen(tmp_path: Path, name: str) -> list[dict]:
    path = tmp_path / f"{name}.json"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hooks_of(table: dict, tmp_path: Path, mode: str = "ask") -> SessionHooks:
    return SessionHooks(parse_hooks(table, RESOLVE), RESOLVE, str(tmp_path), frozenset(),
                        where=lambda: Where("s1", None, str(tmp_path), mode))


def approver(hooks: SessionHooks, *, auto: bool = False, person=None, rules: dict | None = None):
    policy = Policy.from_table(rules or {}, None, RESOLVE)
    return hooks.approver(PolicyApprover(policy, person, ApprovalState(auto, policy)))


PRE = "PreToolUse"


# -- before a block ---------------------------------------------------------------------------

def test_exit_status_2_denies_and_the_reason_is_the_models(tmp_path):
    hooks = hooks_of({PRE: [{"matcher": "shell: rm *",
                             "command": "echo 'never delete here' >&2; exit 2"}]}, tmp_path)
    decision = approver(hooks, auto=True)(Proposal(1, "shell", "ls && rm -rf build"))
    assert not decision.run and decision.policy
    assert "never delete here" in decision.reason and "PreToolUse hook" in decision.reason
    assert approver(hooks, auto=True)(Proposal(2, "shell", "ls")).run  # not matched


def test_the_hook_is_given_the_block_as_claude_codes_hooks_are(tmp_path):
    command = hook_script(tmp_path, "pre", "")
    approver(hooks_of({PRE: [{"command": command}]}, tmp_path), auto=True)(
        Proposal(3, "python", "print(1)"))
    event = seen(tmp_path, "pre")[0]
    assert event == {"session_id": "s1", "transcript_path": None, "cwd": str(tmp_path),
                     "permission_mode": "ask", "hook_event_name": "PreToolUse",
                     "tool_name": "execute", "tool_input": {"language": "python",
                                                            "code": "print(1)"},
                     "tool_use_id": "block-3", "block": 3, "language": "python"}


def test_allow_runs_without_asking_but_deny_and_ask_rules_still_hold(tmp_path):
    allow = ('echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
             '"permissionDecision": "allow", "permissionDecisionReason": "ok"}}\'')
    hooks = hooks_of({PRE: [{"command": allow}]}, tmp_path)
    person = Person()
    assert approver(hooks, person=person)(Proposal(1, "python", "1")).run and not person.asked
    rules = {"deny": ["python: import os*"], "ask": ["bash: git push *"]}
    denied = approver(hooks, person=person, rules=rules)(Proposal(2, "python", "import os"))
    assert not denied.run and "deny rule" in denied.reason
    asked = approver(hooks, person=person, rules=rules)(Proposal(3, "shell", "git push"))
    assert asked.run and [p.index for p in person.asked] == [3]


def test_ask_puts_the_block_to_the_person_even_in_auto_mode_and_without_one_nothing_runs(
        tmp_path):
    ask = ('echo \'{"hookSpecificOutput": {"permissionDecision": "ask", '
           '"permissionDecisionReason": "touches prod"}}\'')
    hooks = hooks_of({PRE: [{"command": ask}]}, tmp_path)
    person = Person()
    assert approver(hooks, auto=True, person=person)(Proposal(1, "shell", "deploy")).run
    assert "touches prod" in person.asked[0].why
    alone = approver(hooks, auto=True)(Proposal(2, "shell", "deploy"))
    assert not alone.run and "no terminal to ask on" in alone.reason


@pytest.mark.parametrize("command, why", [
    ("exit 1", "exit status 1"),
    ("sleep 30", "timed out after 1 s"),
    ('echo \'{"hookSpecificOutput": {"permissionDecision": "sure"}}\'', "unknown permissionDecision"),
    ("/no/such/program", "exit status 127"),
])
def test_a_failing_or_hanging_hook_is_one_line_and_never_lets_a_block_through(tmp_path, command,
                                                                             why):
    hooks = hooks_of({PRE: [{"command": command, "timeout": 1}]}, tmp_path)
    alone = approver(hooks, auto=True)(Proposal(1, "python", "print('x')"))
    assert not alone.run and why in alone.notice and "\n" not in alone.notice
    person = Person()
    assert approver(hooks, auto=True, person=person)(Proposal(2, "python", "1")).run
    assert person.asked and "failed" in person.asked[0].why


def test_deny_beats_ask_beats_allow_among_several_hooks(tmp_path):
    say = 'echo \'{{"hookSpecificOutput": {{"permissionDecision": "{}"}}}}\''
    hooks = hooks_of({PRE: [{"command": say.format("allow")}, {"command": say.format("ask")},
                            {"command": "echo no >&2; exit 2"}]}, tmp_path)
    assert not approver(hooks, person=Person())(Proposal(1, "python", "1")).run


def test_continue_false_stops_the_turn(tmp_path):
    stop = "echo '{\"continue\": false, \"stopReason\": \"enough\"}'"
    decision = approver(hooks_of({PRE: [{"command": stop}]}, tmp_path), auto=True)(
        Proposal(1, "python", "1"))
    assert not decision.run and decision.stop


# -- a whole session ---------------------------------------------------------------------------

@pytest.fixture
def session_with(tmp_path):
    made = []

    def make(server, table: dict, *, auto: bool = True, person=None, schema=None) -> Session:
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        hooks = SessionHooks(parse_hooks(table, RESOLVE), RESOLVE, str(work), frozenset(),
                             where=lambda: Where(None, None, str(work), "auto"))
        policy = Policy.from_table({}, None, RESOLVE)
        approver = hooks.approver(PolicyApprover(policy, person, ApprovalState(auto, policy)))
        config = with_stop_hooks(SessionConfig(runner=RunnerConfig(cwd=str(work)),
                                               output_schema=schema), hooks)
        llm = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1")
        session = Session(llm, approver, config=config,
                          registry=Registry([PythonRunner, ShellRunner]))
        session.after_block = hooks.after_block
        made.append(session)
        return session, hooks

    yield make
    for session in made:
        session.close()


def test_a_denied_block_does_not_run_and_the_model_is_told_why(session_with, tmp_path):
    with FakeOpenAI() as server:
        server.script(["```bash\ntouch made.txt\n```", "I could not."])
        session, _ = session_with(server, {PRE: [{"matcher": "bash: touch *",
                                                  "command": "echo 'read-only folder' >&2; exit 2"}]})
        events = run(session, "make a file")
        assert not (tmp_path / "work" / "made.txt").exists()
        assert of(events, "block.declined")[0]["policy"] is True
        assert "read-only folder" in contents(server.requests[1])[-1]
        assert finished(events)["exit_code"] == exits.POLICY


def test_post_tool_use_sees_the_result_and_what_it_says_goes_to_the_model(session_with,
                                                                         tmp_path):
    command = hook_script(tmp_path, "post", "print(json.dumps({'hookSpecificOutput': "
                                            "{'additionalContext': 'lint: 0 problems'}}))")
    with FakeOpenAI() as server:
        server.script(["```python\nopen('out.txt', 'w').write('x')\nprint('wrote')\n```",
                       "Done."])
        session, _ = session_with(server, {"PostToolUse": [{"matcher": "python",
                                                            "command": command}]})
        events = run(session, "write out.txt")
        response = seen(tmp_path, "post")[0]["tool_response"]
        assert response["status"] == "ok" and response["output_head"] == "wrote\n"
        assert response["files"]["created"] == ["out.txt"]
        told = contents(server.requests[1])[-1]
        assert "lint: 0 problems" in told and "after block 1" in told
        assert any("lint: 0 problems" in n["text"] for n in of(events, "notice"))


def test_a_stop_hook_sends_the_answer_back_and_sees_it_was_sent(session_with, tmp_path):
    command = hook_script(tmp_path, "stop", "if not event['stop_hook_active']:\n"
                                            "    print('say it in French', file=sys.stderr)\n"
                                            "    sys.exit(2)\n")
    with FakeOpenAI() as server:
        server.script(["Hello there.", "Bonjour."])
        session, _ = session_with(server, {"Stop": [{"command": command}]})
        events = run(session, "greet me")
        assert answer(events) == "Bonjour." and finished(events)["exit_code"] == 0
        assert [e["last_assistant_message"] for e in seen(tmp_path, "stop")] == [
            "Hello there.", "Bonjour."]
        assert [e["stop_hook_active"] for e in seen(tmp_path, "stop")] == [False, True]
        assert "say it in French" in contents(server.requests[1])[-1]
        assert [n["check"] for n in of(events, "notice") if "check" in n] == ["stop-hook"]


def test_a_failing_stop_hook_is_a_line_and_the_answer_stands(session_with):
    with FakeOpenAI() as server:
        server.script(["Hello there."])
        session, _ = session_with(server, {"Stop": [{"command": "exit 7"}]})
        events = run(session, "greet me")
        assert answer(events) == "Hello there." and len(server.requests) == 1
        assert any("Stop hook `exit 7` failed (exit status 7)" in n["text"]
                   for n in of(events, "notice"))


def test_session_start_output_joins_the_context(session_with):
    from interp.cli.integrations import session_start

    with FakeOpenAI() as server:
        server.script(["Noted."])
        session, hooks = session_with(server, {"SessionStart": [
            {"command": "echo 'This project formats with black.'"}]})
        assert session_start(hooks, session, "startup") == []
        run(session, "hello")
        assert "This project formats with black." in contents(server.requests[0])[-1]
