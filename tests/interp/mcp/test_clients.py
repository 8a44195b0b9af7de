"""One client's state with real runners: blocks saved as a conversation, approval decided
before anything runs, and nothing left running once the session is closed, even a runner that
restarted itself while it was being closed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from languages import RunnerConfig, default_registry

from interp.approval.decision import Decision, auto_approve
from interp.approval.policy import Policy, registry_resolver
from interp.mcp.clients import ClientState
from interp.mcp.config import ServerConfig
from interp.mcp.tools import RunCode
from interp.storage.export import conversation_items
from interp.storage.conversations import ConversationStore
from mcp_kit import kill_all, wait_gone

REGISTRY = default_registry(plugins=False)


def state(tmp_path: Path, timeout: float = 60) -> ClientState:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    config = ServerConfig(registry=REGISTRY, runner=RunnerConfig(cwd=str(work), grace=0.5),
                          timeout=timeout, store=ConversationStore(tmp_path / "sessions"),
                          policy=lambda: Policy.from_table({}, None, registry_resolver(REGISTRY)))
    return ClientState(config, "tester 1.0")


def children() -> set[int]:
    """This process's child processes (the runners it started)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2:].split()[1]) == os.getpid():
                found.add(int(entry.name))
    return found


def test_blocks_that_ran_and_that_did_not_are_saved_as_execute_calls(tmp_path):
    client = state(tmp_path)
    try:
        ran = client.run(RunCode("python", "print(6 * 7)"), auto_approve)
        refused = client.run(RunCode("shell", "rm -rf x"),
                             lambda p: Decision(run=False, reason="no", policy=True))
    finally:
        client.close()
    assert ran.record.status == "ok" and ran.record.output_head == "42\n"
    assert refused.record.status == "denied" and refused.record.index == 2
    messages = client.config.store.load(ran.session_id)
    assert messages[0].content == "MCP client tester 1.0: blocks run through `interp mcp`."
    items = [item for kind, item in conversation_items(messages) if kind == "block"]
    assert [(b.index, b.language, b.status) for b in items] == [(1, "python", "ok"),
                                                               (2, "shell", "denied")]


def test_closing_stops_every_runner_even_one_that_restarts_itself_meanwhile(tmp_path):
    client = state(tmp_path)
    before = children()
    client.run(RunCode("shell", "true"), auto_approve)
    stubborn = ("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                "print('ready', flush=True)\ntime.sleep(120)")
    ready = threading.Event()
    done: list = []
    worker = threading.Thread(target=lambda: done.append(client.run(
        RunCode("python", stubborn), auto_approve,
        lambda text: ready.set() if "ready" in text else None)))
    worker.start()
    started = children() - before
    try:
        assert ready.wait(60)
        client.close()  # the interrupt is ignored: the run kills and restarts its interpreter
        worker.join(60)
        assert not worker.is_alive() and done[0].record.status in ("died", "interrupted")
        assert wait_gone(list(children() - before)) == []
        assert wait_gone(list(started)) == []
        assert client.running() == []
    finally:
        kill_all(list(children() - before))


def test_nothing_runs_once_the_session_has_ended(tmp_path):
    client = state(tmp_path)
    client.close()
    after = client.run(RunCode("python", "print('late')"), auto_approve)
    assert after.record.status == "error" and after.record.error == "the MCP session has ended"
    assert client.running() == []
