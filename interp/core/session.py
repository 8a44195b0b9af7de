"""The conversation loop: the model proposes code, the approver decides, runners execute."""

from __future__ import annotations

import os
from collections.abc import Iterator

from languages import Registry, default_registry

from interp.approval.decision import Approver, auto_approve
from interp.core import events as ev
from interp.core import exits
from interp.core.loop import turns
from interp.core.loop.asking import ModelAsker
from interp.core.prompt.compaction import Compactor
from interp.core.loop.execution import BlockExecutor
from interp.core.history import Entry, last_number
from interp.core.loop.repeats import LoopGuard
from interp.core.files.next_task import NextTask
from interp.core.state import SessionConfig, SessionState, Totals
from interp.core.prompt.system_prompt import shell_of, system_prompt
from interp.core.text import clean
from interp.models.base import Model, ModelError

__all__ = ["STOPPED_NOTE", "STOPPED_NOTICE", "Session", "SessionConfig", "Totals"]

STOPPED_NOTICE = "Stopped: nothing more runs in this turn."
STOPPED_NOTE = ("Note: the user stopped your previous turn (Esc or Ctrl-C); nothing more of it "
                "ran after that point.")


class Session:
    """A conversation whose `run(task)` streams the events that `--json` prints.

    It holds its parts and calls them: `ModelAsker` (asking.py) asks the model,
    `BlockExecutor` (execution.py) runs a reply's blocks, `TurnChecks` (turns.py) decides
    what a reply means and runs the reply checks (checks/); they share one `SessionState`
    (state.py)."""

    def __init__(self, model: Model, approver: Approver = auto_approve, *,
                 config: SessionConfig | None = None, registry: Registry | None = None,
                 history: list[Entry] | None = None, log=None, session_id: str | None = None):
        config = config or SessionConfig()
        registry = registry or default_registry()
        self._state = state = SessionState(
            model, config, registry, list(history or []), log,
            session_id or (log.id if log is not None else None))
        if not state.messages or state.messages[0].role != "system":
            state.add(Entry({"role": "system", "content": config.extend_prompt(system_prompt(
                registry.names(), config.runner.cwd, registry.model_notes(),
                shell=shell_of(registry)))}, prompt=True))
        state.block = last_number(state.messages)
        self._loops = LoopGuard()
        self._checks = turns.TurnChecks(state)
        self._asker = ModelAsker(state, self._checks)
        self._blocks = BlockExecutor(state, approver, self._loops, self._checks,
                                     self._asker.supports_vision)
        self._compactor = Compactor(config.compact_at)
        self._started = False
        self.exit_code = exits.OK
        self._next = NextTask(state.root)  # notes and files for the next task's message
        self.answer: str | None = None  # the last task's final answer, if it gave one
        self.structured_output = None  # --output-schema: that answer's JSON value, if valid

    # -- what the parts share, as attributes -------------------------------------------
    @property
    def model(self) -> Model:
        """The model asked (may be replaced between tasks: /model)."""
        return self._state.model

    @model.setter
    def model(self, model: Model) -> None:
        self._state.model = model

    @property
    def config(self) -> SessionConfig:
        return self._state.config

    @property
    def registry(self) -> Registry:
        return self._state.registry

    @property
    def messages(self) -> list[Entry]:
        """The conversation, the system prompt first: one Entry (history.py) per message."""
        return self._state.messages

    @messages.setter
    def messages(self, messages: list[Entry]) -> None:
        self._state.messages = messages

    @property
    def log(self):
        """The saved conversation (interp.storage), or None."""
        return self._state.log

    @property
    def id(self) -> str | None:
        return self._state.id

    @property
    def totals(self) -> Totals:
        return self._state.totals

    @property
    def approver(self) -> Approver:
        return self._blocks.approver

    @approver.setter
    def approver(self, approver: Approver) -> None:
        self._blocks.approver = approver

    @property
    def always(self) -> set[str]:
        """Languages the person allowed for the rest of the session."""
        return self._blocks.always

    @property
    def checkpoints(self):
        """Records the folder around each block (interp.checkpoints), or None."""
        return self._blocks.checkpoints

    @checkpoints.setter
    def checkpoints(self, checkpoints) -> None:
        self._blocks.checkpoints = checkpoints

    @property
    def after_block(self):
        """Told of every block that ran, before the reply's report (execution.BlockWatcher:
        the PostToolUse hooks), or None."""
        return self._blocks.after_block

    @after_block.setter
    def after_block(self, watcher) -> None:
        self._blocks.after_block = watcher

    # -- public API -----------------------------------------------------------
    def run(self, task: str) -> Iterator[ev.Event]:
        """Work on a task until the model stops proposing code; ends with task.finished."""
        task = clean(task)
        self._state.task = task  # as typed: restated to the model after each report
        self._checks.previewed = []
        if not self._started:
            self._started = True
            yield ev.SessionStarted(session_id=self.id, model=self.model.name,
                                    cwd=self._state.root(), resumed=len(self.messages) > 1,
                                    instructions=self.config.instructions.paths
                                    if self.config.instructions is not None else [])
        self._state.answer_dangling_calls()
        task = yield from self._next.message(task, self.config.mentions, self._checks.previewed)
        if self.config.output_schema is not None:  # the form the answer must take, last
            from interp.core.checks.schema import instruction

            task = f"{task}\n\n{instruction(self.config.output_schema)}"
        self._state.add(Entry({"role": "user", "content": task}, task=True))
        self.answer = self.structured_output = None
        self._blocks.denied = False
        self._loops.reset()
        self._checks.new_task()
        self._state.stop_requested = False
        code, reason = yield from self._loop()
        yield from self._saving_stopped()
        if code == exits.OK and self._blocks.denied:
            code, reason = exits.POLICY, "denied by policy"
        if code == exits.OK and self.answer is not None and self.config.output_schema is not None:
            code, reason = yield from self._structured(self.answer)
        self.exit_code = code
        yield ev.TaskFinished(exit_code=code, reason=reason, answer=self.answer,
                              structured_output=self.structured_output)

    def attach(self, path: str | os.PathLike) -> str:
        """Queue a file for the next task; returns its description (path, size, type, preview).

        The description is added after the text of the next task's user message. A relative
        path is taken from the session's working directory; a missing, unreadable or non-regular
        file raises attachments.AttachmentError."""
        return self._next.attach(path)

    @property
    def attachments(self) -> list[str]:
        """The file descriptions queued for the next task."""
        return self._next.attachments

    @property
    def notes(self) -> list[str]:
        """The notes queued for the model, sent with the next task."""
        return self._next.notes

    def tell(self, note: str) -> None:
        """Queue a note for the model (e.g. that runner state was not restored); it is put
        before the text of the next task's user message."""
        self._next.notes.append(note)

    def compact(self, focus: str | None = None, *, auto: bool = False) -> Iterator[ev.Event]:
        """Have the model summarise the earlier conversation (interp/core/prompt/compaction.py): it is
        sent the summary, the system prompt, the current task and the last blocks from then on;
        the history is kept. Yields context.compacting and context.compacted, or a notice;
        returns True when the conversation was compacted."""
        self._state.answer_dangling_calls()
        summary = yield from self._compactor.run(self._state, focus=focus, auto=auto)
        if summary is None:
            return False
        self._state.add(summary)
        yield self._compactor.done(self._state)
        return True

    def interrupt(self) -> None:
        """Interrupt the block that is running, if any (thread- and signal-safe)."""
        self._blocks.interrupt()

    def stop(self) -> None:
        """End the turn: interrupt the running block, run no later block and call the model no
        more until the next task (thread- and signal-safe; the runners keep their state).

        A reply being streamed stops at its next chunk (a UI that must break a blocked read
        raises KeyboardInterrupt in the thread running the task). The model is told at the
        next task that the user stopped it."""
        self._state.stop_requested = True
        self.interrupt()

    def close(self) -> ev.Event:
        """Stop every runner; returns the session.finished event."""
        self._blocks.stop_runners()
        if self.checkpoints is not None:
            self.checkpoints.close()
        if self.log is not None:
            self.log.close()
        return ev.SessionFinished(session_id=self.id, exit_code=self.exit_code)

    def attach_log(self, log) -> None:
        """Start saving to `log`, writing the conversation so far."""
        self._state.log, self._state.id = log, log.id
        self._state.log_reset = False
        for message in self.messages:
            log.append_message(message)

    def runners(self) -> list:
        """The runners started so far, one per language."""
        return list(self._blocks.runners.values())

    @property
    def running(self) -> bool:
        """True while a block is executing."""
        return self._blocks.current is not None

    def reset(self) -> None:
        """Forget the conversation (keeping the system prompt) and restart the runners."""
        self._blocks.stop_runners()
        self.messages = self.messages[:1]
        self.always.clear()
        self._state.block, self._next.notes = 0, []
        # A log left attached must not bring the old conversation back on --resume; written
        # lazily so that attaching a new log right away (/reset) leaves the old file intact.
        self._state.log_reset = self.log is not None

    def payload(self, tools: bool = False) -> list[dict]:
        """The messages the model is sent next: trimmed to its window, figures attached
        (`tools`: with the system prompt for the execute tool)."""
        return self._asker.payload(tools)

    def undo(self) -> int:
        """Drop the last exchange (the last task and everything after it); returns how many."""
        return self._state.undo()

    # -- the loop -------------------------------------------------------------
    def _loop(self) -> Iterator[ev.Event]:
        for turn in range(1, self.config.max_turns + 1):
            yield from self._saving_stopped()
            if self._state.stop_requested:
                return (yield from self._stopped())
            try:
                if self._compactor.due(self._state):  # between turns, never among a reply's blocks
                    yield from self.compact(auto=True)
                reply = yield from self._asker.ask(turn, self._checks.take_sampling())
            except ModelError as exc:
                yield ev.Notice(level="error", text=str(exc), kind=exc.kind)
                return exits.MODEL_ERROR, "model error"
            except KeyboardInterrupt:
                self.tell(STOPPED_NOTE)
                yield ev.Notice(level="warning", text="Reply interrupted.")
                return exits.INTERRUPTED, "interrupted"
            steps = self._checks.steps(reply)
            yield from self._checks.tools_after(reply)
            request = self._checks.on_reply(reply, steps)  # a reply check sends it back
            yield from self._checks.said()
            yield self._message(reply, [] if request else steps, final=request is None)
            yield self._asker.turn_event(turn, reply)
            if request is not None:
                yield from self._checks.ask(request)
                continue
            if not steps:
                ending = yield from self._checks.no_steps(reply)
                if ending is None:
                    continue
                if ending[0] == exits.OK:
                    self.answer = reply.text
                return ending
            self._checks.empty_replies = 0
            stopped, carry_on = yield from self._blocks.act(steps, reply)
            if stopped:
                return (yield from self._stopped())
            if (ending := self._checks.gave_up()) is not None:
                yield ev.Notice(level=ending.level, text=ending.notice)
                return ending.code, ending.reason
            if self._loops.stuck:
                ending = yield from self._unstick()
                if ending is None:
                    continue
                return ending
            if not carry_on:
                return exits.OK, "declined"
        yield ev.Notice(level="warning",
                        text=f"Stopped after {self.config.max_turns} model calls (--max-turns).")
        return exits.MAX_TURNS, "max turns reached"

    def _message(self, reply, steps, final: bool) -> ev.Message:
        """The message event of a reply: final when it is the answer (nothing to run, no check
        sent it back), with the fenced blocks it runs."""
        return ev.Message(role="assistant", text=reply.text,
                          final=final and not steps and turns.is_answer(reply),
                          blocks=[{"index": self._state.block + n, "language": step.language}
                                  for n, step in enumerate(steps, 1) if step.fenced])

    def _structured(self, answer: str) -> Iterator[ev.Event]:
        """The answer's JSON value against --output-schema: (exit code, reason)."""
        from interp.core.checks.schema import structured

        found = structured(answer, self.config.output_schema)
        if found.error is not None:
            yield ev.Notice(level="error", text=f"The answer is not valid against the output "
                                                f"schema: {found.error}.")
            return exits.SCHEMA, "answer not valid against the output schema"
        self.structured_output = found.value
        return exits.OK, "done"

    def _unstick(self) -> Iterator[ev.Event]:
        """The same code ran again and again: the model is asked for its answer once, then
        the task stops. Returns (exit code, reason), or None to go on."""
        if not self._loops.asked:
            yield ev.Notice(level="info", text=self._loops.notice())
            self._state.add(self._loops.ask_for_answer())
            if self._loops.failed:  # other code that fails too ends the task (gave_up)
                self._checks.answer_asked("loop guard")
            return None
        ending = self._loops.ending()
        yield ev.Notice(level=ending.level, text=ending.notice)
        return ending.code, ending.reason

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
