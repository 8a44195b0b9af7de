"""What the parts of a Session share: its settings, the conversation (and the file it is saved
to) and the facts of the task at hand."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from languages import Registry, RunnerConfig

from interp.core.history import Entry, task_indices
from interp.core.prompt.instructions import Instructions, with_instructions
from interp.core.text import clean
from interp.models.base import Model
from interp.skills import Skills, with_skills


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
    unwatched: tuple[str, ...] = ()  # interp's own folders and output files: not a block's doing
    checks: str | tuple[str, ...] = "auto"  # the reply checks: auto | on | off | their names
    max_output: int | None = None  # characters of a block's output the model is given; None:
    # by model (replies/report.py: output_chars)
    skills: Skills | None = None  # skills (.agents/skills), listed in the system prompt
    # The answer as JSON valid against this JSON Schema (--output-schema; checks/schema.py).
    output_schema: Any = field(default=None, compare=False)
    # Checks asked for besides `checks` (the Stop hooks), run after the others whatever
    # `checks` says: objects of the Check protocol (checks/base.py).
    extra_checks: tuple = ()

    def extend_prompt(self, prompt: str) -> str:
        """interp's system prompt (either form) with the parts these settings add: the
        AGENTS.md files, then the skills."""
        return with_skills(with_instructions(prompt, self.instructions), self.skills)


@dataclass
class Totals:
    """Tokens and cost so far."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cost_known: bool = True


@dataclass
class SessionState:
    """The record a Session's parts (asking.py, execution.py, turns.py) read and write."""

    model: Model
    config: SessionConfig
    registry: Registry
    messages: list[Entry] = field(default_factory=list)  # the conversation, in order
    log: object | None = None  # the saved conversation (interp.storage), or None
    id: str | None = None
    totals: Totals = field(default_factory=Totals)
    task: str = ""  # the current task, as typed
    block: int = 0  # the last block number used
    stop_requested: bool = False  # stop() was called during this task
    log_reset: bool = False  # reset() happened; the log learns of it before the next message

    def add(self, entry: Entry) -> None:
        """Append an entry to the conversation and to its file."""
        entry = replace(entry, message=clean(entry.message))
        self.messages.append(entry)
        if self.log is not None:
            if self.log_reset:
                self.log_reset = False
                self.log.append_reset()
                for earlier in self.messages[:-1]:
                    self.log.append_message(earlier)
            self.log.append_message(entry)

    def root(self) -> str:
        """The session's working directory."""
        return self.config.runner.cwd or os.getcwd()

    def undo(self) -> int:
        """Drop the last task and everything after it; returns how many messages."""
        tasks = task_indices(self.messages)
        if not tasks:
            return 0
        dropped = len(self.messages) - tasks[-1]
        del self.messages[tasks[-1]:]
        if self.log is not None:
            self.log.append_undo(dropped)
        return dropped

    def answer_dangling_calls(self) -> None:
        """Give every tool call of the last assistant message a result (APIs reject it otherwise).

        Calls are left unanswered when a turn was cut short (Ctrl-C while events were handled) or
        the process died mid-block and the conversation was resumed."""
        for i in range(len(self.messages) - 1, -1, -1):
            entry = self.messages[i]
            if entry.role == "tool":
                continue
            if entry.role != "assistant" or not entry.tool_calls:
                return
            answered = {m.message.get("tool_call_id") for m in self.messages[i + 1:]}
            for call in entry.tool_calls:
                if call.get("id") not in answered:
                    self.add(Entry({"role": "tool", "tool_call_id": call.get("id"),
                                    "content": "Not run or not finished: the turn was "
                                               "interrupted."}, output=True))
            return
