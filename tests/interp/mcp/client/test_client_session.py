"""An MCP server's tools in a whole session: offered as functions beside `execute` to a model
that takes tools and listed for one that writes fenced blocks; every call shown with its
arguments and approved like a block (the person, the rules, hooks); its result back to the
model. The server is real (the SDK's, tests/mcp_tool_server.py), the model the fake OpenAI
server; timeouts are hang guards."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from session_kit import Person, contents, finished, of, run

from languages import Registry, RunnerConfig, default_registry
from languages.python import PythonRunner

from interp.approval.decision import ApprovalState, decline
from interp.approval.policy import Policy, PolicyApprover, registry_resolver
from interp.core.session import Session, SessionConfig
from interp.hooks.config import parse_hooks
from interp.hooks.payloads import Where
from interp.hooks.session import SessionHooks
from interp.mcp.client.config import parse_servers
from interp.mcp.client.pool import ServerPool
from interp.mcp.client.runner import runner_class
from interp.models.reach import model_for

SERVER = str(Path(__file__).resolve().parents[3] / "mcp_tool_server.py")
RESOLVE = registry_resolver(default_registry(plugins=False))


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("work")


@pytest.fixture(scope="module")
def pool(work):
    servers = ServerPool(parse_servers({"demo": {"command": sys.executable, "args": [SERVER],
                                                 "startup_timeout_sec": 60}}), None, str(work))
    servers.start()
    servers.wait()
    yield servers
    servers.close()


@pytest.fixture
def session_for(pool, work):
    made = []

    def make(server, *, tools="on", rules=None, person=None, auto=False, hooks=None):
        registry = Registry([PythonRunner, runner_class(pool)])
        policy = Policy.from_table(rules or {}, None, RESOLVE)
        approver = PolicyApprover(policy, person, ApprovalState(auto, policy))
        if hooks is not None:
            approver = SessionHooks(parse_hooks(hooks, RESOLVE), RESOLVE, str(work), frozenset(),
                                    where=lambda: Where(None, None, str(work), "ask")
                                    ).approver(approver)
        llm = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1")
        session = Session(llm, approver, registry=registry, config=SessionConfig(
            tools=tools, checks="off", runner=RunnerConfig(cwd=str(work))))
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_a_tool_call_is_a_block_shown_with_its_arguments_approved_and_answered(session_for):
    person = Person()
    with FakeOpenAI() as server:
        server.script([call("mcp__demo__add", a=2, b=40), "The sum is 42."])
        events = run(session_for(server, person=person), "add 2 and 40 with the tool")
        offered = [t["function"]["name"] for t in server.requests[0]["tools"]]
        assert offered[0] == "execute" and "mcp__demo__add" in offered
        (proposed,) = of(events, "block.proposed")
        assert proposed["language"] == "mcp"
        assert proposed["code"] == 'demo.add {\n  "a": 2,\n  "b": 40\n}'
        assert [p.language for p in person.asked] == ["mcp"]
        assert of(events, "block.finished")[0]["status"] == "ok"
        tool_message = server.requests[1]["messages"][-1]
        assert tool_message["role"] == "tool" and tool_message["content"].startswith(
            "Output:\n```\n42\n```")
        assert finished(events)["exit_code"] == 0


def test_a_fenced_mode_model_is_told_the_tools_and_writes_an_mcp_block(session_for):
    with FakeOpenAI() as server:
        server.script(['```mcp\ndemo.echo {"text": "hello from a block"}\n```', "Done."])
        events = run(session_for(server, tools="off", auto=True), "echo something")
        system = server.requests[0]["messages"][0]["content"]
        assert "demo.echo(text*): Say the text back." in system and "```mcp" in system
        assert "tools" not in server.requests[0]
        assert "hello from a block" in contents(server.requests[1])[-1]
        assert of(events, "message")[0]["blocks"] == [{"index": 1, "language": "mcp"}]


def test_rules_decide_by_tool_and_deny_holds_under_auto(session_for, work):
    rules = {"allow": ["mcp: demo.add"], "deny": ["mcp: demo.write_file"]}
    person = Person()
    with FakeOpenAI() as server:
        server.script([{"tool_calls": [
            {"name": "mcp__demo__add", "arguments": {"a": 1, "b": 2}},
            {"name": "mcp__demo__write_file", "arguments": {"path": "x.txt", "text": "x"}},
            {"name": "mcp__demo__echo", "arguments": {"text": "hi"}}]}, "Done."])
        events = run(session_for(server, rules=rules, person=person), "do three things")
        assert [p.code.split()[0] for p in person.asked] == ["demo.echo"]
        (declined,) = of(events, "block.declined")
        assert declined["policy"] and "mcp: demo.write_file" in declined["reason"]
        assert not (work / "x.txt").exists()


def test_a_declined_call_tells_the_model_the_reason(session_for):
    with FakeOpenAI() as server:
        server.script([call("mcp__demo__echo", text="hi"), "OK, I will not."])
        run(session_for(server, person=Person(decline("not that server"))), "echo")
        assert "not that server" in server.requests[1]["messages"][-1]["content"]


def test_a_files_changed_by_a_tool_are_reported_like_a_blocks(session_for, work):
    with FakeOpenAI() as server:
        server.script([call("mcp__demo__write_file", path="notes.txt", text="n"), "Written."])
        events = run(session_for(server, auto=True), "write notes.txt with the tool")
        assert of(events, "block.files")[0]["created"] == ["notes.txt"]


def test_pre_tool_use_hooks_see_mcp_calls_by_their_tool(session_for, work):
    record = work / "hook-input.json"
    with FakeOpenAI() as server:
        server.script([call("mcp__demo__add", a=1, b=1), "Refused."])
        hooks = {"PreToolUse": [{"matcher": "mcp: demo.*",
                                 "command": f"cat > {record}; echo 'not today' >&2; exit 2"}]}
        events = run(session_for(server, auto=True, hooks=hooks), "add")
        seen = json.loads(record.read_text())
        assert (seen["tool_name"], seen["tool_input"]) == ("mcp__demo__add", {"a": 1, "b": 1})
        assert of(events, "block.declined")[0]["policy"] is True
        assert "not today" in server.requests[1]["messages"][-1]["content"]
