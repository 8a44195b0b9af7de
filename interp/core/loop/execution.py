"""Running a reply's blocks, a part of the conversation loop: approve each block, run it in
its language's runner, and report what happened."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from languages import Output, Result, RunnerError
from languages.records import CapturedOutput, image_paths

from interp.approval.decision import Approver, Decision, Proposal
from interp.core import blocks
from interp.core import events as ev
from interp.core.files import workspace
from interp.core.checks.form import answer_form
from interp.core.loop.repeats import LoopGuard
from interp.core.replies.report import (next_step, output_chars, report_messages, restated,
                                        with_footer)
from interp.core.state import SessionState
from interp.core.replies.steps import Step
from interp.core.loop.turns import TurnChecks
from interp.models.base import Reply

@dataclass(frozen=True)
class AfterBlock:
    """What a watcher of blocks (the PostToolUse hooks, interp.hooks) makes of a block that
    ran: lines for the person, and text the model is told after the reply's report."""

    notices: tuple[ev.Notice, ...] = ()
    told: tuple[str, ...] = ()


BlockWatcher = Callable[[blocks.BlockRecord], AfterBlock]

REPEAT_NOT_RUN = ("Not run: the same code already ran several times with the same result, and "
                  "you were asked for your final answer instead.")


class BlockExecutor:
    """Runs the steps of a reply, one block at a time: asks `approver` (unless the language
    is always allowed), runs the block in its language's runner (started once, kept for its
    state), and adds the report to the conversation in `state`. `loops` spots code run again
    and again; `checks` runs the reply checks on the blocks once they ran; `supports_vision`
    says whether figures reach the model as images."""

    def __init__(self, state: SessionState, approver: Approver, loops: LoopGuard,
                 checks: TurnChecks, supports_vision: Callable[[], bool]) -> None:
        self.state = state
        self.approver = approver
        self.loops = loops
        self.checks = checks
        self.supports_vision = supports_vision
        self.checkpoints = None  # records the folder around each block (interp.checkpoints)
        self.always: set[str] = set()  # languages the person allowed for the session
        self.runners: dict[str, object] = {}  # one per language
        self.current = None  # the runner of the block that is running
        self.denied = False  # a block was denied by policy and nothing has run since
        self.after_block: BlockWatcher | None = None  # told of every block that ran
        self._told: list[str] = []  # what watchers tell the model with this reply's report

    def act(self, steps: list[Step], reply: Reply) -> Iterator[ev.Event]:
        """Approve and run each step of `reply` in order, then report them; returns
        (stopped, tell_model)."""
        state = self.state
        records, tell, stopped = [], False, False
        self._told = []
        for step in steps:
            state.block += 1
            index = state.block
            stopped = stopped or state.stop_requested
            if stopped:
                record = blocks.not_run(index, step.language, step.code, "skipped",
                                        "Not run: the user stopped the turn.", call_id=step.call_id)
            elif self.loops.repeats_after_asking(step.language, step.code):
                record = blocks.not_run(index, step.language, step.code, "skipped",
                                        REPEAT_NOT_RUN, call_id=step.call_id)
            elif step.problem:
                record, tell = blocks.not_run(index, step.language, step.code, "skipped",
                                              step.problem, call_id=step.call_id), True
                yield ev.Notice(level="warning", text=step.problem)
            else:
                record, ran, stopped = yield from self._approve_and_run(index, step)
                tell = tell or ran
                stopped = stopped or state.stop_requested
            records.append(record)
        self.loops.end_reply()
        footer = self.loops.note()  # the same code again: said before any check's request
        request = None if stopped or footer else self.checks.on_report(reply, records)
        if request is not None and request.block is not None:  # interp proposes a block
            yield ev.Notice(level="info", text=request.notice, check=request.check)
            record, stopped = yield from self._propose(request.block)
            records.append(record)
            tell = True
            request = None if stopped else self.checks.on_report(reply, records)
        if request is not None:
            yield ev.Notice(level="info", text=request.notice, check=request.check)
            footer = restated(state.task, request.message)
        footer = footer or next_step(records, state.task, answer_form(state.task).said)
        self._report(records, "\n".join([*self._told, footer] if footer else self._told))
        return stopped, tell and not stopped

    def _propose(self, block) -> Iterator[ev.Event]:
        """Approve and run a block interp proposes itself (a check's); returns (record, stop)."""
        self.state.block += 1
        step = Step(block.language, block.code)
        record, _, stopped = yield from self._approve_and_run(self.state.block, step)
        return record, stopped or self.state.stop_requested

    def interrupt(self) -> None:
        """Interrupt the block that is running, if any (thread- and signal-safe)."""
        runner = self.current
        if runner is not None:
            runner.interrupt()

    def stop_runners(self) -> None:
        """Stop every runner (a later block starts a fresh one)."""
        for runner in self.runners.values():
            runner.stop()
        self.runners.clear()

    def _approve_and_run(self, index: int, step: Step) -> Iterator[ev.Event]:
        """Ask about one block and run it if approved; returns (record, tell_model, stop)."""
        yield ev.BlockProposed(index=index, language=step.language, code=step.code)
        if self.checkpoints is not None:  # starts recording while the person reads the block
            yield from _notices(self.checkpoints.prepare(self.state))
        decision = self._decide(Proposal(index, step.language, step.code))
        if decision.notice:
            yield ev.Notice(level=decision.notice_level, text=decision.notice)
        if not decision.run:
            self.denied = self.denied or decision.policy
            yield ev.BlockDeclined(index=index, reason=decision.reason,
                                   policy=bool(decision.policy))
            status = "denied" if decision.policy else "declined"
            record = blocks.not_run(index, step.language, step.code, status, decision.reason,
                                    call_id=step.call_id)
            return record, decision.reason is not None, decision.stop
        self.denied = False
        if decision.always:
            self.always.add(step.language)
        code = decision.code if decision.code is not None else step.code
        edited = decision.edited(step.code)
        yield ev.BlockApproved(index=index, language=step.language, code=code, edited=edited)
        result, files = yield from self._execute(index, step.language, code)
        python = None if result.ok else _python_of(self.runners.get(step.language))
        self.loops.saw(step.language, code, result, index)
        record = blocks.ran(index, step.language, code, result, files=files, python=python,
                            proposed=step.code if edited else None, call_id=step.call_id)
        yield ev.BlockFinished.of(index, record)
        if self.after_block is not None:
            said = self.after_block(record)
            yield from said.notices
            self._told.extend(said.told)
        return record, True, False

    def _decide(self, proposal: Proposal) -> Decision:
        if proposal.language in self.always:
            return Decision(run=True)
        try:
            return self.approver(proposal)
        except KeyboardInterrupt:
            return Decision(run=False, reason=None, stop=True)

    def _execute(self, index: int, language: str, code: str) -> Iterator[ev.Event]:
        """Run a block; returns (result, the files it changed or None)."""
        state = self.state
        root = state.root()
        guard = self.checkpoints
        skip = state.config.unwatched
        before = (workspace.snapshot(root, skip=skip) if state.config.report_files or guard
                  else None)
        if guard is not None:
            yield from _notices(guard.before_block(state, index, language, before))
        try:
            fresh = language not in self.runners
            runner = self._runner(language)
            self.current = runner
            if fresh:  # a first start is slow: a block stopped meanwhile must not run
                runner.start()
            if state.stop_requested:
                result = _not_run()
            for item in () if state.stop_requested else runner.run(code, block=index):
                if isinstance(item, Output):
                    yield ev.BlockOutput(index=index, text=item.text)
                    if state.stop_requested:  # stopped just as the block started
                        runner.interrupt()
                elif isinstance(item, Result):
                    result = item
        except RunnerError as exc:
            result = _failed_start(str(exc))
        finally:
            self.current = None
        for display in result.displays:
            yield ev.display_event(index, display)
        if result.background:  # processes it left running (languages/background.py)
            yield ev.BlockBackground(index=index,
                                     processes=[p.to_dict() for p in result.background])
        files = None
        after = workspace.snapshot(root, skip=skip) if before is not None else None
        if guard is not None:
            yield from _notices(guard.after_block(state, index, after))
        if after is not None and state.config.report_files:
            changes = workspace.changes(before, after).without(image_paths(result.displays), root)
            if changes:
                files = blocks.FileChanges(tuple(changes.created), tuple(changes.modified),
                                           tuple(changes.deleted), workspace.describe(changes, root))
                yield ev.BlockFiles(index=index, created=changes.created,
                                    modified=changes.modified, deleted=changes.deleted,
                                    text=files.text)
        return result, files

    def _runner(self, language: str):
        if language not in self.runners:  # the block timeout reaches runners only this way
            config = self.state.config
            runner_config = replace(config.runner, timeout=config.timeout,
                                    spool_dir=self._spool_dir())
            self.runners[language] = self.state.registry.create(language, runner_config)
        return self.runners[language]

    def _spool_dir(self) -> str | None:
        """Where full-output spool files go: with the saved session when there is one."""
        folder = getattr(self.state.log, "spool_dir", None)
        return os.fspath(folder) if folder is not None else self.state.config.runner.spool_dir

    def _report(self, records: list[blocks.BlockRecord], footer: str | None) -> None:
        """Tell the model what happened to each block (the messages keep the records), ending
        with `footer`."""
        plots = any(r.plots for r in records) and not self.supports_vision()
        chars = output_chars(self.state.config.max_output, self.state.model)
        for message in with_footer(report_messages(records, plots, chars), footer):
            self.state.add(message)


def _notices(lines: list[str]) -> Iterator[ev.Event]:
    for text in lines:
        yield ev.Notice(level="warning", text=text)


def _python_of(runner) -> str | None:
    """The interpreter a Python runner uses (for install hints), else None."""
    try:
        return runner.executable() if getattr(runner, "name", None) == "python" else None
    except Exception:  # a hint is never worth an error
        return None


def _failed_start(message: str) -> Result:
    empty = CapturedOutput("", "", 0, 0, 0, None)
    return Result(status="error", output=empty, error=message)


def _not_run() -> Result:
    """The result of a block the user stopped before it started."""
    return Result(status="interrupted", output=CapturedOutput("", "", 0, 0, 0, None),
                  interrupted=True)
