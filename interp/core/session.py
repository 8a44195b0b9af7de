"""The conversation loop: the model proposes code, the approver decides, runners execute."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from languages import Registry, RunnerConfig, default_registry

from interp.approval.decision import Approver, auto_approve
from interp.core import blocks
from interp.core import events as ev
from interp.core import exits
from interp.core import turns
from interp.core.asking import ModelTurns
from interp.core.attachments import attachment_notice, check_attachable, describe_file
from interp.core.compaction import Compactor
from interp.core.mentions import mentioned_files
from interp.core.execution import BlockExecution
from interp.core.instructions import Instructions, with_instructions
from interp.core.system_prompt import system_prompt
from interp.core.text import clean
from interp.models.base import Model, ModelError


@dataclass(frozen=True)
class SessionConfig:
    """Settings of one conversation."""

    max_turns: int = 20
    timeout: float | None = 600.0
    tools: bool | str = "auto"  # auto | on | off (True: auto, False: off)
    runner: RunnerConfig = field(default_factory=RunnerConfig)
    report_files: bool = True  # snapshot the working directory around each block (block.files)
    instructions: Instructions | None = None  # AGENTS.md files, appended to the system prompt
    compact_at: float | None = 0.7  # share of the context window that starts a compaction
    mentions: bool = True  # describe the working folder's files a task names (as /file does)


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


class Session(ModelTurns, BlockExecution, turns.TurnChecks):
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
            self._add({"role": "system", "content": with_instructions(system_prompt(
                self.registry.names(), self.config.runner.cwd, self.registry.model_notes()),
                self.config.instructions), "_prompt": "interp"})
        self._runners: dict[str, object] = {}
        self._current = None
        self._started = False
        self.exit_code = exits.OK
        self._denied = False  # a block was denied by policy and nothing has run since
        self.attachments: list[str] = []  # file descriptions for the next task (see attach)
        self._attached: set[Path] = set()  # the files those describe
        self.notes: list[str] = []  # notes for the model, sent with the next task (see tell)
        self._block = blocks.last_number(self.messages)  # the last block number used
        self._vision: tuple[object, bool] | None = None  # (model, supports_vision), cached
        self._tools: tuple[object, turns.ToolChoice] | None = None  # per model, decided once
        self._loops = turns.LoopGuard()
        self._empty_replies = 0  # in a row
        self._untagged_told = False  # told this task how to tag a fence
        self._stop_requested = False  # stop() was called during this task
        self._compactor = Compactor(self.config.compact_at)
        self._task = ""  # the current task, as typed

    # -- public API -----------------------------------------------------------
    def run(self, task: str) -> Iterator[ev.Event]:
        """Work on a task until the model stops proposing code; ends with task.finished."""
        task = clean(task)
        self._task = task  # as typed: restated to the model after each report
        if not self._started:
            self._started = True
            yield ev.SessionStarted(session_id=self.id, model=self.model.name,
                           cwd=self.config.runner.cwd or os.getcwd(), resumed=len(self.messages) > 1,
                           instructions=self.config.instructions.paths
                           if self.config.instructions is not None else [])
        self._answer_dangling_calls()
        if self.notes:  # before the request: a small model answers whatever comes last
            task = "\n\n".join([*self.notes, task])
            self.notes = []
        if self.config.mentions:
            yield from self._describe_mentions(task)
        if self.attachments:
            task = f"{task}\n\nAttached files:\n\n" + "\n\n".join(self.attachments)
            self.attachments, self._attached = [], set()
        self._add({"role": "user", "content": task}, task=True)
        self._denied = False
        self._loops.reset()
        self._empty_replies = 0
        self._untagged_told = False
        self._stop_requested = False
        code, reason = yield from self._loop()
        yield from self._saving_stopped()
        if code == exits.OK and self._denied:
            code, reason = exits.POLICY, "denied by policy"
        self.exit_code = code
        yield ev.TaskFinished(exit_code=code, reason=reason)

    def attach(self, path: str | os.PathLike) -> str:
        """Queue a file for the next task; returns its description (path, size, type, preview).

        The description is added after the text of the next task's user message. A relative
        path is taken from the session's working directory; a missing, unreadable or non-regular
        file raises attachments.AttachmentError."""
        resolved = check_attachable(Path(self._root(), Path(path).expanduser()))
        text = describe_file(resolved)
        self.attachments.append(text)
        self._attached.add(resolved.resolve())
        return text

    def _describe_mentions(self, task: str) -> Iterator[ev.Event]:
        """Attach the files of the working folder that the task names (not attached yet)."""
        for path in mentioned_files(task, self._root()):
            if path not in self._attached:
                self._attached.add(path)
                self.attachments.append(describe_file(path))
                yield ev.Notice(level="info", text=attachment_notice(
                    self.attachments[-1], "Named in the task, so described to the model:"))

    def tell(self, note: str) -> None:
        """Queue a note for the model (e.g. that runner state was not restored); it is put
        before the text of the next task's user message."""
        self.notes.append(note)

    def compact(self, focus: str | None = None, *, auto: bool = False) -> Iterator[ev.Event]:
        """Have the model summarise the earlier conversation (interp/core/compaction.py): it is
        sent the summary, the system prompt, the current task and the last blocks from then on;
        the history is kept. Yields context.compacting and context.compacted, or a notice;
        returns True when the conversation was compacted."""
        self._answer_dangling_calls()
        summary = yield from self._compactor.run(self, focus=focus, auto=auto)
        if summary is None:
            return False
        self._add(summary)
        yield self._compactor.done(self)
        return True

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
        if self.checkpoints is not None:
            self.checkpoints.close()
        if self.log is not None:
            self.log.close()
        return ev.SessionFinished(session_id=self.id, exit_code=self.exit_code)

    def attach_log(self, log) -> None:
        """Start saving to `log`, writing the conversation so far."""
        self.log = log
        self.id = log.id
        self._log_reset = False
        for message in self.messages:
            log.append_message(message)

    def runners(self) -> list:
        """The runners started so far, one per language."""
        return list(self._runners.values())

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
            yield from self._saving_stopped()
            if self._stop_requested:
                return (yield from self._stopped())
            try:
                reply = yield from self._ask(turn)
            except ModelError as exc:
                yield ev.Notice(level="error", text=str(exc), kind=exc.kind)
                return exits.MODEL_ERROR, "model error"
            except KeyboardInterrupt:
                self.tell(STOPPED_NOTE)
                yield ev.Notice(level="warning", text="Reply interrupted.")
                return exits.INTERRUPTED, "interrupted"
            steps = self._steps(reply)
            yield from self._tools_after(reply)
            untagged = not steps and self._tag_nudge_due(reply)
            yield ev.Message(role="assistant", text=reply.text,
                             final=not steps and turns.is_answer(reply) and not untagged,
                             blocks=[{"index": self._block + n, "language": step.language}
                                     for n, step in enumerate(steps, 1) if step.fenced])
            yield self._turn_event(turn, reply)
            if not steps:
                ending = yield from self._no_steps(reply, untagged)
                if ending is None:
                    continue
                return ending
            self._empty_replies = 0
            stopped, carry_on = yield from self._act(steps)
            if stopped:
                return (yield from self._stopped())
            if self._loops.stuck:
                if not self._loops.asked:
                    yield ev.Notice(level="info",
                                   text=turns.LOOP_NOTICE.format(n=self._loops.limit))
                    self._add(self._loops.ask_for_answer())
                    continue
                ending = self._loops.ending()
                yield ev.Notice(level=ending.level, text=ending.notice)
                return ending.code, ending.reason
            if not carry_on:
                return exits.OK, "declined"
        yield ev.Notice(level="warning",
                       text=f"Stopped after {self.config.max_turns} model calls (--max-turns).")
        return exits.MAX_TURNS, "max turns reached"

    def _stopped(self) -> Iterator[ev.Event]:
        """End a turn the user stopped; the model is told with the next task."""
        self.tell(STOPPED_NOTE)
        yield ev.Notice(level="warning", text=STOPPED_NOTICE)
        return exits.INTERRUPTED, "stopped by the user"

    # -- helpers --------------------------------------------------------------
    def _saving_stopped(self) -> Iterator[ev.Event]:
        """A warning, once, when the conversation's file could no longer be written."""
        lost = getattr(self.log, "take_failure", lambda: None)()
        if lost:
            yield ev.Notice(level="warning", text=lost)

    def _root(self) -> str:
        """The session's working directory."""
        return self.config.runner.cwd or os.getcwd()

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
