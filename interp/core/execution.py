"""Running a reply's blocks, a part of the conversation loop: approve each block, run it in
its language's runner, and report what happened."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import replace

from languages import Output, Result, RunnerError
from languages.records import CapturedOutput

from interp.approval.decision import Approver, Decision, Proposal
from interp.core import blocks
from interp.core import events as ev
from interp.core import taskfiles
from interp.core import workspace
from interp.core.expectations import mismatch_note, mismatches
from interp.core.inplace import changed_nothing
from interp.core.loops import LoopGuard, Rewrite
from interp.core.mentions import mentioned_names, unwritten_files
from interp.core.report import next_step, report_messages, with_footer
from interp.core.savedscripts import copied_script, unwritten_script
from interp.core.state import SessionState
from interp.core.steps import Step

REPEAT_NOT_RUN = ("Not run: the same code already ran several times with the same result, and "
                  "you were asked for your final answer instead.")


class BlockExecutor:
    """Runs the steps of a reply, one block at a time: asks `approver` (unless the language
    is always allowed), runs the block in its language's runner (started once, kept for its
    state), and adds the report to the conversation in `state`. `loops` spots code run again
    and again; `supports_vision` says whether figures reach the model as images."""

    def __init__(self, state: SessionState, approver: Approver, loops: LoopGuard,
                 supports_vision: Callable[[], bool]) -> None:
        self.state = state
        self.approver = approver
        self.loops = loops
        self.supports_vision = supports_vision
        self.checkpoints = None  # records the folder around each block (interp.checkpoints)
        self.always: set[str] = set()  # languages the person allowed for the session
        self.runners: dict[str, object] = {}  # one per language
        self.current = None  # the runner of the block that is running
        self.denied = False  # a block was denied by policy and nothing has run since
        self.written: list[str] = []  # the files this task's blocks created or changed

    def act(self, steps: list[Step]) -> Iterator[ev.Event]:
        """Approve and run each step in order; returns (stopped, tell_model)."""
        state = self.state
        records, tell, stopped = [], False, False
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
            elif step.fenced and (why := unwritten_script(
                    step.language, step.code, state.root(),
                    {r.language for r in records if r.ran})):
                record = blocks.not_run(index, step.language, step.code, "skipped", why)
                yield ev.Notice(level="info", text=why)
            else:
                record, ran, stopped = yield from self._approve_and_run(index, step)
                tell = tell or ran
                stopped = stopped or state.stop_requested
            records.append(record)
        self.loops.end_reply()
        self._report(records)
        return stopped, tell and not stopped

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
        if step.note:
            yield ev.Notice(level="info", text=step.note)
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
            changes = _without_figures(workspace.changes(before, after), root, result)
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

    def _report(self, records: list[blocks.BlockRecord]) -> None:
        """Tell the model what happened to each block (the messages keep the records)."""
        written = [name for r in records if r.files for name in (*r.files.created,
                                                                  *r.files.modified)]
        root, task = self.state.root(), self.state.task
        self.written += [name for name in written if name not in self.written]
        named = mentioned_names(task, root)
        deleted = [name for r in records if r.files for name in r.files.deleted]
        ran = [r for r in records if r.ran]
        last = ran[-1] if ran else None
        copy_note = (changed_nothing(last.code, last.output_text(), last.index)
                     if last and last.status == "ok" and last.language == "python" else None)
        found = [copy_note] if copy_note else []
        unmet = taskfiles.unmet(task, written, root, named, deleted, unwritten_files(task, root),
                                "\n".join(r.code for r in ran),
                                found) if written or deleted or found else None
        if unmet and last and last.status == "ok":
            fixed = taskfiles.rekeyed_code(last.code, written, root, named)
            self.loops.fell_short(last.language, last.code, last.index,
                                  Rewrite(*fixed) if fixed else None)
        elif wrong := _unexpected(last):
            self.loops.fell_short(last.language, last.code, last.index)
            unmet = wrong  # said on a repeat instead of asking for the answer
        repeated = self.loops.note(unmet)
        checked = (taskfiles.filled_count(task, written, root, named, last.output_text())
                   if written and not unmet and last and last.status == "ok" else None)
        footer = repeated or next_step(records, task, unmet, checked)
        if footer and not repeated and last is not None and last.status == "error":
            footer += self.loops.fixed_note(last.index)  # a small model copies a block best
        if note := self._copied_script(records, set(written), named):
            footer = f"{note}\n{footer}" if footer else note
        plots = any(r.plots for r in records) and not self.supports_vision()
        for message in with_footer(report_messages(records, plots), footer):
            self.state.add(message)

    def unmet_now(self) -> str | None:
        """taskfiles.unmet's note on the files this task wrote, as they are now (or None)."""
        root, task = self.state.root(), self.state.task
        there = [name for name in self.written if os.path.isfile(os.path.join(root, name))]
        if not there:
            return None
        return taskfiles.unmet(task, there, root, mentioned_names(task, root),
                               missing=unwritten_files(task, root))

    def _copied_script(self, records: list[blocks.BlockRecord], changed: set[str],
                       names: list[str]) -> str | None:
        """The note for a block that ran a copy of a script the task names (`names`), which
        itself did not change (see copied_script); `changed`: the files the blocks wrote."""
        root = self.state.root()
        for record in records:
            if names and record.ran and (note := copied_script(record.code, names, root, changed)):
                return note
        return None


def _unexpected(last: blocks.BlockRecord | None) -> str | None:
    """The note for a Python block that ran to the end and printed other than its comments
    (or docstring examples) expect (expectations.py), or None: its code did not do the task."""
    if last is None or last.status != "ok" or last.language != "python":
        return None
    found = mismatches(last.code, last.output_text())
    return mismatch_note(found) if found else None


def _notices(lines: list[str]) -> Iterator[ev.Event]:
    for text in lines:
        yield ev.Notice(level="warning", text=text)


def _python_of(runner) -> str | None:
    """The interpreter a Python runner uses (for install hints), else None."""
    try:
        return runner.executable() if getattr(runner, "name", None) == "python" else None
    except Exception:  # a hint is never worth an error
        return None


def _without_figures(changes: workspace.Changes, root: str, result: Result) -> workspace.Changes:
    """Changes minus the figures the block's displays already report (no double reporting)."""
    figures = {os.path.realpath(d.path) for d in result.displays if d.kind == "image" and d.path}
    if not figures:
        return changes

    def keep(rel: str) -> bool:
        return os.path.realpath(os.path.join(root, rel)) not in figures

    return replace(changes, created=[p for p in changes.created if keep(p)],
                   modified=[p for p in changes.modified if keep(p)])


def _failed_start(message: str) -> Result:
    empty = CapturedOutput("", "", 0, 0, 0, None)
    return Result(status="error", output=empty, error=message)


def _not_run() -> Result:
    """The result of a block the user stopped before it started."""
    return Result(status="interrupted", output=CapturedOutput("", "", 0, 0, 0, None),
                  interrupted=True)
