"""Session.stop(): the turn ends, in any approval mode, with the runner's state kept; and the
model.request event. Real fake server, real litellm, real runners; waits are hang guards."""

from __future__ import annotations

import threading

from fake_openai import Reply
from session_kit import finished, of, py, run

from interp.approval.decision import Decision
from interp.core import events as ev
from interp.core.session import STOPPED_NOTE, STOPPED_NOTICE

SLEEPER = "kept = 'still here'\nimport time\nprint('sleeping', flush=True)\ntime.sleep(100)"


def test_stop_while_a_block_runs_ends_the_turn_and_keeps_state(server, make_session):
    reply = py(SLEEPER) + "\nThen:\n" + py("print('later block ran')")
    server.script([reply, "Called again.", py("print(kept)"), "done"])
    session = make_session(server)  # auto-approve: nothing asks
    timers = []

    def on_event(item):
        if item.type == ev.BLOCK_OUTPUT and not timers:
            timers.append(threading.Timer(0.1, session.stop))
            timers[0].start()

    events = run(session, "sleep", on_event)
    assert [d["status"] for d in of(events, "block.finished")] == ["interrupted"]
    assert len(of(events, "block.proposed")) == 1  # the later block was never proposed
    assert STOPPED_NOTICE in [n["text"] for n in of(events, "notice")]
    assert finished(events) == {"exit_code": 130, "reason": "stopped by the user"}
    assert len(server.requests) == 1  # no further model call

    events = run(session, "go on")
    told = server.requests[1]["messages"]
    assert told[-1]["content"] == f"{STOPPED_NOTE}\n\ngo on"  # told with the task, before it
    assert "interrupted" in told[-2]["content"] and "Not run" in told[-2]["content"]
    events = run(session, "show it")
    assert "".join(o["text"] for o in of(events, "block.output")).strip() == "still here"


def test_stop_while_streaming_keeps_the_partial_reply(server, make_session):
    words = " ".join(f"w{i}" for i in range(500))
    server.script([Reply(text=words, chunk_delay=0.01), "next"])
    session = make_session(server)

    def on_event(item):
        if item.type == ev.MESSAGE_DELTA:
            session.stop()

    events = run(session, "talk", on_event)
    assert finished(events)["exit_code"] == 130
    assert "Reply interrupted." in [n["text"] for n in of(events, "notice")]
    partial = session.messages[-1]
    assert partial.role == "assistant" and "interrupted by the user" in partial.content
    assert "w499" not in partial.content


def test_a_block_stopped_before_it_starts_does_not_run(server, make_session):
    marker = make_session.work / "ran.txt"
    server.script([py(f"open({str(marker)!r}, 'w').write('x')"), "Called again."])
    session = make_session(server)

    def on_event(item):
        if item.type == ev.BLOCK_APPROVED:
            session.stop()

    events = run(session, "write", on_event)
    assert [d["status"] for d in of(events, "block.finished")] == ["interrupted"]
    assert not marker.exists()
    assert len(server.requests) == 1


def test_stop_in_ask_mode_after_approval_skips_later_blocks(server, make_session):
    asked = []

    def approver(proposal):
        asked.append(proposal.index)
        return Decision(run=True)

    reply = py("print('first')") + "\n" + py("print('second')")
    server.script([reply, "Called again."])
    session = make_session(server, approver)

    def on_event(item):
        if item.type == ev.BLOCK_FINISHED:
            session.stop()  # lands between two blocks

    events = run(session, "two blocks", on_event)
    assert asked == [1]
    assert finished(events)["exit_code"] == 130
    assert len(server.requests) == 1


def test_model_request_precedes_each_model_call(server, make_session):
    server.script([py("print(1)"), "done"])
    session = make_session(server)
    events = run(session, "go")
    requests = of(events, "model.request")
    assert [r["turn"] for r in requests] == [1, 2]
    assert all(r["model"] == "openai/fake-model" for r in requests)
    kinds = [e.type for e in events]
    assert kinds.index("model.request") < kinds.index("message")


def test_a_stop_between_tasks_does_not_stop_the_next(server, make_session):
    server.script(["one", "two"])
    session = make_session(server)
    run(session, "first")
    session.stop()  # nothing runs: no effect on the next task
    assert finished(run(session, "second"))["exit_code"] == 0


def test_reset_forgets_always_allowed_languages(server, make_session):
    server.script(["hi"])
    session = make_session(server)
    session.always.add("python")
    session.reset()
    assert session.always == set()
