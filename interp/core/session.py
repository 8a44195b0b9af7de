"""The conversation loop: the model proposes code, the approver decides, runners execute."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from languages import Output, Registry, Result, RunnerConfig, RunnerError, default_registry

from interp.core import blocks
from interp.core import events as ev
from interp.core import exits
from interp.core import workspace
from interp.approval.decision import Approver, Decision, Proposal, auto_approve
from interp.core.attachments import check_attachable, describe_file
from interp.core.steps import EXECUTE_TOOL, Step
from interp.core import turns
from interp.core.textcalls import valid_arguments
from interp.core.report import report_messages
from interp.models.base import Model, ModelError, Reply, Retrying
from interp.core.system_prompt import system_prompt
from interp.core.payload import build_payload, has_images
from interp.core.text import clean, clean_reply



@dataclass(frozen=True)
class SessionConfig:
    """Settings of one conversation."""

    max_turns: int = 20
    timeout: float | None = 600.0
    tools: bool | str = "auto"  # auto | on | off (True: auto, False: off)
    runner: RunnerConfig = field(default_factory=RunnerConfig)
    report_files: bool = True  # snapshot the working directory around each block (block.files)


@dataclass
class Totals:
    """Tokens and cost so far."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cost_known: bool = True


STOPPED_NOTICE = "Stopped: nothing more runs in this turn."
STOPPED_NOTE = ("Note: the user stopped your previous turn (Esc or Ctrl-C); nothing more of it "
                "ran after that point.")


