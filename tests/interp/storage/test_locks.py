"""One writer per conversation (issue 23): a second `interp --resume ID` while the conversation
is open in another interp says which process has it and exits with the usage status; the
file never interleaves two processes' messages."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from fake_openai import Reply
from helpers import HANG_GUARD, interp_cmd, model_args, run_interp
from interp.core.history import Entry
from interp.storage.locks import SessionBusy, SessionLock, lock_path
from interp.storage.conversations import ConversationInUse, ConversationStore


def _sessions(interp_env) -> Path:
    return interp_env["data"] / "interp" / "sessions"


def _wait_for(condition, what: str) -> None:
    end = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < end, f"no {what} within {HANG_GUARD:g} s"
        time.sleep(0.05)


def _contents(path: Path) -> list[str]:
    return [r["message"]["content"] for r in map(json.loads, path.read_text().splitlines())
            if r["type"] == "message" and r["message"]["role"] in ("user", "assistant")]


def test_a_second_resume_is_refused_while_the_first_runs(fake_server, interp_env):
    args = model_args(fake_server)
    first = run_interp(["-y", "-e", "FIRST task", *args], interp_env)
    assert first.returncode == 0, first.stderr
    (path,) = _sessions(interp_env).glob("*.jsonl")
    sid = path.stem
    fake_server.add(Reply(text="Slow answer.", delay=60))  # the holder is mid-reply meanwhile
    holder = subprocess.Popen(interp_cmd() + ["--resume", sid, "-y", "-e", "SECOND task", *args],
                              env=interp_env["env"], cwd=interp_env["cwd"], text=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: len(fake_server.requests) == 2, "request from the first process")
        second = run_interp(["--resume", sid, "-y", "-e", "THIRD task", *args], interp_env)
        third = run_interp(["--resume", "-y", "-e", "FOURTH task", *args], interp_env)  # latest
    finally:
        fake_server.stop()  # ends the slow reply: the holder finishes
        holder.communicate(timeout=60)
    for refused in (second, third):
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr == (f"interp: conversation {sid} is open in another interp process "
                                  f"(pid {holder.pid}); finish or quit that one first (one process "
                                  "writes a conversation at a time)\n")
    assert len(fake_server.requests) == 2  # neither refused run asked the model
    text = "\n".join(_contents(path))
    assert "SECOND task" in text and "THIRD task" not in text and "FOURTH task" not in text
    assert not lock_path(path).exists()  # the holder removed it when it closed


def test_the_lock_goes_with_its_process(fake_server, interp_env):
    args = model_args(fake_server)
    assert run_interp(["-y", "-e", "FIRST task", *args], interp_env).returncode == 0
    (path,) = _sessions(interp_env).glob("*.jsonl")
    fake_server.add(Reply(text="never", delay=60))
    holder = subprocess.Popen(interp_cmd() + ["--resume", path.stem, "-y", "-e", "SECOND", *args],
                              env=interp_env["env"], cwd=interp_env["cwd"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    _wait_for(lambda: len(fake_server.requests) == 2, "request")
    holder.kill()  # no chance to clean up: the lock file stays, the lock does not
    holder.wait(timeout=30)
    assert lock_path(path).exists()
    fake_server.add("Third answer.")
    again = run_interp(["--resume", path.stem, "-y", "-e", "THIRD", *args], interp_env)
    assert again.returncode == 0, again.stderr
    task, answer = _contents(path)[-2:]
    assert task.endswith("\n\nTHIRD") and answer == "Third answer."


@pytest.mark.fast
def test_one_log_per_conversation_in_a_process_too(tmp_path):
    store = ConversationStore(tmp_path)
    log = store.create({"model": "m"})
    with pytest.raises(ConversationInUse, match=f"pid {os.getpid()}"):
        store.open(log.id)
    log.close()
    with store.open(log.id) as again:
        again.append_message(Entry({"role": "user", "content": "x"}))
    with pytest.raises(SessionBusy):
        lock = SessionLock(lock_path(log.path))
        try:
            SessionLock(lock_path(log.path))
        finally:
            lock.release()
