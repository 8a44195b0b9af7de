"""BlockExecutor alone: a SessionState, an approver and a real bash runner (no Session, no
model)."""

from __future__ import annotations

from session_kit import hang_guard

from interp.approval.decision import Decision
from interp.core import events as ev
from interp.core.loop.execution import BlockExecutor
from interp.core.history import Entry
from interp.core.state import SessionConfig, SessionState
from interp.core.replies.steps import Step
from interp.core.loop.repeats import LoopGuard
from interp.core.loop.turns import TurnChecks
from interp.models.base import Reply
from languages import Registry, RunnerConfig
from languages.shell import ShellRunner


def executor(tmp_path, approver) -> BlockExecutor:
    config = SessionConfig(runner=RunnerConfig(cwd=str(tmp_path)))
    state = SessionState(None, config, Registry([ShellRunner]),
                         [Entry({"role": "system", "content": "sys"})], task="make a file")
    checks = TurnChecks(state)
    checks.new_task()
    return BlockExecutor(state, approver, LoopGuard(), checks, supports_vision=lambda: False)


def act(blocks: BlockExecutor, steps: list[Step]):
    out, run = [], blocks.act(steps, Reply("", (), None, "stop"))
    with hang_guard():
        try:
            while True:
                out.append(next(run))
        except StopIteration as stop:
            return out, stop.value


def test_an_approved_block_runs_and_its_report_joins_the_conversation(tmp_path):
    blocks = executor(tmp_path, lambda proposal: Decision(run=True))
    try:
        events, (stopped, tell) = act(blocks, [Step("shell", "echo hi > f.txt; echo done")])
    finally:
        blocks.stop_runners()
    kinds = [type(e) for e in events]
    assert kinds == [ev.BlockProposed, ev.BlockApproved, ev.BlockOutput, ev.BlockFiles,
                     ev.BlockFinished]
    assert events[2].text == "done\n" and events[3].created == ["f.txt"]
    assert events[-1].status == "ok" and events[-1].index == 1
    assert (stopped, tell) == (False, True) and blocks.state.block == 1
    report = blocks.state.messages[-1]
    assert report.role == "user" and "done" in report.content
    assert "Your task: make a file" in report.content  # the footer restates the task
    assert not blocks.runners  # stopped


def test_a_block_denied_by_policy_does_not_run_and_is_remembered(tmp_path):
    asked = []

    def deny(proposal):
        asked.append(proposal.code)
        return Decision(run=False, reason="no rm", policy=True)

    blocks = executor(tmp_path, deny)
    (tmp_path / "keep.txt").write_text("x")
    events, (stopped, tell) = act(blocks, [Step("shell", "rm keep.txt")])
    assert asked == ["rm keep.txt"] and (tmp_path / "keep.txt").exists()
    assert events[-1] == ev.BlockDeclined(index=1, reason="no rm", policy=True)
    assert blocks.denied and not blocks.runners and (stopped, tell) == (False, True)
    assert "no rm" in blocks.state.messages[-1].content


def test_a_language_allowed_always_is_not_asked_again(tmp_path):
    asked = []

    def once(proposal):
        asked.append(proposal.index)
        return Decision(run=True, always=True)

    blocks = executor(tmp_path, once)
    try:
        events, _ = act(blocks, [Step("shell", "echo 1"), Step("shell", "echo 2")])
    finally:
        blocks.stop_runners()
    assert asked == [1] and blocks.always == {"shell"}
    assert [e.text for e in events if isinstance(e, ev.BlockOutput)] == ["1\n", "2\n"]


def test_a_stop_requested_skips_the_blocks(tmp_path):
    blocks = executor(tmp_path, lambda proposal: Decision(run=True))
    blocks.state.stop_requested = True
    events, (stopped, tell) = act(blocks, [Step("shell", "echo never")])
    assert events == [] and stopped and not tell
    assert "Not run: the user stopped the turn." in blocks.state.messages[-1].content
