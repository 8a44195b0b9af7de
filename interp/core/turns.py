"""Checks the conversation loop makes on each turn: whether to offer the tool (the choice
itself: tool_choice.py), replies that are not answers (blocked, empty, cut off) and loops that
go nowhere."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from interp.core import events as ev
from interp.core import exits
from interp.core.codeasks import (AnswerRequest, FixRequest, RunRequest, WriteRequest, acknowledged,
                                  calculation_asked, folders_named, language_asked, previewed,
                                  unwritten)
from interp.core.mentions import mentioned_folders, mentioned_names, unwritten_files
from interp.core.savedscripts import scripts_to_fix, unchanged_scripts
from interp.core.history import Entry, user_message
from interp.core.steps import (HOW_TO_CALL, HOW_TO_FENCE, Step, steps_from_reply, unrun_code_tag,
                               untagged_code)
from interp.core.state import SessionState
from interp.core.textcalls import text_calls, valid_arguments
from interp.core.tool_choice import TEXT_CALLS_NOTICE, ToolChoice, choose_tools, tool_mode
from interp.models.base import Reply, Retrying

REPEATS_TO_STOP = 3
EMPTY_NUDGE = ("Your last reply had no answer and no code. Continue with the task (run code if "
               "there is more to do) or give your final answer.")
_TOOLS_ECHO = re.compile(r"<tools>.*?(?:</tools>|$)", re.S)
_BLOCK_NAME = re.compile(r"<block \d+>")  # tracebacks name the block: the same error each time
UNTAGGED_NOTICE = ("The reply's code block has no language tag, so it was not run; asking "
                   "the model to tag it.")
TRANSCRIPT_NOTICE = ("The reply's ```{tag} block has no $ prompt, so it was shown as output, "
                     "not run; asking the model to tag it.")
EMPTY_REPLY = "(empty reply)"  # stored for a reply with no text and no call
REPEAT_NOTE = ("Note: this is the same code with the same output as {when}. Do not run it "
               "again: if this output answers the task, reply with your final answer now "
               "(stating the result, no code); otherwise try a different approach.")
ANSWER_REQUEST = ("You have run the same code {n} times and it printed the same output each "
                  "time, so running it again will not help. Do not run code again: reply now "
                  "with your final answer to the task, stating the result from that output, "
                  "or say what is missing.")
FAILED_REPEAT_NOTE = ("Note: this is the same code as {when}, and it failed again{where}. Do not "
                      "run it again unchanged: read the error and change {what}.")
# Where a traceback names the block's own line: Python's `File "<block 3>", line 7`, Node's
# `block-3.js:7`.
_FAILED_LINE = re.compile(r'File "<block (\d+)>", line (\d+)|\bblock-(\d+)\.[cm]?js:(\d+)')
LINE_CHARS = 160  # of a failing line quoted in a note
FAILED_ANSWER_REQUEST = ("You have run the same code {n} times and it failed each time, so "
                         "running it again will not help. Do not run code again: reply now with "
                         "your final answer to the task, or say what went wrong.")
LOOP_NOTICE = "The model ran the same code with the same {what} {n} times; asking it for its answer."


@dataclass(frozen=True)
class Ending:
    """How a task ends when a reply is not an answer."""

    code: int
    reason: str
    notice: str
    level: str = "error"


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


class LoopGuard:
    """Counts replies in a row whose blocks ran code already run this task with the same
    results: the reply before (a failure is the same result whatever its error: with state
    kept, the same failing code can fail two ways in turn), or an earlier one (a model that
    swaps two failing fixes in turn). Once they reach the limit the model is asked for its
    final answer (once a task), and only a further repeat stops."""

    def __init__(self, limit: int = REPEATS_TO_STOP) -> None:
        self.limit = limit
        self._last: str | None = None
        self._seen: set[str] = set()  # every earlier reply's blocks and results, this task
        self._codes: frozenset[tuple[str, str]] = frozenset()  # the repeated replies' blocks
        self._reply: list[tuple[str, tuple[str, str], bool]] = []  # this reply's, so far
        self.failed = False  # a block of the repeated reply failed (each time)
        self.repeats = 0
        self._note: str | None = None  # what the model is to be told in the next report
        self._failing: tuple[int, str] | None = None  # the last failed block's failing line
        self.asked = False  # the model was asked for its final answer this task
        self.refused = False  # it then proposed the stuck code again, which was not run

    def saw(self, language: str, code: str, result, index: int = 0) -> None:
        """Record a block of this reply that ran (block number `index`)."""
        failed = result.status == "error"
        seen = ("failed",) if failed else (result.status, result.exit_code, result.output.text)
        if failed:
            self._failing = failing_line(code, result.output.text, index)
        key = "\0".join(_BLOCK_NAME.sub("<block>", str(part))
                        for part in (language, code.strip(), *seen))
        self._reply.append((key, (language, code.strip()), failed))

    def end_reply(self) -> int:
        """After a reply's blocks: how many replies in a row ran what was run before."""
        if not self._reply:
            return self.repeats
        key = hashlib.sha256("\0\0".join(k for k, _, _ in self._reply).encode(
            "utf-8", "replace")).hexdigest()
        codes = frozenset(code for _, code, _ in self._reply)
        again = key in self._seen
        self.repeats, self._codes = (self.repeats + 1, self._codes | codes) if again else (1, codes)
        self.failed = any(failed for _, _, failed in self._reply)
        if self.repeats == 2:
            when = "your previous run" if key == self._last else "one of your earlier runs"
            where, what = "", "the code"
            if self.failed and self._failing:
                where, what = f" on line {self._failing[0]}: `{self._failing[1]}`", "that line"
            self._note = (FAILED_REPEAT_NOTE if self.failed else REPEAT_NOTE).format(
                when=when, where=where, what=what)
        self._last = key
        self._seen.add(key)
        self._reply = []
        return self.repeats

    def note(self) -> str | None:
        """The note on a repeat for the next report (once), or None."""
        note, self._note = self._note, None
        return note

    @property
    def stuck(self) -> bool:
        return self.repeats >= self.limit or self.refused

    def repeats_after_asking(self, language: str, code: str) -> bool:
        """Whether a proposed block is the stuck code again after the model was asked for its
        answer: it is then not run, and the task stops."""
        self.refused = self.refused or (self.asked and (language, code.strip()) in self._codes)
        return self.refused

    def ask_for_answer(self) -> Entry:
        """The message that asks a stuck model for its final answer (once a task)."""
        self.asked = True
        self.repeats = 0
        request = FAILED_ANSWER_REQUEST if self.failed else ANSWER_REQUEST
        return user_message(request.format(n=self.limit))

    def notice(self) -> str:
        """The line that tells the person the model is asked for its answer."""
        return LOOP_NOTICE.format(what="error" if self.failed else "output", n=self.limit)

    def ending(self) -> Ending:
        what = "failing code" if self.failed else "code with the same output"
        return Ending(exits.LOOP, "loop",
                      f"Stopped: the model ran the same {what} {self.limit} times in a row, "
                      f"and again after it was asked for its answer.", level="warning")

    def reset(self) -> None:
        self._last, self._codes, self.repeats, self._note = None, frozenset(), 0, None
        self._reply, self.failed, self._seen, self._failing = [], False, set(), None
        self.asked = self.refused = False


