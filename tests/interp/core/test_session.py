"""The library Session against the real fake OpenAI server, through real litellm and real runners.

Nothing is mocked: replies come over HTTP from tests/fake_openai.py, litellm streams them, and the
Python / shell runners execute the blocks. Timeouts here are hang guards only, never assertions.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Reply
from session_kit import KEY, answer, contents, finished, hang_guard, of, py, run

from interp.core import events as ev
from interp.core.session import Session
from interp.approval.decision import RUN, Decision, Proposal, auto_approve, decline
from interp.core.history import Entry
from interp.core.prompt.context import TRIMMED
from interp.models.reach import model_for
from interp.models.window import KnownWindow
from interp.storage.conversations import ConversationStore
from interp.storage.entries import from_saved, to_saved
from languages import Registry, RunnerConfig
from languages.python import PythonRunner
from languages.shell import ShellRunner


# -- fenced blocks -------------------------------------------------------------------------------

def test_blocks_run_in_order_outputs_go_back_and_task_ends_without_code(server, make_session):
    server.script([
        "Two steps.\n" + py("x = 21\nprint('PY', x * 2)") + "\nthen\n```bash\necho SH $((6*7))\n```",
        "The answer is 42.",
    ])
    session = make_session(server)
    events = run(session, "compute 42 twice")

    assert [e.type for e in events][:4] == ["session.started", "model.request", "notice", "message"]
    assert of(events, "notice")[0]["text"].startswith("tools: off for openai/")
    proposed = of(events, "block.proposed")
    assert [(p["index"], p["language"]) for p in proposed] == [(1, "python"), (2, "shell")]
    done = of(events, "block.finished")
    assert [(d["index"], d["status"]) for d in done] == [(1, "ok"), (2, "ok")]
    # outputs streamed per block, in order
    outputs = [(o["index"], o["text"]) for o in of(events, "block.output")]
    assert "".join(t for i, t in outputs if i == 1).strip() == "PY 42"
    assert "".join(t for i, t in outputs if i == 2).strip() == "SH 42"
    assert [i for i, _ in outputs] == sorted(i for i, _ in outputs)

    assert len(server.requests) == 2
    second = server.requests[-1]["messages"]
    assert second[0]["role"] == "system" and "python" in second[0]["content"]
    assert second[1] == {"role": "user", "content": "compute 42 twice"}
    assert second[2]["role"] == "assistant" and "echo SH" in second[2]["content"]
    report = second[-1]["content"]
    assert second[-1]["role"] == "user"
    assert report.index("PY 42") < report.index("SH 42")
    assert "[Block 1, python]" in report and "[Block 2, shell]" in report

    messages = of(events, "message")
    assert [m["final"] for m in messages] == [False, True]
    assert messages[-1]["text"] == "The answer is 42."
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert answer(events) == "The answer is 42."
    assert [t["turn"] for t in of(events, "turn.completed")] == [1, 2]
    assert all(t["usage"]["prompt_tokens"] > 0 for t in of(events, "turn.completed"))


def test_state_persists_across_blocks_and_tasks(server, make_session):
    server.script([py("counter = 41"), "set", py("counter += 1\nprint(counter)"), "done"])
    session = make_session(server)
    assert finished(run(session, "set a variable"))["exit_code"] == 0
    events = run(session, "increment it")
    assert "".join(o["text"] for o in of(events, "block.output")).strip() == "42"
    # the second task's first request carries the whole first exchange
    first_task_msgs = contents(server.requests[2])
    assert "set a variable" in first_task_msgs and "increment it" in first_task_msgs
    assert of(events, "session.started") == []  # only once per session


def test_unknown_language_is_told_with_the_available_ones(server, make_session):
    server.script(["```rust\nfn main() { println!(\"hi\"); }\n```", "Sorry, no Rust then."])
    session = make_session(server)
    events = run(session, "say hi in rust")
    assert of(events, "block.proposed") == []
    notices = of(events, "notice")
    assert notices and "rust" in notices[-1]["text"]
    told = server.requests[-1]["messages"][-1]["content"]
    assert "'rust' is not available" in told and "python, shell" in told
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_display_only_blocks_are_not_run(server, make_session):
    server.script(['Here is data:\n```json\n{"a": 1}\n```\nand\n```text\nrm -rf /\n```\nDone.'])
    session = make_session(server)
    events = run(session, "show me some json")
    assert of(events, "block.proposed") == [] and of(events, "block.finished") == []
    assert of(events, "message")[0]["final"] is True
    assert len(server.requests) == 1
    assert finished(events)["exit_code"] == 0


def test_failing_block_reports_error_and_loop_continues(server, make_session):
    server.script([py("raise ValueError('boom-123')"), "It failed, as expected."])
    session = make_session(server)
    events = run(session, "fail please")
    assert of(events, "block.finished")[0]["status"] == "error"
    told = server.requests[-1]["messages"][-1]["content"]
    assert "boom-123" in told and "ValueError" in told
    assert finished(events)["exit_code"] == 0


def test_a_model_run_here_is_given_the_start_and_end_of_a_long_output(server, make_session):
    """A model on this machine (a server on 127.0.0.1) reads its prompt on the CPU: of a long
    output it is given 4000 characters, start and end, unless max_output says otherwise; the
    block's record and the person keep all of it."""
    code = "for i in range(2000):\n    print(f'row {i:04d}, {i * 0.25:.4f}')"
    server.script([py(code), "Done.", py(code), "Done."])
    events = run(make_session(server), "print the rows")
    told = server.requests[-1]["messages"][-1]["content"]
    assert "row 0000, 0.0000" in told and "row 1999, 499.7500" in told
    assert "row 1000," not in told and "characters (" in told and " lines) omitted" in told
    assert len(told) < 4000 + 600
    printed = "".join(o["text"] for o in of(events, "block.output"))
    assert "row 1000, 250.0000" in printed
    wide = RunnerConfig(cwd=str(make_session.work), head_chars=30000, tail_chars=30000)
    run(make_session(server, max_output=60000, runner=wide), "print the rows")  # as build.py
    told = server.requests[-1]["messages"][-1]["content"]
    assert "row 1000, 250.0000" in told and "omitted" not in told


