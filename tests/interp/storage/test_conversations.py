import json
import os
import re
import stat
from datetime import datetime, timezone

import pytest

from interp.secrets import REDACTED

from interp.core.history import Entry
from interp.storage.conversations import ConversationStore, StoreError, new_session_id
from interp.storage.entries import from_saved

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


@pytest.fixture
def store(tmp_path):
    return ConversationStore(tmp_path / "sessions")


def user(text):
    return Entry({"role": "user", "content": text})


def make(store, messages, model="gpt-4o", mtime=None):
    with store.create({"model": model, "cwd": "/tmp"}) as log:
        for m in messages:
            log.append_message(m if isinstance(m, Entry) else from_saved(m))
    if mtime is not None:
        os.utime(log.path, (mtime, mtime))
    return log.id


def test_id_format_sorts_by_time():
    a = new_session_id(datetime(2026, 11, 22, 15, 30, 12, tzinfo=timezone.utc))
    b = new_session_id(datetime(2026, 11, 22, 15, 30, 13, tzinfo=timezone.utc))
    assert re.fullmatch(r"20261122-153012-[0-9a-f]{6}", a)
    assert a < b


def test_round_trip(store):
    msgs = [user("hi"), Entry({"role": "assistant", "content": "hello", "tool_calls": None})]
    log = store.create({"model": "m", "cwd": "/w", "extra": 1})
    for m in msgs:
        log.append_message(m)
    log.append_event("run", {"language": "python", "exit": 0})
    log.close()
    log.close()  # idempotent
    assert store.load(log.id) == msgs
    lines = [json.loads(line) for line in log.path.read_text().splitlines()]
    meta = lines[0]
    assert meta["type"] == "meta" and meta["v"] == 1 and meta["id"] == log.id
    assert meta["model"] == "m" and meta["cwd"] == "/w" and meta["extra"] == 1 and meta["created"]
    assert lines[-1]["type"] == "event" and lines[-1]["kind"] == "run" and "ts" in lines[-1]
    assert log.path == store.root / f"{log.id}.jsonl"
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600


def test_open_appends_to_existing(store):
    sid = make(store, [user("one")])
    with store.open(sid[:-2]) as log:  # prefix works
        assert log.id == sid
        log.append_message(user("two"))
    assert [m.content for m in store.load(sid)] == ["one", "two"]


def test_lines_visible_before_close(store):
    log = store.create({"model": "m"})
    log.append_message(user("flushed"))
    assert store.load(log.id) == [user("flushed")]  # readable by another reader without close
    log.close()
    with pytest.raises(StoreError):
        log.append_message(user("late"))


