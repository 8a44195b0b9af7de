"""Loops that go nowhere, a part of the conversation loop: the same code run again with the
same result. The model is told once, then asked for its answer, and only a further repeat
stops the task. Code that failed (or fell short of the task), proposed again, is not run: a
model that declares `retry_sampling` is asked again with it (refailed, resample); a reply cut
off inside its block at the length limit, with `runaway_sampling` (cut_off)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

from interp.core import exits
from interp.core.exits import Ending
from interp.core.history import Entry, user_message
from interp.core.installs import installed_nothing, only_installs

REPEATS_TO_STOP = 3
_BLOCK_NAME = re.compile(r"<block \d+>")  # tracebacks name the block: the same error each time
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")  # `<... object at 0x7f...>` differs each run
REPEAT_NOTE = ("Note: this is the same code with the same output as {when}. Do not run it "
               "again: if this output answers the task, reply with your final answer now "
               "(stating the result, no code); otherwise try a different approach.")
ANSWER_REQUEST = ("You have run the same code {n} times and it printed the same output each "
                  "time, so running it again will not help. Do not run code again: reply now "
                  "with your final answer to the task, stating the result from that output, "
                  "or say what is missing.")
UNMET_REPEAT_NOTE = "Note: this is the same code with the same output as {when}."
FAILED_REPEAT_NOTE = ("Note: this is the same code as {when}, and it failed again{where}. Do not "
                      "run it again unchanged: read the error and change {what}.")
FAILED_ANSWER_REQUEST = ("You have run the same code {n} times and it failed each time, so "
                         "running it again will not help. Do not run code again: reply now with "
                         "your final answer to the task, or say what went wrong.")
LOOP_NOTICE = "The model ran the same code with the same {what} {n} times; asking it for its answer."
ANSWERED_NOTICE = ("The reply states its answer, then proposes the same code with the same "
                   "output again; the code was not run, and the reply is taken as the answer.")
RESAMPLES = 2  # replies asked again, with sampling, for proposing one failed code again
RESAMPLES_PER_TASK = 4  # and for all of a task's failed blocks together
RESAMPLE_NOTE = ("Note: your last reply proposed the code of block {index} again, which "
                 "failed{where}; it was not run. Write changed code that avoids that error.")
UNMET_RESAMPLE_NOTE = ("Note: your last reply proposed the code of block {index} again, which "
                       "ran but did not do what the task asks (see the note above); it was not "
                       "run. Write changed code that does it.")
FIXED_NOTE = ("\nBlock {index} as it would read {how} (not run yet: reply with it in a "
              "```{language} block to run it):\n```{language}\n{code}\n```")
SUGGESTED = "with line {line} as the error's note suggests"
RESAMPLE_NOTICE = ("The model proposed the code of block {index} again, which {what}; it was "
                   "not run. Asking again with sampling (temperature {temperature}).")
CUT_OFF_NOTE = ("Note: your last reply ran on to the length limit inside its code block, so it "
                "was not run. Write the code again, shorter, without repeating lines.")
CUT_OFF_NOTICE = ("The reply ran on to the length limit inside a code block; it was not run. "
                  "Asking again with sampling (temperature {temperature}, repeats penalised).")
# Where a traceback names the block's own line: Python's `File "<block 3>", line 7`, Node's
# `block-3.js:7`.
_FAILED_LINE = re.compile(r'File "<block (\d+)>", line (\d+)|\bblock-(\d+)\.[cm]?js:(\d+)')
LINE_CHARS = 160  # of a failing line quoted in a note


@dataclass(frozen=True)
class Rewrite:
    """A failed block's code as a note says it should read, for the model to copy: a small
    model shown only the note often proposes its own block again."""

    how: str  # "with line 8 as the error's note suggests"
    code: str


@dataclass(frozen=True)
class Failure:
    """A block that failed: its number and, where its traceback says, its failing line."""

    index: int
    line: tuple[int, str] | None = None
    unmet: bool = False  # it ran, but what it wrote does not do the task (taskfiles.py)
    source: tuple[str, str] = ("", "")  # (language, code)
    fixed: Rewrite | None = None  # the code as the error's (or the task's) note suggests


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
        self._unhelped: str | None = None  # the same, before how the files differ from the task
        self._failed: Failure | None = None  # the last block that failed
        self.asked = False  # the model was asked for its final answer this task
        self.refused = False  # it then proposed the stuck code again, which was not run
        # code that failed since the last block that did not, by (language, code)
        self._failures: dict[tuple[str, str], Failure] = {}
        self.resamples = 0  # replies asked again this task (see refailed)
        self._resampled: dict[tuple[str, str], int] = {}  # of them, by the code proposed again
        self._sampling: dict | None = None  # for the next model call, once

    def saw(self, language: str, code: str, result, index: int = 0) -> None:
        """Record a block of this reply that ran (block number `index`)."""
        failed = result.status == "error"
        seen = ("failed",) if failed else (result.status, result.exit_code, result.output.text)
        if failed:
            line = failing_line(code, result.output.text, index)
            source = (language, code.strip())
            self._failed = Failure(index, line, source=source,
                                   fixed=_fixed(code, result.fix, index, line))
            self._failures[source] = self._failed
        elif only_installs(language, code) and installed_nothing(result.output.text):
            self.fell_short(language, code, index)  # it changed nothing: proposed again, asked again
        else:
            self._failures.clear()  # what ran may have changed what the failed code meets
        key = "\0".join(_ADDRESS.sub("0x?", _BLOCK_NAME.sub("<block>", str(part)))
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
            failure = self._failed if self.failed else None
            if failure and failure.line:
                where, what = f" on line {failure.line[0]}: `{failure.line[1]}`", "that line"
            self._note = (FAILED_REPEAT_NOTE if self.failed else REPEAT_NOTE).format(
                when=when, where=where, what=what) + (_shown_fixed(failure) if failure else "")
            self._unhelped = None if self.failed else UNMET_REPEAT_NOTE.format(when=when)
        self._last = key
        self._seen.add(key)
        self._reply = []
        return self.repeats

    def note(self, unmet: str | None = None) -> str | None:
        """The note on a repeat for the next report (once), or None; `unmet`: how the files
        the code wrote differ from the task (taskfiles.py), said with it instead of asking
        for the answer."""
        note, unhelped, self._note, self._unhelped = self._note, self._unhelped, None, None
        return f"{unhelped} {unmet}" if note and unhelped and unmet else note

    def fixed_note(self, index: int) -> str:
        """The end of the report of block `index` when it is the last block that failed and
        the note on its error rewrites its failing line: the block as it would read so."""
        failure = self._failed
        return _shown_fixed(failure) if failure is not None and failure.index == index else ""

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

    def answered_then_repeated(self, said: str, steps) -> bool:
        """Whether a reply, after the note on code run again with the same output, states
        something (`said`, its text before the code) and then proposes that code again: the
        code is not run, and the reply is the answer (the 1.5B model wrote "The determinant
        is -24." above the same block three times, then stopped with exit 6)."""
        return bool(said and steps and self.repeats >= 2 and not self.failed and not self.asked
                    and all((s.language, s.code.strip()) in self._codes for s in steps))

    def fell_short(self, language: str, code: str, index: int,
                   fixed: Rewrite | None = None) -> None:
        """Record a block that ran but whose files do not do the task: proposed again, it is
        asked again as failed code is (see refailed), with `fixed` shown."""
        source = (language, code.strip())
        self._failures[source] = Failure(index, unmet=True, source=source, fixed=fixed)

    def refailed(self, steps) -> Failure | None:
        """The failed block whose code a reply's blocks all propose again, with nothing run
        since but failures, while the task may ask again (RESAMPLES for that block,
        RESAMPLES_PER_TASK in all, not after asking for the answer); else None. A greedy
        model shown its failure often writes the same code."""
        if self.asked or self.resamples >= RESAMPLES_PER_TASK or not steps:
            return None
        found = [self._failures.get((step.language, step.code.strip())) for step in steps]
        if None in found or self._resampled.get(found[-1].source, 0) >= RESAMPLES:
            return None
        return found[-1]

    def resample(self, failure: Failure, sampling: dict) -> Entry:
        """The note that retracts a reply proposing `failure`'s code again (see refailed);
        the next call is made with `sampling` and a seed (a run can be repeated)."""
        self.sample_next(sampling)
        self._resampled[failure.source] = self._resampled.get(failure.source, 0) + 1
        where = f" on line {failure.line[0]}: `{failure.line[1]}`" if failure.line else ""
        note = (UNMET_RESAMPLE_NOTE if failure.unmet else RESAMPLE_NOTE).format(
            index=failure.index, where=where)
        return replace(user_message(note + _shown_fixed(failure)), retracts=True)

    def cut_off(self, sampling: dict) -> Entry | None:
        """The note that retracts a reply cut off inside its block at the length limit; the
        next call is made with `sampling` (None once the task asked again RESAMPLES_PER_TASK
        times). Greedy decoding writes the same runaway again (HumanEval/11, 17, 38)."""
        if self.asked or self.resamples >= RESAMPLES_PER_TASK:
            return None
        self.sample_next(sampling)
        return replace(user_message(CUT_OFF_NOTE), retracts=True)

    @staticmethod
    def resample_notice(failure: Failure, sampling: dict) -> str:
        """The line that tells the person why the reply did not run."""
        what = "did not do the task" if failure.unmet else "failed"
        return RESAMPLE_NOTICE.format(index=failure.index, what=what,
                                      temperature=sampling.get("temperature"))

    def sample_next(self, sampling: dict) -> None:
        """Make the next call with `sampling` (and a seed), as after refailed code."""
        self.resamples += 1
        self._sampling = {**sampling, "seed": self.resamples}

    def take_sampling(self) -> dict | None:
        """The sampling for the next model call (once), or None for the model's own."""
        sampling, self._sampling = self._sampling, None
        return sampling

    def reset(self) -> None:
        self._last, self._codes, self.repeats, self._note = None, frozenset(), 0, None
        self._unhelped = None
        self._reply, self.failed, self._seen, self._failed = [], False, set(), None
        self.asked = self.refused = False
        self._failures, self.resamples, self._sampling, self._resampled = {}, 0, None, {}


def _shown_fixed(failure: Failure) -> str:
    """The end of a note that shows `failure`'s block as a note says it should read, or ""."""
    if failure.fixed is None:
        return ""
    return FIXED_NOTE.format(index=failure.index, how=failure.fixed.how,
                             language=failure.source[0], code=failure.fixed.code)


def _fixed(code: str, fix, index: int, failing: tuple[int, str] | None) -> Rewrite | None:
    """Block `index`'s code as `fix` (a LineFix) rewrites it, or None: its failing line, or
    a line before it that made what that line missed (a merge)."""
    if fix is None or failing is None or failing[0] < fix.line:
        return None
    fixed = fix.applied(code, f"<block {index}>")
    return Rewrite(SUGGESTED.format(line=fix.line), fixed.strip()) if fixed else None


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
