"""Loops that go nowhere, a part of the conversation loop: the same code run again with the
same result. The model is told once, then asked for its answer, and only a further repeat
stops the task: every task ends within a bounded number of repeats."""

from __future__ import annotations

import hashlib
import re

from interp.core import exits
from interp.core.blocks import failing_line
from interp.core.exits import Ending
from interp.core.history import Entry, user_message

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
FAILED_REPEAT_NOTE = ("Note: this is the same code as {when}, and it failed again{where}. Do not "
                      "run it again unchanged: read the error and change {what}.")
FAILED_ANSWER_REQUEST = ("You have run the same code {n} times and it failed each time, so "
                         "running it again will not help. Do not run code again: reply now with "
                         "your final answer to the task, or say what went wrong.")
LOOP_NOTICE = "The model ran the same code with the same {what} {n} times; asking it for its answer."


class LoopGuard:
    """Counts replies in a row whose blocks ran code already run this task with the same
    results: the reply before (a failure is the same result whatever its error: with state
    kept, the same failing code can fail two ways in turn), or an earlier one (a model that
    swaps two failing fixes in turn). Once they reach the limit the model is asked for its
    final answer (once a task), and only a further repeat stops."""

    def __init__(self, limit: int = REPEATS_TO_STOP) -> None:
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        """Forget the task's blocks."""
        self._last: str | None = None
        self._seen: set[str] = set()  # every earlier reply's blocks and results, this task
        self._codes: frozenset[tuple[str, str]] = frozenset()  # the repeated replies' blocks
        self._reply: list[tuple[str, tuple[str, str], bool]] = []  # this reply's, so far
        self._failed_line: tuple[int, str] | None = None  # of the last block that failed
        self.failed = False  # a block of the repeated reply failed (each time)
        self.repeats = 0
        self._note: str | None = None  # what the model is to be told in the next report
        self.asked = False  # the model was asked for its final answer this task
        self.refused = False  # it then proposed the stuck code again, which was not run

    def saw(self, language: str, code: str, result, index: int = 0) -> None:
        """Record a block of this reply that ran (block number `index`)."""
        failed = result.status == "error"
        seen = ("failed",) if failed else (result.status, result.exit_code, result.output.text)
        if failed:
            self._failed_line = failing_line(code, result.output.text, index)
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
            if self.failed and self._failed_line:
                line = self._failed_line
                where, what = f" on line {line[0]}: `{line[1]}`", "that line"
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