def failing_line(code: str, output: str, index: int) -> tuple[int, str] | None:
    """(number, text) of the line of block `index` where its traceback (the last one in
    `output`) says it failed, or None (also when that frame is in another block)."""
    found = [(int(a or c), int(b or d)) for a, b, c, d in _FAILED_LINE.findall(output)]
    lines = code.splitlines()
    if not found or found[-1][0] != index:
        return None
    number = found[-1][1]
    text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    if not text:
        return None
    return number, text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"


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

    def new_task(self) -> None:
        """Forget this task's counts."""
        self.empty_replies, self.untagged_told, self.run_asked = 0, False, False
        self.task_block = self.state.block
        self.to_write, self.write_asked = unwritten_files(self.state.task, self.state.root()), False
        self.answer_asked = False
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
        return steps_from_reply(reply, self.state.registry, fenced=fenced, tools=tools)

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

    def answer_nudge_due(self, reply: Reply) -> AnswerRequest | None:
        """A reply that only acknowledges ("ok.") after code ran this task, when the task asks
        a question and the model was not asked yet (then the reply is no answer yet)."""
        if self.answer_asked or self.state.block <= self.task_block or not is_answer(reply):
            return None
        return acknowledged(self.state.task, reply.text)

    def ask_to_run(self, asked: RunRequest | WriteRequest | FixRequest | AnswerRequest
                   ) -> Iterator[ev.Event]:
        """Ask the model (once a task each: see run_nudge_due, write_nudge_due, fix_nudge_due,
        answer_nudge_due) to run code, save it, or state its answer, before it answers."""
        if isinstance(asked, WriteRequest):
            self.write_asked = True
        elif isinstance(asked, FixRequest):
            self.fix_asked = True
        elif isinstance(asked, AnswerRequest):
            self.answer_asked = True
        else:
            self.run_asked = True
        yield ev.Notice(level="info", text=asked.notice())
        request = user_message(asked.request(tools=self.modes()[0]))
        self.state.add(replace(request, retracts=not isinstance(asked, (WriteRequest, FixRequest))))

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
