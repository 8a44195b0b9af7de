"""What the conversation loop makes of each reply: whether to offer the tool (the choice
itself: tool_choice.py), what runs from it, replies that end the task without an answer
(blocked, empty), and the reply checks (interp/core/checks) that run on it. Loops that go
nowhere: repeats.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from interp.core import events as ev
from interp.core import exits
from interp.core.blocks import FAILED, BlockRecord
from interp.core.checks.base import Proposed, Request, TaskView
from interp.core.checks.catalog import TaskChecks, active
from interp.core.exits import Ending
from interp.core.history import task_indices, user_message
from interp.core.files.mentions import unwritten_files
from interp.core.replies.steps import Step, steps_from_reply
from interp.core.state import SessionState
from interp.core.replies.textcalls import text_calls, valid_arguments
from interp.core.replies.tool_choice import TEXT_CALLS_NOTICE, ToolChoice, choose_tools, tool_mode
from interp.models.base import REPEATING, Reply, Retrying, declared_sampling, template_sampling

EMPTY_NUDGE = ("Your last reply had no answer and no code. Continue with the task (run code if "
               "there is more to do) or give your final answer.")
_TOOLS_ECHO = re.compile(r"<tools>.*?(?:</tools>|$)", re.S)
EMPTY_REPLY = "(empty reply)"  # stored for a reply with no text and no call


def blocked(reply: Reply, model_name: str) -> Ending | None:
    """A refused or filtered reply (finish reason content_filter) ends the task."""
    if reply.finish_reason != "content_filter":
        return None
    shown = " (the text so far is above)" if reply.text.strip() else ""
    return Ending(exits.NO_ANSWER, "blocked",
                  f"{model_name} refused, or the provider's safety filter blocked the reply "
                  f"(finish reason: content_filter){shown}. Rephrase the task, or try another "
                  f"model.")


def is_empty(reply: Reply) -> bool:
    """No text and no call (for example Gemini's MALFORMED_FUNCTION_CALL), or only an echo of
    the tool definitions (`<tools>...</tools>`, as small Qwen models write)."""
    return not reply.tool_calls and not _TOOLS_ECHO.sub("", reply.text).strip()


def is_answer(reply: Reply) -> bool:
    """Whether a reply with nothing to run is a final answer (not blocked, not empty)."""
    return not is_empty(reply) and reply.finish_reason != "content_filter"


def empty_ending(model_name: str) -> Ending:
    return Ending(exits.NO_ANSWER, "empty reply",
                  f"{model_name} sent an empty reply again: no answer and no code. Stopped.")


def cut_off_notice(reply: Reply) -> str | None:
    """A warning for an answer cut off by the output limit, or stopped repeating itself
    (nothing of it runs)."""
    if reply.finish_reason == REPEATING:
        return "The reply kept repeating itself and was stopped; what arrived is shown."
    if reply.finish_reason != "length":
        return None
    return "The reply was cut off by the output limit (--max-tokens); what arrived is shown."


def retry_event(item: Retrying) -> ev.Event:
    """The model.retry event for a retry the model reports."""
    return ev.ModelRetry(attempt=item.attempt, max_attempts=item.max_attempts,
                         delay=item.delay, reason=item.reason, text=item.text, restart=item.restart)


def valid_calls(messages: list[dict]) -> list[dict]:
    """Messages whose tool-call arguments are all valid JSON objects (a conversation saved
    before cut-off calls were repaired would otherwise fail on every request)."""
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls and any(valid_arguments(c.get("function", {}).get("arguments") or "")
                         != (c.get("function", {}).get("arguments") or "") for c in calls):
            calls = [dict(c, function=dict(c.get("function", {}), arguments=valid_arguments(
                c.get("function", {}).get("arguments") or ""))) for c in calls]
            message = dict(message, tool_calls=calls)
        out.append(message)
    return out


class TurnChecks:
    """What the loop makes of each turn: which tool mode, what runs from a reply, the reply
    checks on for this task (interp/core/checks), and replies that end the task without an
    answer. Reads and adds to the conversation in `state`."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.tools: tuple[object, ToolChoice] | None = None  # per model, decided once
        self.empty_replies = 0  # in a row
        self.previewed: list[str] = []  # this task's files described to the model (mentions)
        self.absent: tuple[str, ...] = ()  # files the task names that were not there at its start
        self.checks = TaskChecks(())  # the reply checks on for this task
        self._sampling: dict | None = None  # for the next model call, once
        self._samples = 0  # calls asked to sample this task (the seed)

    def new_task(self) -> None:
        """Forget this task's counts; the checks on for the model as it is now."""
        self.empty_replies, self._sampling, self._samples = 0, None, 0
        config = self.state.config
        asked = ()
        if config.output_schema is not None:  # asked for: on whatever `checks` says
            from interp.core.checks.schema import schema_check

            asked = (schema_check(config.output_schema),)
        self.checks = TaskChecks(active(config.checks, self.state.model) + asked
                                 + tuple(config.extra_checks))
        self.absent = tuple(unwritten_files(self.state.task, self.state.root()))

    def tool_choice(self) -> Iterator[ev.Event]:
        """Whether to send the execute tool to this model; says once why not, when it matters."""
        model = self.state.model
        if self.tools is None or self.tools[0] is not model:
            choice = choose_tools(self.state.config.tools, model)
            self.tools = (model, choice)
            if choice.notice:
                yield ev.Notice(level="info", text=choice.notice)
        return self.tools[1].send

    def tools_after(self, reply: Reply) -> Iterator[ev.Event]:
        """In auto mode, a model that answers the tool offer with a call written as text, never
        having made a real call, is served by fenced blocks for the rest of the session (once,
        said in one line): its text calls run either way, but the tool's schema and prompt
        only cost it tokens."""
        if tool_mode(self.state.config.tools) != "auto" or not self.modes()[0] or reply.tool_calls:
            return
        if not text_calls(reply.text) or any(m.tool_calls for m in self.state.messages):
            return
        self.tools = (self.state.model, ToolChoice(False))
        yield ev.Notice(level="info", text=TEXT_CALLS_NOTICE.format(self.state.model.name))

    def steps(self, reply: Reply) -> list[Step]:
        """What to run. With the tool offered, once the model has used it, only calls run."""
        tools, fenced = self.modes()
        return steps_from_reply(reply, self.state.registry, fenced=fenced, tools=tools)

    def modes(self) -> tuple[bool, bool]:
        """(the tool is offered, fenced blocks run): once the model has used the tool, only
        its calls run."""
        tools = bool(self.tools is not None and self.tools[1].send)
        return tools, not (tools and any(m.tool_calls for m in self.state.messages))

    # -- the reply checks -----------------------------------------------------------
    def on_reply(self, reply: Reply, steps: list[Step]) -> Request | None:
        """The request of the first check on a reply: before its blocks run, or, when it has
        none, on it as the answer; None when it stands."""
        if steps:
            proposed = tuple(Proposed(s.language, s.code, s.cut_off) for s in steps)
            return self.checks.first("proposed", self.view(reply, proposed=proposed))
        if not is_answer(reply):
            return None
        return self.checks.first("answer", self.view(reply))

    def said(self) -> Iterator[ev.Event]:
        """The lines checks have for the person besides a request (a Stop hook that failed:
        a check may have `said()`, returning notices)."""
        for check in self.checks.checks:
            yield from getattr(check, "said", tuple)()

    def on_report(self, reply: Reply, records: list[BlockRecord]) -> Request | None:
        """The request of the first check on a reply's blocks once they ran (`records`), said
        in place of the report's usual question; or None."""
        return self.checks.first("report", self.view(reply, new=records))

    def view(self, reply: Reply, proposed: tuple[Proposed, ...] = (),
             new: list[BlockRecord] = ()) -> TaskView:
        """What a check sees of this task."""
        state = self.state
        entries = self._task_entries()
        records = self._task_records(entries) + list(new)
        shown = tuple(entry.content for entry in entries
                      if entry.role != "assistant" and isinstance(entry.content, str))
        samples = frozenset(kind for kind in ("retry", "runaway")
                            if declared_sampling(state.model, kind))
        tools, fenced = self.modes()
        return TaskView(task=state.task, reply=reply, proposed=proposed, records=tuple(records),
                        new=len(new), root=state.root(), previewed=tuple(self.previewed),
                        absent=self.absent,
                        shown=shown, tools=tools, fenced=fenced,
                        languages=tuple(state.registry.names()), samples=samples)

    def _task_entries(self) -> list:
        """The conversation since this task began."""
        return self.state.messages[(task_indices(self.state.messages) or [0])[-1]:]

    def _task_records(self, entries: list | None = None) -> list[BlockRecord]:
        """The block records of this task's entries (of `entries` when given)."""
        return [r for entry in entries or self._task_entries() for r in entry.blocks or ()]

    def answer_asked(self, by: str) -> None:
        """The model was asked for its final answer because its code kept failing (by `by`,
        not a check of the list: the loop guard): from now on gave_up applies as it does
        after a check that closes."""
        self.checks.answer_asked(by, sum(1 for r in self._task_records() if r.ran))

    def gave_up(self) -> Ending | None:
        """How the task ends when the model, asked for its final answer instead of another
        fix (failing-streak, or the loop guard after failing repeats), wrote code anyway and
        every block since failed; None otherwise."""
        if self.checks.closed is None:
            return None
        name, before = self.checks.closed
        ran = [r for r in self._task_records() if r.ran]
        since = ran[before:]
        if not since or any(r.status not in FAILED for r in since):
            return None
        return Ending(exits.LOOP, "failing",
                      f"Stopped: block {since[-1].index} failed too, after the model was asked "
                      f"for its answer because blocks kept failing ({name}).", level="warning")

    def ask(self, request: Request) -> Iterator[ev.Event]:
        """Say that a check asked, send the model its request (retracting the reply where the
        request says so), and make the next call sample where it asks to, held to the
        request's template where the model can be."""
        yield ev.Notice(level="info", text=request.notice, check=request.check)
        self.state.add(replace(user_message(request.message), retracts=request.retracts))
        model = self.state.model
        declared = declared_sampling(model, request.sampling) if request.sampling else None
        held = template_sampling(model, request.template)
        if declared or held:
            self.sample_next({**(declared or {}), **(held or {})})

    def sample_next(self, sampling: dict | None) -> None:
        """Make the next call with `sampling` and a seed (a run can be repeated)."""
        if sampling:
            self._samples += 1
            self._sampling = {**sampling, "seed": self._samples}

    def take_sampling(self) -> dict | None:
        """The sampling for the next model call (once), or None for the model's own."""
        sampling, self._sampling = self._sampling, None
        return sampling

    def no_steps(self, reply: Reply) -> Iterator[ev.Event]:
        """A reply with nothing to run that no check sent back: the answer, or not one
        (refused or blocked; empty: the model is asked once more). Returns (exit code,
        reason), or None to go on."""
        name = self.state.model.name
        ending = blocked(reply, name)
        if ending is None and is_empty(reply):
            self.empty_replies += 1
            if self.empty_replies == 1:
                yield ev.Notice(level="warning",
                                text=f"{name} sent an empty reply; asking it to go on.")
                self.state.add(user_message(EMPTY_NUDGE))
                return None
            ending = empty_ending(name)
        if ending is not None:
            yield ev.Notice(level=ending.level, text=ending.notice)
            return ending.code, ending.reason
        if note := cut_off_notice(reply):
            yield ev.Notice(level="warning", text=note)
        return exits.OK, "done"