class Session(turns.TurnChecks):
    """A conversation whose `run(task)` streams the events that `--json` prints."""

    def __init__(self, model: Model, approver: Approver = auto_approve, *,
                 config: SessionConfig | None = None, registry: Registry | None = None,
                 history: list[dict] | None = None, log=None, session_id: str | None = None):
        self.model = model
        self.approver = approver
        self.config = config or SessionConfig()
        self.registry = registry or default_registry()
        self.log = log
        self.id = session_id or (log.id if log is not None else None)
        self.totals = Totals()
        self.always: set[str] = set()
        self.messages: list[dict] = list(history or [])
        self._log_reset = False  # reset() happened; the log learns of it before the next message
        if not self.messages or self.messages[0].get("role") != "system":
            self._add({"role": "system", "content": system_prompt(
                self.registry.names(), self.config.runner.cwd, self.registry.model_notes()),
                       "_prompt": "interp"})
        self._runners: dict[str, object] = {}
        self._current = None
        self._started = False
        self.exit_code = exits.OK
        self._denied = False  # a block was denied by policy and nothing has run since
        self.attachments: list[str] = []  # file descriptions for the next task (see attach)
        self.notes: list[str] = []  # notes for the model, sent with the next task (see tell)
        self._block = blocks.last_number(self.messages)  # the last block number used
        self._vision: tuple[object, bool] | None = None  # (model, supports_vision), cached
        self._tools: tuple[object, turns.ToolChoice] | None = None  # per model, decided once
        self._loops = turns.LoopGuard()
        self._empty_replies = 0  # in a row
        self._stop_requested = False  # stop() was called during this task

    # -- public API -----------------------------------------------------------
    def run(self, task: str) -> Iterator[ev.Event]:
        """Work on a task until the model stops proposing code; ends with task.finished."""
        task = clean(task)
        if not self._started:
            self._started = True
            yield ev.event(ev.SESSION_STARTED, session_id=self.id, model=self.model.name,
                           cwd=self.config.runner.cwd or os.getcwd(), resumed=len(self.messages) > 1)
        self._answer_dangling_calls()
        if self.notes:
            task = "\n\n".join([task, *self.notes])
            self.notes = []
        if self.attachments:
            task = f"{task}\n\nAttached files:\n\n" + "\n\n".join(self.attachments)
            self.attachments = []
        self._add({"role": "user", "content": task}, task=True)
        self._denied = False
        self._loops.reset()
        self._empty_replies = 0
        self._stop_requested = False
        code, reason = yield from self._loop()
        if code == exits.OK and self._denied:
            code, reason = exits.POLICY, "denied by policy"
        self.exit_code = code
        yield ev.event(ev.TASK_FINISHED, exit_code=code, reason=reason)

    def attach(self, path: str | os.PathLike) -> str:
        """Queue a file for the next task; returns its description (path, size, type, preview).

        The description is added after the text of the next task's user message. A relative
        path is taken from the session's working directory; a missing, unreadable or non-regular
        file raises attachments.AttachmentError."""
        resolved = check_attachable(Path(self._root(), Path(path).expanduser()))
        text = describe_file(resolved)
        self.attachments.append(text)
        return text

    def tell(self, note: str) -> None:
        """Queue a note for the model (e.g. that runner state was not restored); it is added
        after the text of the next task's user message."""
        self.notes.append(note)

    def interrupt(self) -> None:
        """Interrupt the block that is running, if any (thread- and signal-safe)."""
        runner = self._current
        if runner is not None:
            runner.interrupt()

    def stop(self) -> None:
        """End the turn: interrupt the running block, run no later block and call the model no
        more until the next task (thread- and signal-safe; the runners keep their state).

        A reply being streamed stops at its next chunk (a UI that must break a blocked read
        raises KeyboardInterrupt in the thread running the task). The model is told at the
        next task that the user stopped it."""
        self._stop_requested = True
        self.interrupt()

    def close(self) -> ev.Event:
        """Stop every runner; returns the session.finished event."""
        for runner in self._runners.values():
            runner.stop()
        self._runners.clear()
        if self.log is not None:
            self.log.close()
        return ev.event(ev.SESSION_FINISHED, session_id=self.id, exit_code=self.exit_code)

    def attach_log(self, log) -> None:
        """Start saving to `log`, writing the conversation so far."""
        self.log = log
        self.id = log.id
        self._log_reset = False
        for message in self.messages:
            log.append_message(message)

    @property
    def running(self) -> bool:
        """True while a block is executing."""
        return self._current is not None

    def reset(self) -> None:
        """Forget the conversation (keeping the system prompt) and restart the runners."""
        for runner in self._runners.values():
            runner.stop()
        self._runners.clear()
        self.messages = self.messages[:1]
        self.always.clear()
        self._block, self.notes = 0, []
        # A log left attached must not bring the old conversation back on --resume; written
        # lazily so that attaching a new log right away (/reset) leaves the old file intact.
        self._log_reset = self.log is not None

    def undo(self) -> int:
        """Drop the last exchange (the last task and everything after it); returns how many."""
        tasks = [i for i, m in enumerate(self.messages) if m.get("_task")]
        if not tasks:
            return 0
        dropped = len(self.messages) - tasks[-1]
        del self.messages[tasks[-1]:]
        if self.log is not None:
            self.log.append_undo(dropped)
        return dropped

    # -- the loop -------------------------------------------------------------
    def _loop(self) -> Iterator[ev.Event]:
        for turn in range(1, self.config.max_turns + 1):
            if self._stop_requested:
                return (yield from self._stopped())
            try:
                reply = yield from self._ask(turn)
            except ModelError as exc:
                yield ev.event(ev.NOTICE, level="error", text=str(exc), kind=exc.kind)
                return exits.MODEL_ERROR, "model error"
            except KeyboardInterrupt:
                self.tell(STOPPED_NOTE)
                yield ev.event(ev.NOTICE, level="warning", text="Reply interrupted.")
                return exits.INTERRUPTED, "interrupted"
            steps = self._steps(reply)
            yield ev.event(ev.MESSAGE, role="assistant", text=reply.text,
                           final=not steps and turns.is_answer(reply),
                           blocks=[{"index": self._block + n, "language": step.language}
                                   for n, step in enumerate(steps, 1) if step.fenced])
            yield self._turn_event(turn, reply)
            if not steps:
                ending = yield from self._no_steps(reply)
                if ending is None:
                    continue
                return ending
            self._empty_replies = 0
            stopped, carry_on = yield from self._act(steps)
            if stopped:
                return (yield from self._stopped())
            if self._loops.stuck:
                ending = self._loops.ending()
                yield ev.event(ev.NOTICE, level=ending.level, text=ending.notice)
                return ending.code, ending.reason
            if not carry_on:
                return exits.OK, "declined"
        yield ev.event(ev.NOTICE, level="warning",
                       text=f"Stopped after {self.config.max_turns} model calls (--max-turns).")
        return exits.MAX_TURNS, "max turns reached"

    def _stopped(self) -> Iterator[ev.Event]:
        """End a turn the user stopped; the model is told with the next task."""
        self.tell(STOPPED_NOTE)
        yield ev.event(ev.NOTICE, level="warning", text=STOPPED_NOTICE)
        return exits.INTERRUPTED, "stopped by the user"

    def _ask(self, turn: int) -> Iterator[ev.Event]:
        tools = [EXECUTE_TOOL] if (yield from self._tool_choice()) else None
        yield ev.event(ev.MODEL_REQUEST, turn=turn, model=self.model.name)
        reply, parts = None, []
        try:
            for item in self.model.stream(self.payload(tools=bool(tools)), tools):
                if isinstance(item, Reply):
                    reply = item
                elif isinstance(item, Retrying):
                    parts = [] if item.restart else parts
                    yield turns.retry_event(item)
                else:
                    parts.append(item)
                    yield ev.event(ev.MESSAGE_DELTA, text=item)
                if self._stop_requested:  # stop(): the rest of the reply is not awaited
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            self._save_partial("".join(parts), "[reply interrupted by the user]")
            raise
        except ModelError as exc:  # an attempt that started over may have received more
            text = "".join(parts)
            self._save_partial(exc.partial if len(exc.partial) > len(text) else text,
                               "[reply cut off by an error]")
            raise
        reply = clean_reply(reply or Reply("".join(parts), (), None, None))
        self._add(_assistant_message(reply) if not turns.is_empty(reply) else
                  {"role": "assistant", "content": turns.EMPTY_REPLY})  # APIs reject an empty one
        return reply

    def _act(self, steps: list[Step]) -> Iterator[ev.Event]:
        """Approve and run each step in order; returns (stopped, tell_model)."""
        records, tell, stopped = [], False, False
        for step in steps:
            self._block += 1
            index = self._block
            stopped = stopped or self._stop_requested
            if stopped:
                record = blocks.not_run(index, step.language, step.code, "skipped",
                                        "Not run: the user stopped the turn.", call_id=step.call_id)
            elif step.problem:
                record, tell = blocks.not_run(index, step.language, step.code, "skipped",
                                              step.problem, call_id=step.call_id), True
                yield ev.event(ev.NOTICE, level="warning", text=step.problem)
            else:
                record, ran, stopped = yield from self._approve_and_run(index, step)
                tell = tell or ran
                stopped = stopped or self._stop_requested
            records.append(record)
        self._report(records)
        return stopped, tell and not stopped

    def _approve_and_run(self, index: int, step: Step) -> Iterator[ev.Event]:
        """Ask about one block and run it if approved; returns (record, tell_model, stop)."""
        yield ev.event(ev.BLOCK_PROPOSED, index=index, language=step.language, code=step.code)
        decision = self._decide(Proposal(index, step.language, step.code))
        if decision.notice:
            yield ev.event(ev.NOTICE, level=decision.notice_level, text=decision.notice)
        if not decision.run:
            policy = {"policy": True} if decision.policy else {}
            self._denied = self._denied or decision.policy
            yield ev.event(ev.BLOCK_DECLINED, index=index, reason=decision.reason, **policy)
            status = "denied" if decision.policy else "declined"
            record = blocks.not_run(index, step.language, step.code, status, decision.reason,
                                    call_id=step.call_id)
            return record, decision.reason is not None, decision.stop
        self._denied = False
        if decision.always:
            self.always.add(step.language)
        code = decision.code if decision.code is not None else step.code
        edited = decision.edited(step.code)
        yield ev.event(ev.BLOCK_APPROVED, index=index, language=step.language, code=code,
                       edited=edited)
        result, files = yield from self._execute(index, step.language, code)
        python = None if result.ok else _python_of(self._runners.get(step.language))
        self._loops.saw(step.language, code, result)
        record = blocks.ran(index, step.language, code, result, files=files, python=python,
                            proposed=step.code if edited else None, call_id=step.call_id)
        yield ev.event(ev.BLOCK_FINISHED, index=index, **ev.finished_data(record))
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
        root = self._root()
        before = workspace.snapshot(root) if self.config.report_files else None
        try:
            fresh = language not in self._runners
            runner = self._runner(language)
            self._current = runner
            if fresh:  # a first start is slow: a block stopped meanwhile must not run
                runner.start()
            if self._stop_requested:
                result = _not_run()
            for item in () if self._stop_requested else runner.run(code, block=index):
                if isinstance(item, Output):
                    yield ev.event(ev.BLOCK_OUTPUT, index=index, text=item.text)
                    if self._stop_requested:  # stopped just as the block started
                        runner.interrupt()
                elif isinstance(item, Result):
                    result = item
        except RunnerError as exc:
            result = _failed_start(str(exc))
        finally:
            self._current = None
        for display in result.displays:
            yield ev.event(ev.BLOCK_DISPLAY, index=index, **ev.display_data(display))
        files = None
        if before is not None:
            changes = _without_figures(workspace.changes(before, workspace.snapshot(root)),
                                       root, result)
            if changes:
                files = blocks.FileChanges(tuple(changes.created), tuple(changes.modified),
                                           tuple(changes.deleted), workspace.describe(changes, root))
                yield ev.event(ev.BLOCK_FILES, index=index, created=changes.created,
                               modified=changes.modified, deleted=changes.deleted,
                               text=files.text)
        return result, files

    # -- helpers --------------------------------------------------------------
    def _root(self) -> str:
        """The session's working directory."""
        return self.config.runner.cwd or os.getcwd()

    def _runner(self, language: str):
        if language not in self._runners:  # the block timeout reaches runners only this way
            config = replace(self.config.runner, timeout=self.config.timeout,
                             spool_dir=self._spool_dir())
            self._runners[language] = self.registry.create(language, config)
        return self._runners[language]

    def _spool_dir(self) -> str | None:
        """Where full-output spool files go: with the saved session when there is one."""
        folder = getattr(self.log, "spool_dir", None)
        return os.fspath(folder) if folder is not None else self.config.runner.spool_dir

    def _report(self, records: list[blocks.BlockRecord]) -> None:
        """Tell the model what happened to each block (the messages keep the records)."""
        for message in self._loops.noted(report_messages(records)):
            self._add(message)

    def payload(self, tools: bool = False) -> list[dict]:
        """The messages the model is sent next: trimmed to its window, figures attached
        (`tools`: with the system prompt for the execute tool)."""
        messages = build_payload(self.messages, self.model,
                                 self._supports_vision() if has_images(self.messages) else False)
        messages = turns.valid_calls(messages)
        return self._with_tool_prompt(messages) if tools else messages

    def _supports_vision(self) -> bool:
        if self._vision is None or self._vision[0] is not self.model:
            self._vision = (self.model, bool(self.model.supports_vision()))
        return self._vision[1]

    def _turn_event(self, turn: int, reply: Reply) -> ev.Event:
        usage = reply.usage
        if usage is not None:
            self.totals.prompt_tokens += usage.prompt_tokens
            self.totals.completion_tokens += usage.completion_tokens
            if usage.cost is None:
                self.totals.cost_known = False
            else:
                self.totals.cost += usage.cost
        return ev.event(ev.TURN_COMPLETED, turn=turn,
                        usage={"prompt_tokens": usage.prompt_tokens,
                               "completion_tokens": usage.completion_tokens} if usage else None,
                        cost=usage.cost if usage else None)

    def _save_partial(self, text: str, note: str) -> None:
        if text:
            self._add({"role": "assistant", "content": f"{text}\n{note}"})

    def _add(self, message: dict, task: bool = False) -> None:
        message = clean(message)
        if task:
            message = dict(message, _task=True)
        self.messages.append(message)
        if self.log is not None:
            if self._log_reset:
                self._log_reset = False
                self.log.append_reset()
                for earlier in self.messages[:-1]:
                    self.log.append_message(earlier)
            self.log.append_message(message)

    def _answer_dangling_calls(self) -> None:
        """Give every tool call of the last assistant message a result (APIs reject it otherwise).

        Calls are left unanswered when a turn was cut short (Ctrl-C while events were handled) or
        the process died mid-block and the conversation was resumed."""
        for i in range(len(self.messages) - 1, -1, -1):
            message = self.messages[i]
            if message.get("role") == "tool":
                continue
            if message.get("role") != "assistant" or not message.get("tool_calls"):
                return
            answered = {m.get("tool_call_id") for m in self.messages[i + 1:]}
            for call in message["tool_calls"]:
                if call.get("id") not in answered:
                    self._add({"role": "tool", "tool_call_id": call.get("id"), "_output": True,
                               "content": "Not run or not finished: the turn was interrupted."})
            return


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


def _assistant_message(reply: Reply) -> dict:
    message: dict = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:  # arguments cut off mid-JSON are stored repaired: APIs reject them
        message["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name,
                                               "arguments": valid_arguments(c.arguments)}}
                                 for c in reply.tool_calls]
    return message


def _failed_start(message: str) -> Result:
    from languages.output import CapturedOutput

    empty = CapturedOutput("", "", 0, 0, 0, None)
    return Result(status="error", output=empty, error=message)


def _not_run() -> Result:
    """The result of a block the user stopped before it started."""
    from languages.output import CapturedOutput

    return Result(status="interrupted", output=CapturedOutput("", "", 0, 0, 0, None),
                  interrupted=True)
