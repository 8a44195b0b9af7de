"""Compaction in a real Session: the fake OpenAI server, real litellm, real runners.

SUMMARY is the summary the real Qwen2.5-Coder-1.5B wrote through interp when it compacted a
session like these (squares of 1 to 150, then their sum), copied as it came."""

from __future__ import annotations

import json

import pytest

from fake_openai import Reply
from session_kit import of, py, run

from interp.core import events as ev
from interp.core.prompt.compaction import PREFIX
from interp.core.prompt.context import TRIMMED
from interp.core.session import Session
from interp.models.reach import model_for
from interp.models.window import KnownWindow
from interp.storage.export import export_markdown
from interp.storage.conversations import ConversationStore
from languages import Registry
from languages.python import PythonRunner
from languages.shell import ShellRunner

SUMMARY = ("Asked: \"Now print the sum of those squares.\"\nFound:\n- The code snippet already "
           "computes the squares of numbers from 1 to 150 and prints them.\n- The output confirms "
           "the correctness of the computation.\nFiles and names: No new files or names were "
           "created.\nLeft to do: No new tasks were planned next.")


class Counted(KnownWindow):
    """The fake model with a known window, counting tokens as litellm's model does when
    litellm is not loaded yet (JSON length / 4): the same in every test process, whether or
    not another test has imported litellm (then its tokenizer would count)."""

    def count_tokens(self, messages: list[dict]) -> int:
        return len(json.dumps(messages, default=str)) // 4


def windowed(window: int):
    """A model_cls for make_session: the fake model with a known context window."""
    return lambda name, **kw: Counted(model_for(name, **kw), window)


def scripted(server, replies: list, summaries: list) -> None:
    """Script the fake server: summary requests get `summaries` in turn, others `replies`."""
    replies, summaries = list(replies), list(summaries)

    def answer(request: dict):
        asked = "You write the summary" in str(request["messages"][0].get("content"))
        queue = summaries if asked else replies
        return queue.pop(0) if queue else "(nothing scripted)"

    server.script([answer] * 40)


def numbers(start: int) -> str:
    return py(f"print(list(range({start}, {start + 300})))")


def test_auto_compaction_sends_the_summary_the_task_and_the_last_block(server, make_session):
    scripted(server, [numbers(0), numbers(300), numbers(600), numbers(900), "Done."], [SUMMARY])
    session = make_session(server, model_cls=windowed(2000))
    events = run(session, "print some numbers")
    kinds = [e.type for e in events]
    assert kinds.count(ev.CONTEXT_COMPACTING) == 1 and kinds.count(ev.CONTEXT_COMPACTED) == 1
    done = of(events, ev.CONTEXT_COMPACTED)[0]
    assert done["auto"] and done["window"] == 2000 and done["tokens_after"] < done["tokens_before"]
    assert kinds.index(ev.CONTEXT_COMPACTED) < len(kinds) - kinds[::-1].index(ev.MODEL_REQUEST)
    asked = next(r for r in server.requests if "You write the summary" in
                 r["messages"][0]["content"])
    told = asked["messages"][-1]["content"]
    assert "[0, 1, 2" in told and "User (the current task" in told and "Left to do:" in told
    after = server.requests[server.requests.index(asked) + 1]["messages"]
    assert [m["role"] for m in after] == ["system", "user", "assistant", "user"]
    assert after[0]["content"].startswith("You are interp")
    assert after[1]["content"] == f"{PREFIX}{SUMMARY}\n\nprint some numbers"
    assert "[600, 601" in after[3]["content"] and "[0, 1, 2" not in str(after)
    assert any("[0, 1, 2" in str(m.content) for m in session.messages)  # all kept


def test_the_saved_conversation_keeps_everything_and_resumes_compacted(server, make_session,
                                                                      tmp_path):
    scripted(server, [numbers(0), numbers(300), numbers(600), "Done."], [SUMMARY])
    store = ConversationStore(tmp_path / "sessions")
    log = store.create({"model": "m"})
    session = make_session(server, model_cls=windowed(2000), log=log)
    run(session, "print some numbers")
    saved = store.load(log.id)
    assert saved == session.messages and sum(m.compaction is not None for m in saved) == 1
    resumed = Session(session.model, history=saved,
                      registry=Registry([PythonRunner, ShellRunner]))
    assert resumed.payload() == session.payload()
    assert resumed.payload()[1]["content"] == f"{PREFIX}{SUMMARY}\n\nprint some numbers"
    markdown = export_markdown(saved)
    assert "[0, 1, 2" in markdown and "[600, 601" in markdown and SUMMARY not in markdown
    resumed.close()


def test_a_summary_too_long_twice_leaves_the_trimming_as_before(server, make_session):
    rambling = "Asked: numbers. " + "Found: a number. " * 900
    scripted(server, [numbers(0), numbers(300), numbers(600), numbers(900), "Done."],
             [rambling, rambling])
    session = make_session(server, model_cls=windowed(2000))
    events = run(session, "print some numbers")
    asks = [r for r in server.requests if "You write the summary" in r["messages"][0]["content"]]
    assert len(asks) == 2  # bounded: asked once more, shorter, then given up for this task
    assert "too long: at most" in asks[1]["messages"][-1]["content"]
    warning = [n["text"] for n in of(events, ev.NOTICE) if n["level"] == "warning"]
    assert any(t.startswith("Could not compact the conversation: the summary was still longer")
               and "older outputs are trimmed instead" in t for t in warning)
    assert not of(events, ev.CONTEXT_COMPACTED) and not any(m.compaction for m in session.messages)
    assert events[-1].exit_code == 0
    last = server.requests[-1]["messages"]
    assert any(m.get("content") == TRIMMED for m in last)  # context.py's trimming, as before


def test_a_model_error_while_summarising_is_a_notice_and_the_task_goes_on(server,
                                                                          make_session):
    scripted(server, [numbers(0), numbers(300), numbers(600), "Done."],
             [Reply(status=400, error="This model's maximum context length is 3000")])
    session = make_session(server, model_cls=windowed(2000))
    events = run(session, "print some numbers")
    warning = [n["text"] for n in of(events, ev.NOTICE) if n["level"] == "warning"]
    assert any("the model could not write the summary" in t for t in warning)
    assert events[-1].exit_code == 0 and of(events, ev.MESSAGE)[-1]["text"] == "Done."


def test_compact_on_request_with_a_focus(server, make_session):
    session = make_session(server)  # a window interp does not know: only on request
    assert [e.text for e in session.compact()] == ["Nothing to compact yet."]
    server.script([numbers(0), "Printed.", SUMMARY])
    run(session, "print some numbers")
    events = list(session.compact("the CSV columns"))
    assert [e.type for e in events] == [ev.CONTEXT_COMPACTING, ev.CONTEXT_COMPACTED]
    assert not events[1].auto and events[1].focus == "the CSV columns"
    ask = server.requests[-1]["messages"][-1]["content"]
    assert "Pay most attention to: the CSV columns." in ask
    assert session.payload()[1]["content"] == f"{PREFIX}{SUMMARY}\n\nprint some numbers"
    assert session.totals.completion_tokens > 0  # the summary's tokens are counted


@pytest.mark.fast
def test_no_window_no_automatic_compaction():
    class Unknown:
        name = "m"

        def context_window(self):
            return None

    from interp.core.prompt.compaction import Compactor
    from interp.core.history import Entry
    from interp.core.state import SessionConfig, SessionState

    session = SessionState(Unknown(), SessionConfig(), registry=None,
                           messages=[Entry({"role": "system", "content": "s"})])

    assert not Compactor(0.7).due(session) and not Compactor(None).due(session)