# -- the execute tool ----------------------------------------------------------------------------

def test_execute_tool_call_runs_and_result_goes_back_as_tool_message(server, make_session):
    server.script([
        Reply(tool_calls=[{"id": "call_abc123", "name": "execute",
                           "arguments": {"language": "python", "code": "print(6 * 7)"}}]),
        "It is 42.",
    ])
    session = make_session(server, model="gpt-4o")  # litellm reports function calling for it
    events = run(session, "what is 6*7")

    first = server.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["execute"]
    assert of(events, "block.proposed") == [{"index": 1, "language": "python", "code": "print(6 * 7)"}]
    second = server.requests[1]["messages"]
    call_msg = second[-2]
    assert call_msg["role"] == "assistant"
    assert call_msg["tool_calls"][0]["id"] == "call_abc123"
    assert json.loads(call_msg["tool_calls"][0]["function"]["arguments"])["code"] == "print(6 * 7)"
    tool_msg = second[-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_abc123"
    assert "42" in tool_msg["content"]
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_two_tool_calls_each_get_a_result(server, make_session):
    server.script([
        Reply(tool_calls=[
            {"id": "call_1", "name": "execute", "arguments": {"language": "python", "code": "print('one')"}},
            {"id": "call_2", "name": "execute", "arguments": {"language": "bash", "code": "echo two"}},
        ]),
        "both ran",
    ])
    session = make_session(server, model="gpt-4o")
    events = run(session, "run two things")
    tools = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"].split("```")[1].strip()) for m in tools] == [
        ("call_1", "one"), ("call_2", "two")]
    assert [p["language"] for p in of(events, "block.proposed")] == ["python", "shell"]


def test_no_tools_config_sends_no_tools(server, make_session):
    server.script([py("print('fenced ok')"), "done"])
    session = make_session(server, model="gpt-4o", tools=False)
    events = run(session, "do it")
    assert all("tools" not in r for r in server.requests)
    assert "fenced ok" in server.requests[-1]["messages"][-1]["content"]
    assert finished(events)["exit_code"] == 0


def test_model_without_function_calling_gets_no_tools(server, make_session):
    server.script(["nothing to run"])
    session = make_session(server)  # openai/fake-model: unknown to litellm
    run(session, "hello")
    assert "tools" not in server.requests[0]


def test_invalid_tool_call_json_is_told_to_the_model(server, make_session):
    server.script([
        Reply(tool_calls=[{"id": "call_bad", "name": "execute", "arguments": '{"language": "python", "code": '}]),
        "Oops, fixed.",
    ])
    session = make_session(server, model="gpt-4o")
    events = run(session, "try a tool")
    tool_msg = server.requests[-1]["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_bad"
    assert "not valid JSON" in tool_msg["content"]
    assert of(events, "block.proposed") == []
    assert finished(events) == {"exit_code": 0, "reason": "done"}


# -- approvals -----------------------------------------------------------------------------------

class Recorder:
    """An approver that records proposals and answers with the given function."""

    def __init__(self, answer):
        self.answer = answer
        self.seen: list[Proposal] = []

    def __call__(self, proposal: Proposal) -> Decision:
        self.seen.append(proposal)
        return self.answer(proposal)


def test_decline_with_reason_is_told_and_loop_continues(server, make_session):
    marker = make_session.work / "declined.txt"
    server.script([py(f"open({str(marker)!r}, 'w').write('x')"), "OK, I will not write files."])
    approver = Recorder(lambda p: decline("do not write files here"))
    session = make_session(server, approver)
    events = run(session, "write a file")
    assert not marker.exists()
    assert of(events, "block.declined") == [{"index": 1, "reason": "do not write files here"}]
    assert of(events, "block.approved") == []
    told = server.requests[-1]["messages"][-1]["content"]
    assert "declined" in told and "do not write files here" in told
    assert len(server.requests) == 2
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_decline_without_reason_ends_the_turn(server, make_session):
    marker = make_session.work / "declined.txt"
    server.script([py(f"open({str(marker)!r}, 'w').write('x')"), "never asked"])
    session = make_session(server, Recorder(lambda p: decline()))
    events = run(session, "write a file")
    assert not marker.exists()
    assert len(server.requests) == 1
    assert finished(events) == {"exit_code": 0, "reason": "declined"}
    # the next task still tells the model what happened to the block
    server.script(["fine"])
    run(session, "never mind")
    assert any("declined" in c for c in contents(server.requests[-1]))


def test_edited_code_runs_and_model_sees_it(server, make_session):
    server.script([py("print('ORIGINAL')"), "noted"])
    approver = Recorder(lambda p: Decision(run=True, code="print('EDITED', 1 + 1)"))
    session = make_session(server, approver)
    events = run(session, "print something")
    assert of(events, "block.approved") == [
        {"index": 1, "language": "python", "code": "print('EDITED', 1 + 1)", "edited": True}]
    text = "".join(o["text"] for o in of(events, "block.output"))
    assert "EDITED 2" in text and "ORIGINAL" not in text
    told = server.requests[-1]["messages"][-1]["content"]
    assert "edited" in told and "print('EDITED', 1 + 1)" in told and "EDITED 2" in told


def test_always_stops_asking_for_that_language(server, make_session):
    server.script([
        py("print('a1')") + "\n" + py("print('a2')") + "\n```bash\necho b1\n```",
        py("print('a3')") + "\n```bash\necho b2\n```",
        "done",
    ])
    approver = Recorder(lambda p: Decision(run=True, always=True) if p.language == "python" else RUN)
    session = make_session(server, approver)
    events = run(session, "several blocks")
    assert [(p.language, p.code) for p in approver.seen] == [
        ("python", "print('a1')"), ("shell", "echo b1"), ("shell", "echo b2")]
    assert len(of(events, "block.finished")) == 5
    assert all(d["status"] == "ok" for d in of(events, "block.finished"))


def test_keyboard_interrupt_in_approver_stops(server, make_session):
    marker = make_session.work / "ran.txt"

    def ctrl_c(proposal):
        raise KeyboardInterrupt

    server.script([py("print('first')") + "\n" + py(f"open({str(marker)!r}, 'w').write('x')"),
                   "never asked"])
    session = make_session(server, ctrl_c)
    events = run(session, "two blocks")
    assert finished(events)["exit_code"] == 130
    assert of(events, "block.approved") == [] and not marker.exists()
    assert len(server.requests) == 1
    # the session is still usable and the model learns the blocks did not run
    server.script(["ok"])
    session.approver = auto_approve
    assert finished(run(session, "again"))["exit_code"] == 0
    assert any("did not run" in c for c in contents(server.requests[-1]))


# -- limits and errors ---------------------------------------------------------------------------

def test_max_turns_stops_with_exit_3(make_session):
    with FakeOpenAI(default=py("print('again')")) as server:
        session = make_session(server, max_turns=2)
        events = run(session, "loop forever")
    assert len(server.requests) == 2
    assert finished(events) == {"exit_code": 3, "reason": "max turns reached"}
    assert any("max-turns" in n["text"] for n in of(events, "notice"))
    assert len(of(events, "block.finished")) == 2


def test_auth_error_is_a_notice_and_exit_1(server, make_session):
    server.script([Reply(status=401)])
    session = make_session(server)
    events = run(session, "hello")
    notices = of(events, "notice")[1:]  # after the tools notice
    assert len(notices) == 1 and notices[0]["level"] == "error"
    assert "Authentication failed" in notices[0]["text"]
    assert "Traceback" not in notices[0]["text"] and KEY not in notices[0]["text"]
    assert finished(events) == {"exit_code": 1, "reason": "model error"}


def test_rate_limit_then_success_completes(server, make_session):
    server.script([Reply(status=429, fail_times=1, text="Recovered answer.")])
    session = make_session(server)
    events = run(session, "hello")
    assert len(server.requests) == 2
    assert of(events, "message")[-1]["text"] == "Recovered answer."
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_unreachable_endpoint_exit_1(server, make_session):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    session = make_session(server, api_base=f"http://127.0.0.1:{port}/v1")
    events = run(session, "hello")
    assert finished(events)["exit_code"] == 1
    assert "Could not reach" in of(events, "notice")[-1]["text"]


# -- context window ------------------------------------------------------------------------------

def TinyWindow(name: str, **options) -> KnownWindow:  # noqa: N802 (a model class's stand-in)
    """A real model (as the CLI reaches it) that claims a 2000-token context window."""
    return KnownWindow(model_for(name, **options), 2000)


def test_small_context_window_trims_old_outputs_keeps_system_and_task(server, make_session):
    big = "print(' '.join(f'w{i}' for i in range(1500)))"
    server.script([py(big), "printed many words", py("print('RECENT_OK')"), "done"])
    session = make_session(server, model_cls=TinyWindow, compact_at=None)  # trimming alone
    run(session, "FIRST TASK: print many words")
    assert "w1499" in session.messages[3].content  # the full output is kept in the session
    events = run(session, "SECOND TASK: print a little")
    assert finished(events)["exit_code"] == 0

    last = server.requests[-1]["messages"]
    assert last[0] == {"role": "system", "content": session.messages[0].content}
    texts = contents(server.requests[-1])
    assert "SECOND TASK: print a little" in texts
    assert not any("w1499" in t for t in texts)
    assert any(t == TRIMMED for t in texts)
    assert "RECENT_OK" in texts[-1]
    assert session.model.count_tokens(last) < 2000


# -- interrupt -----------------------------------------------------------------------------------

def test_interrupt_running_block_keeps_state(server, make_session):
    server.script([py("kept = 'still here'\nimport time\nprint('sleeping', flush=True)\ntime.sleep(100)"),
                   "It was interrupted.", py("print(kept)"), "done"])
    session = make_session(server)
    timers = []

    def on_event(item):
        if item.type == ev.BLOCK_OUTPUT and not timers:
            timer = threading.Timer(0.2, session.interrupt)
            timers.append(timer)
            timer.start()

    events = run(session, "sleep a long time", on_event)
    done = of(events, "block.finished")[0]
    assert done["status"] == "interrupted" and done["interrupted"] is True
    assert "interrupted" in server.requests[1]["messages"][-1]["content"]
    assert not session.running

    events = run(session, "print the variable")
    assert "".join(o["text"] for o in of(events, "block.output")).strip() == "still here"
    assert finished(events)["exit_code"] == 0


# -- saving --------------------------------------------------------------------------------------

def saved(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def redacted(messages: list[Entry]) -> list[Entry]:
    """The entries as their saved form has them (the key replaced)."""
    return [from_saved(m) for m in
            json.loads(json.dumps([to_saved(m) for m in messages]).replace(KEY, "[REDACTED]"))]


def test_messages_are_saved_as_they_happen_and_undo_reset(server, make_session, tmp_path):
    store = ConversationStore(tmp_path / "sessions")
    log = store.create({"model": "openai/fake-model"}, [KEY])
    seen_mid_run = []

    def second_reply(body):
        seen_mid_run.append([r["message"] for r in saved(log.path) if r["type"] == "message"])
        return "all done"

    server.script([py("print('saved-output-777')"), second_reply])
    session = make_session(server, log=log)
    assert session.id == log.id
    run(session, f"first task (key {KEY})")

    # read while the model was being asked the second time: the task, the reply and the output
    mid = seen_mid_run[0]
    assert [m["role"] for m in mid] == ["system", "user", "assistant", "user"]
    assert "saved-output-777" in mid[-1]["content"]
    assert store.load(log.id) == redacted(session.messages)
    assert KEY not in log.path.read_text()
    assert "[REDACTED]" in log.path.read_text()

    server.script(["second answer"])
    run(session, "second task")
    assert len(store.load(log.id)) == 7
    assert session.undo() == 2
    assert store.load(log.id) == redacted(session.messages)
    assert [m.role for m in store.load(log.id)] == ["system", "user", "assistant", "user", "assistant"]

    session.reset()
    assert [m.role for m in session.messages] == ["system"]
    server.script(["after reset"])
    run(session, "third task")
    request = server.requests[-1]["messages"]
    assert [m["role"] for m in request] == ["system", "user"]
    # the file agrees with the session, so a resume would not bring the old tasks back
    reloaded = store.load(log.id)
    assert [m.content for m in reloaded] == [m.content for m in session.messages]
    assert not any("first task" in (m.content or "") for m in reloaded)


def test_attach_log_writes_the_conversation_so_far(server, make_session, tmp_path):
    server.script(["hi there"])
    session = make_session(server)
    run(session, "hello")
    store = ConversationStore(tmp_path / "sessions")
    session.attach_log(store.create({"model": "m"}))
    assert store.load(session.id) == session.messages
    assert session.close().session_id == session.id


def test_unanswered_tool_calls_get_a_result_before_the_next_task(server, make_session):
    call = {"id": "call_cut", "name": "execute", "arguments": {"language": "python", "code": "print(1)"}}
    server.script([Reply(tool_calls=[call]), "fine", "fine again"])
    session = make_session(server, model="gpt-4o")
    events = session.run("start something")
    with hang_guard():
        for item in events:
            if item.type == ev.BLOCK_PROPOSED:  # Ctrl-C while the event is shown, as drive() does
                with pytest.raises(KeyboardInterrupt):
                    events.throw(KeyboardInterrupt())
                break
    run(session, "next task")
    messages = server.requests[-1]["messages"]
    i = next(i for i, m in enumerate(messages) if m.get("tool_calls"))
    assert messages[i + 1]["role"] == "tool" and messages[i + 1]["tool_call_id"] == "call_cut"
    assert messages[i + 2] == {"role": "user", "content": "next task"}

    # the same for a conversation saved with a dangling call (e.g. the process was killed)
    history = [m for m in session.messages[:i + 1]]
    resumed = Session(session.model, auto_approve, history=history,
                      registry=Registry([PythonRunner, ShellRunner]))
    try:
        run(resumed, "after resume")
    finally:
        resumed.close()
    messages = server.requests[-1]["messages"]
    assert [m["role"] for m in messages[i:]] == ["assistant", "tool", "user"]
    assert messages[i + 1]["tool_call_id"] == "call_cut"


def test_clean_replaces_lone_surrogates_everywhere_and_joins_pairs():
    from interp.core.text import clean, clean_reply
    from interp.models.base import Reply, ToolCall

    assert clean({"a\ud800": ["x\udcff", ("\ud83d\ude00",)], "n": 1}) == \
        {"a\ufffd": ["x\ufffd", ("\U0001f600",)], "n": 1}
    reply = clean_reply(Reply("t\ud800", (ToolCall("i", "execute", '{"code": "\udcff"}'),), None, None))
    assert reply.text == "t\ufffd" and reply.tool_calls[0].arguments == '{"code": "\ufffd"}'
    assert clean_reply(Reply(None, (), None, None)).text is None
