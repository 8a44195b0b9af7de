"""Checks the conversation loop makes on each turn: whether to offer the tool (the choice
itself: tool_choice.py), and replies that are not answers (blocked, empty, cut off, answered
without the code or file the task needs). Loops that go nowhere: loops.py."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from interp.core import events as ev
from interp.core import exits
from interp.core.exits import Ending
from interp.core.codeasks import (QUESTION, AnswerRequest, DoneRequest, FixRequest, RunRequest,
                                  WriteRequest, acknowledged, calculation_asked, folders_named,
                                  language_asked, previewed, unwritten)
from interp.core.history import task_indices, user_message
from interp.core.mentions import mentioned_folders, mentioned_names, unwritten_files
from interp.core.report import long_task
from interp.core.savedscripts import saved_copy, scripts_to_fix, unchanged_scripts
from interp.core.steps import (HOW_TO_CALL, HOW_TO_FENCE, Step, steps_from_reply, unrun_code_tag,
                               untagged_code)
from interp.core.state import SessionState
from interp.core.textcalls import text_calls, valid_arguments
from interp.core.tool_choice import TEXT_CALLS_NOTICE, ToolChoice, choose_tools, tool_mode
from interp.core.unseen import UnseenRequest, unseen
from interp.models.base import Reply, Retrying

DONE_ASKS = 2  # requests a task to fix files that do not do it, a block run between them
EMPTY_NUDGE = ("Your last reply had no answer and no code. Continue with the task (run code if "
               "there is more to do) or give your final answer.")
_TOOLS_ECHO = re.compile(r"<tools>.*?(?:</tools>|$)", re.S)
UNTAGGED_NOTICE = ("The reply's code block has no language tag, so it was not run; asking "
                   "the model to tag it.")
TRANSCRIPT_NOTICE = ("The reply's ```{tag} block has no $ prompt, so it was shown as output, "
                     "not run; asking the model to tag it.")
EMPTY_REPLY = "(empty reply)"  # stored for a reply with no text and no call
SAVED_NOTICE = ("The reply's {language} block is a copy of {name}, which the model was asked "
                "to save: it runs as a shell block that saves it to {name} and runs it.")


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
    """A warning for an answer cut off by the output limit (nothing of it runs)."""
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
    """The checks the loop makes on each turn: which tool mode, what runs from a reply, and
    replies that are not answers. Reads and adds to the conversation in `state`."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.tools: tuple[object, ToolChoice] | None = None  # per model, decided once
        self.empty_replies = 0  # in a row
        self.untagged_told = False  # told this task how to tag a fence
        self.run_asked = False  # asked this task to run code before answering
        self.task_block = state.block  # the last block number before this task
        self.previewed: list[str] = []  # this task's files described to the model (mentions)
        self.to_write: list[str] = []  # files the task names that did not exist when it began
        self.write_asked = False  # asked this task to write them
        self.answer_asked = False  # asked this task for the answer after an acknowledgement
        self.to_fix: dict[str, bytes] = {}  # scripts the task asks to fix, as they were
        self.fix_asked = False  # asked this task to save the fix to them
        self.unseen_asked = False  # asked this task to print numbers its answer stated
        self.done_asked: list[int] = []  # the block number at each request to fix files

    def new_task(self) -> None:
        """Forget this task's counts."""
        self.empty_replies, self.untagged_told, self.run_asked = 0, False, False
        self.task_block = self.state.block
        self.to_write, self.write_asked = unwritten_files(self.state.task, self.state.root()), False
        self.answer_asked = self.unseen_asked = False
        self.done_asked = []
        root = self.state.root()
        named = mentioned_names(self.state.task, root)
        self.to_fix, self.fix_asked = scripts_to_fix(self.state.task, named, root), False

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
        steps = steps_from_reply(reply, self.state.registry, fenced=fenced, tools=tools)
        if self.fix_asked and self.to_fix and "shell" in self.state.registry:
            steps = [self._saving(step) for step in steps]
        return steps

    def _saving(self, step: Step) -> Step:
        """After the model was asked to save its fix (FixRequest), a fenced block that is a
        copy of a script still unchanged runs as a shell block that saves it there and runs
        it: small models answer the request with the block they ran before."""
        if not step.fenced or step.problem:
            return step
        same = unchanged_scripts(self.to_fix, self.state.root())
        found = saved_copy(step.language, step.code, {name: self.to_fix[name] for name in same})
        if found is None:
            return step
        name, code = found
        return replace(step, language="shell", code=code,
                       note=SAVED_NOTICE.format(language=step.language, name=name))

    def modes(self) -> tuple[bool, bool]:
        """(the tool is offered, fenced blocks run): once the model has used the tool, only
        its calls run."""
        tools = bool(self.tools is not None and self.tools[1].send)
        return tools, not (tools and any(m.tool_calls for m in self.state.messages))

    def tag_nudge_due(self, reply: Reply) -> bool:
        """Whether the reply's code sits in a fence without a language tag, fences run, and
        the model was not told this task how to tag one (then the reply is no answer yet)."""
        return not self.untagged_told and self.modes()[1] and untagged_code(reply.text)

    def run_nudge_due(self, reply: Reply) -> RunRequest | None:
        """Why the model should run code first, when it answered a task that names a language
        to use, whose files it saw only previewed, that names a folder here, or that asks for
        a calculation, without any code this task, and was not asked yet (then the reply is
        no answer yet)."""
        if self.run_asked or self.state.block > self.task_block or not is_answer(reply):
            return None
        task = self.state.task
        return (language_asked(task, self.state.registry.names()) or previewed(self.previewed)
                or folders_named(mentioned_folders(task, self.state.root()))
                or calculation_asked(task))

    def write_nudge_due(self, reply: Reply) -> WriteRequest | None:
        """The files the task asks for that are still not written when the model answers,
        unless it was asked this task already (then the reply is no answer yet)."""
        if self.write_asked or not self.to_write or not is_answer(reply):
            return None
        root = self.state.root()
        return unwritten(self.state.task, self.to_write,
                         lambda name: os.path.lexists(os.path.join(root, name)))

    def fix_nudge_due(self, reply: Reply) -> FixRequest | None:
        """The scripts the task asks to fix that are still unchanged when the model answers
        after code ran, unless it was asked this task already (then the reply is no answer
        yet)."""
        if (self.fix_asked or not self.to_fix or self.state.block <= self.task_block
                or not is_answer(reply)):
            return None
        same = unchanged_scripts(self.to_fix, self.state.root())
        return FixRequest(tuple(same)) if same else None

    def done_nudge_due(self, reply: Reply, unmet: Callable[[], str | None]) -> DoneRequest | None:
        """The files this task wrote that still do not do what it asks when the model answers
        (`unmet`: the note on them as they are now), unless it was asked DONE_ASKS times this
        task, or since the last block ran (then the reply is no answer yet): the 1.5B model,
        told that inverse.csv held the matrix itself, computed the inverse, printed it and
        answered; asked once, it answered again before it ran that code."""
        if (len(self.done_asked) >= DONE_ASKS or self.state.block <= self.task_block
                or self.state.block in self.done_asked or not is_answer(reply)):
            return None
        note = unmet()
        return DoneRequest(note) if note else None

    def answer_nudge_due(self, reply: Reply) -> AnswerRequest | None:
        """A reply that only acknowledges ("ok.") after code ran this task, when the task asks
        a question and the model was not asked yet (then the reply is no answer yet)."""
        if self.answer_asked or self.state.block <= self.task_block or not is_answer(reply):
            return None
        return acknowledged(self.state.task, reply.text)

    def unseen_nudge_due(self, reply: Reply) -> UnseenRequest | None:
        """An answer to a question typed in one line, after code ran this task, that states
        numbers nothing of this task showed (outputs, notes, the task and its files), unless
        the model was asked this task already (then the reply is no answer yet)."""
        task = self.state.task.strip()
        if (self.unseen_asked or self.state.block <= self.task_block or not is_answer(reply)
                or long_task(task) or not QUESTION.search(task)):
            return None
        start = (task_indices(self.state.messages) or [0])[-1]
        seen = [entry.content for entry in self.state.messages[start:]
                if entry.role != "assistant" and isinstance(entry.content, str)]
        found = unseen(reply.text, [task, *seen])
        return UnseenRequest(found) if found else None

    def ask_to_run(self, asked: RunRequest | WriteRequest | FixRequest | DoneRequest
                   | AnswerRequest | UnseenRequest) -> Iterator[ev.Event]:
        """Ask the model (once a task each: see run_nudge_due, write_nudge_due, fix_nudge_due,
        done_nudge_due, answer_nudge_due, unseen_nudge_due) to run code, save it, fix what it
        wrote, state its answer, or print what it stated, before it answers."""
        if isinstance(asked, WriteRequest):
            self.write_asked = True
        elif isinstance(asked, DoneRequest):
            self.done_asked.append(self.state.block)
        elif isinstance(asked, FixRequest):
            self.fix_asked = True
        elif isinstance(asked, AnswerRequest):
            self.answer_asked = True
        elif isinstance(asked, UnseenRequest):
            self.unseen_asked = True
        else:
            self.run_asked = True
        yield ev.Notice(level="info", text=asked.notice())
        request = user_message(asked.request(tools=self.modes()[0]))
        self.state.add(replace(request, retracts=not isinstance(
            asked, (WriteRequest, FixRequest, DoneRequest))))

    def _tell_how_to_tag(self, reply: Reply) -> Iterator[ev.Event]:
        """Tell the model (once a task: see tag_nudge_due) how to run code."""
        self.untagged_told = True
        tag = unrun_code_tag(reply.text) or ""
        yield ev.Notice(level="info",
                        text=TRANSCRIPT_NOTICE.format(tag=tag) if tag else UNTAGGED_NOTICE)
        how = HOW_TO_CALL if self.modes()[0] else HOW_TO_FENCE
        what = (f"```{tag} block in your reply has no `$ ` prompt, so it was shown as output "
                f"and not run" if tag else "code block in your reply has no language tag, so it "
                "was not run")
        self.state.add(user_message(f"The {what}: {how} If it was not meant to run, say so."))

    def no_steps(self, reply: Reply, untagged: bool) -> Iterator[ev.Event]:
        """A reply with nothing to run: the answer, or not one (refused or blocked, empty, or
        code in an untagged fence (`untagged`, from tag_nudge_due): the model is asked once
        more). Returns (exit code, reason), or None to go on."""
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
        if ending is None and untagged:
            yield from self._tell_how_to_tag(reply)
            return None
        if ending is not None:
            yield ev.Notice(level=ending.level, text=ending.notice)
            return ending.code, ending.reason
        if note := cut_off_notice(reply):
            yield ev.Notice(level="warning", text=note)
        return exits.OK, "done"
