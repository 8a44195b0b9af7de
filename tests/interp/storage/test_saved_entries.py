"""The saved form of the history's entries: a conversation saved before the history held typed
entries (tests/interp/storage/data/dict-history-session.jsonl, written by interp at 1328173, when
the history was dicts with private keys) loads into typed fields, keeps its JSON shape when
written again, and resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from session_kit import KEY, finished, of, py, run

from interp.approval.decision import auto_approve
from interp.core.prompt.compaction import PREFIX
from interp.core.history import Compaction, Entry
from interp.core.session import Session, SessionConfig
from interp.models.reach import model_for
from interp.storage.conversations import ConversationStore
from interp.storage.entries import from_saved, to_saved
from languages import Registry, RunnerConfig
from languages.python import PythonRunner
from languages.shell import ShellRunner

DATA = Path(__file__).parent / "data"
SAVED = "dict-history-session"
FIGURE = "/tmp/gen-today/work/interp-output/figure-2-1.png"


def saved_messages() -> list[dict]:
    lines = (DATA / f"{SAVED}.jsonl").read_text().splitlines()
    return [r["message"] for r in map(json.loads, lines) if r["type"] == "message"]


@pytest.mark.fast
def test_every_saved_message_keeps_its_json_shape_through_an_entry():
    messages = saved_messages()
    assert {k for m in messages for k in m if k.startswith("_")} == {
        "_prompt", "_task", "_output", "_blocks", "_images", "_compaction"}
    for message in messages:
        assert to_saved(from_saved(message)) == message


@pytest.mark.fast
def test_a_conversation_saved_with_private_keys_loads_into_typed_fields():
    entries = ConversationStore(DATA).load(SAVED)
    assert [e.role for e in entries] == ["system", "user", "assistant", "user", "assistant",
                                         "user", "assistant", "tool", "assistant", "user"]
    assert not any(k.startswith("_") for e in entries for k in e.message)
    assert entries[0].prompt and [i for i, e in enumerate(entries) if e.task] == [1, 5]
    assert [i for i, e in enumerate(entries) if e.output] == [3, 7]
    assert [(r.index, r.language, r.status, r.output_head) for r in entries[3].blocks] == [
        (1, "python", "ok", "30\n")]
    assert entries[7].blocks[0].call_id == "call_1" and entries[7].images == (FIGURE,)
    assert entries[9].compaction == Compaction(end=8, task=5, auto=False, focus=None,
                                               summarized=6, tokens_before=600)
    assert all(e.blocks is None for i, e in enumerate(entries) if i not in (3, 7))


@pytest.mark.fast
def test_a_request_that_retracts_the_answer_before_it_is_saved_so():
    saved = {"role": "user", "content": "Reply with a ```python block", "_retracts": True}
    assert from_saved(saved).retracts and to_saved(from_saved(saved)) == saved
    assert not from_saved({"role": "user", "content": "x"}).retracts


@pytest.mark.fast
def test_unknown_private_keys_are_kept_aside_and_written_back():
    saved = {"role": "user", "content": "x", "_task": True, "_later": {"a": 1},
             "_compaction": {"end": "?", "note": 2}}
    entry = from_saved(saved)
    assert entry.message == {"role": "user", "content": "x"} and entry.extra == {"_later": {"a": 1}}
    assert entry.compaction.end is None and entry.compaction.extra == {"note": 2}
    assert to_saved(entry)["_later"] == {"a": 1} and to_saved(entry)["_compaction"]["note"] == 2
    assert to_saved(Entry({"role": "user", "content": "x"})) == {"role": "user", "content": "x"}


def test_a_conversation_saved_with_private_keys_resumes(tmp_path):
    """Resumed from the old file: the model is sent the compacted view (the summary with the
    task it kept, then what came after), no private key, and block numbers go on from 3."""
    entries = ConversationStore(DATA).load(SAVED)
    with FakeOpenAI() as server:
        server.script([py("print(2 ** 3)"), "It is 8."])
        model = model_for("openai/fake-model", api_base=server.api_base, api_key=KEY)
        session = Session(model, auto_approve, history=entries,
                          config=SessionConfig(runner=RunnerConfig(cwd=str(tmp_path))),
                          registry=Registry([PythonRunner, ShellRunner]))
        try:
            events = run(session, "and two cubed?")
        finally:
            session.close()
    assert finished(events)["exit_code"] == 0
    assert [b["index"] for b in of(events, "block.finished")] == [3]
    sent = server.requests[0]["messages"]
    assert not any(k.startswith(("_", "interp_")) for m in sent for k in m)
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[0]["content"] == entries[0].content
    assert sent[1]["content"].startswith(PREFIX) and sent[1]["content"].endswith(
        "\n\nplot the squares")
    assert sent[2]["content"] == "The figure is in squares.png."
    assert sent[3]["content"] == "and two cubed?"