def test_kill_safety_truncated_last_line(store):
    sid = make(store, [user("a"), user("b")])
    path = store.path_for(sid)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"type": "message", "ts": "x", "message": {"role": "us')
    assert store.load(sid) == [user("a"), user("b")]
    # reopening starts a new line, so the next record is not glued onto the broken one
    with store.open(sid) as log:
        log.append_message(user("c"))
    assert [m.content for m in store.load(sid)] == ["a", "b", "c"]


def test_corrupt_lines_anywhere_are_skipped(store):
    sid = make(store, [user("a")])
    with open(store.path_for(sid), "ab") as fh:
        fh.write(b"not json\n\xff\xfe garbage\n[1, 2]\n{\"type\": \"message\", \"message\": 5}\n\n")
        fh.write(json.dumps({"type": "message", "message": user("b").message}).encode() + b"\n")
    assert store.load(sid) == [user("a"), user("b")]


def test_undo_and_reset_records(store):
    log = store.create({"model": "m"})
    for t in "abcd":
        log.append_message(user(t))
    log.append_undo(2)
    log.append_message(user("e"))
    log.close()
    assert [m.content for m in store.load(log.id)] == ["a", "b", "e"]
    with store.open(log.id) as log2:
        log2.append_undo(99)
        log2.append_message(user("f"))
    assert store.load(log.id) == [user("f")]
    with store.open(log.id) as log3:
        log3.append_reset()
    assert store.load(log.id) == []


def test_list_ordering_titles_and_counts(store):
    old = make(store, [user("first question"), {"role": "assistant", "content": "x"}], mtime=1_000_000)
    new = make(store, [{"role": "system", "content": "sys"},
                       user([{"type": "text", "text": "parts\n  title"}])], model="claude", mtime=2_000_000)
    empty = make(store, [], mtime=1_500_000)
    infos = store.list()
    assert [i.id for i in infos] == [new, empty, old]
    assert infos[0].title == "parts title" and infos[0].model == "claude" and infos[0].message_count == 2
    assert infos[2].title == "first question" and infos[2].message_count == 2
    assert infos[1].title == "" and infos[1].message_count == 0
    assert infos[0].created and infos[0].updated.year == 1970
    assert store.latest_id() == new


def test_long_title_truncated(store):
    make(store, [user("word " * 50)])
    (info,) = store.list()
    assert len(info.title) <= 60 and info.title.endswith("…")


def test_latest_id_prefers_recently_modified(store):
    a = make(store, [user("a")], mtime=3_000_000)
    make(store, [user("b")], mtime=1_000_000)
    assert store.latest_id() == a


def test_empty_or_missing_store(store):
    assert store.list() == [] and store.latest_id() is None
    with pytest.raises(StoreError, match="no saved session"):
        store.load("2026")


def test_corrupt_files_do_not_break_list(store):
    good = make(store, [user("ok")])
    store.root.joinpath("20200101-000000-aaaaaa.jsonl").write_bytes(b"\x00\xff garbage\n{{{")
    store.root.joinpath("20200101-000000-bbbbbb.jsonl").write_text("")
    store.root.joinpath("notes.txt").write_text("ignore me")
    store.root.joinpath("20200101-000000-cccccc.jsonl").mkdir()  # unreadable as a file
    infos = {i.id: i for i in store.list()}
    assert infos[good].title == "ok"
    assert infos["20200101-000000-aaaaaa"].message_count == 0
    assert infos["20200101-000000-aaaaaa"].model is None
    assert "20200101-000000-cccccc" not in infos


def test_redaction(store):
    key = "sk-abc123SECRET"
    quoted = 'pa"ss\\word'
    log = store.create({"model": "m", "api_key": key}, secrets=[key, quoted, "short", None])
    log.append_message(user(f"my key is {key}!"))
    log.append_message(Entry({"role": "assistant", "content": [{"type": "text", "text": key}],
                              key: 1}))
    log.append_event("run", {"output": f"KEY={key}\n", "pw": quoted})
    log.append_message(user("short stays"))
    log.close()
    raw = log.path.read_bytes()
    assert key.encode() not in raw
    assert b"pa\\\"ss\\\\word" not in raw and b'pa"ss' not in raw
    msgs = store.load(log.id)
    assert msgs[0].content == f"my key is {REDACTED}!"
    assert msgs[1].content[0]["text"] == REDACTED and REDACTED in msgs[1].message
    assert msgs[2].content == "short stays"  # secrets under 6 chars are not redacted


def test_prefix_resolution(store):
    ids = ["20261122-153012-ab12cd", "20261122-153012-ab99ef", "20261123-000000-000000"]
    store.root.mkdir(parents=True)
    for i in ids:
        store.root.joinpath(f"{i}.jsonl").write_text("")
    assert store.resolve("20261123") == ids[2]
    assert store.resolve("20261122-153012-ab1") == ids[0]
    assert store.resolve(ids[1]) == ids[1]
    with pytest.raises(StoreError, match="ambiguous"):
        store.resolve("20261122-153012-ab")
    with pytest.raises(StoreError, match="no saved session"):
        store.resolve("1999")
    with pytest.raises(StoreError, match="empty"):
        store.resolve("  ")
    with pytest.raises(StoreError):
        store.path_for("../etc/passwd")


def test_lines_of_the_wrong_shape_are_skipped_with_a_warning_naming_them(store):
    log = store.create({"model": "m"})
    log.append_message(user("kept"))
    log.close()
    with open(log.path, "a") as handle:
        handle.write('{"type":"message","message":{"role":"user","content":123}}\n'
                     '{"type":"message","message":{"role":"robot","content":"x"}}\n'
                     '{"type":"message","message":{"role":"tool","content":"no id"}}\n'
                     '{"type":"message","message":{"role":"assistant","content":null,'
                     '"tool_calls":[{"id":"c1","function":{"name":"f","arguments":{}}}]}}\n'
                     '{"type":"message","message":{"role":"user","content":"x","_images":[1]}}\n'
                     '\n"just a string"\n{"type": "mess\n')
    log = store.open(log.id)
    log.append_message(user("after"))
    log.close()
    messages, warnings = store.load_checked(log.id)
    assert messages == [user("kept"), user("after")]
    reasons = ["content is int", "unknown role 'robot'", "without a tool_call_id",
               "malformed tool calls", "figure list", "not a JSON object", "not JSON"]
    assert len(warnings) == len(reasons)
    for number, (warning, reason) in enumerate(zip(warnings, reasons), 3):
        number += number >= 8  # the blank line is not counted as a problem
        assert warning.startswith(f"line {number} of {log.path.name} was skipped: ")
        assert reason in warning
    assert store.load(log.id) == messages


def test_valid_messages_of_every_kind_load(store):
    msgs = [user("hi"), {"role": "user", "content": [{"type": "text", "text": "look"},
                                                     {"type": "image_url", "image_url": {"url": "x"}}]},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function",
                             "function": {"name": "execute", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "out", "_images": ["/a.png"]},
            {"role": "assistant", "content": "done", "tool_calls": None}]
    msgs = [m if isinstance(m, Entry) else from_saved(m) for m in msgs]
    assert msgs[3].images == ("/a.png",) and "_images" not in msgs[3].message
    log = store.create({"model": "m"})
    for m in msgs:
        log.append_message(m)
    log.close()
    assert store.load_checked(log.id) == (msgs, [])


def test_lone_surrogates_are_stored_without_a_crash(store):
    log = store.create({"model": "m", "cwd": "/w\udcff"})
    log.append_message(user("bad \ud800 text"))
    log.close()
    assert store.load(log.id) == [user("bad \ufffd text")]


def test_latest_and_list_per_directory(store, tmp_path):
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (tmp_path / "link").symlink_to(here)

    def started(cwd, task, mtime):
        with store.create({"model": "m", "cwd": str(cwd)}) as log:
            log.append_message(user(task))
        os.utime(log.path, (mtime, mtime))
        return log.id

    old_here = started(here, "old here", 1_000_000)
    new_there = started(there, "new there", 3_000_000)
    new_here = started(here, "new here", 2_000_000)
    assert store.latest_id() == new_there
    assert store.latest_id(cwd=here) == new_here
    assert store.latest_id(cwd=tmp_path / "link") == new_here  # the same directory
    assert store.latest_id(cwd=tmp_path) is None
    assert [i.id for i in store.list(cwd=here)] == [new_here, old_here]
    assert [i.id for i in store.list()] == [new_there, new_here, old_here]
    assert store.list(cwd=there)[0].cwd == str(there) and store.started_in(old_here) == str(here)


def test_the_title_is_the_first_task_not_a_block_report(store):
    sid = make(store, [{"role": "system", "content": "sys"},
                       {"role": "user", "content": "[Block 1, python]\nOutput:", "_output": True},
                       user("the real task")])
    assert store.info(sid).title == "the real task"


def test_spool_files_go_next_to_the_session_file(store):
    with store.create({"model": "m"}) as log:
        assert log.spool_dir == store.root / log.id
        assert not log.spool_dir.exists()  # made when the first long output is spooled


def test_a_file_that_cannot_be_written_any_more_is_said_once_and_the_log_goes_on(store):
    import resource

    log = store.create({"model": "m"})
    log.append_message(user("saved"))
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (log.path.stat().st_size + 10, hard))
    try:  # writing past the limit fails with EFBIG (Python ignores SIGXFSZ)
        log.append_message(user("x" * 100))
        log.append_message(user("later"))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    failure = log.take_failure()
    assert failure.startswith(f"cannot save this conversation to {log.path} any more (")
    assert failure.endswith("); going on without saving it")
    assert log.take_failure() is None  # said once
    log.append_message(user("dropped, not raised"))
    log.close()
    assert store.load(log.id) == [user("saved")]
