"""A task of the `tasks` benchmark, what a run of it left, and how that is scored.

A task is a folder of generated input files and a sentence a user would type. A run leaves the
folder (the files it must produce), the final message (the answer a one-shot prints), what the
user saw (every assistant message and block output) and the figures it saved. It is *right*
when the files are right and what the user saw states the result; *answered* when the files
are right and the final message itself states the result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from languages.plots import Plot

from interp.eval.tasks.files import Unreadable

CATEGORIES = ("stats", "cleaning", "pivot", "charts", "equations", "integrals", "matrices",
              "conversion", "shell", "node", "fixing")


@dataclass(frozen=True)
class Block:
    """A block that ran: its language and code."""

    language: str
    code: str


@dataclass(frozen=True)
class Attempt:
    """What one run of a task left behind."""

    folder: Path
    answer: str  # the final message ("" when the run ended without one)
    shown: str  # every assistant message (code fences left out) and block output, in order
    plots: Mapping[str, Plot] = field(default_factory=dict)  # by absolute path of the file
    blocks: tuple[Block, ...] = ()  # the blocks that ran

    def plot(self, name: str) -> Plot | None:
        """What the figure saved as `name` (relative to the folder) plots, if it was saved."""
        target = os.path.realpath(self.folder / name)
        for path, plot in self.plots.items():
            if os.path.realpath(path) == target:
                return plot
        return None


EPSILON = 1e-9  # of a value: binary floats put 159864.65 0.010000000009 from 159864.66


@dataclass(frozen=True)
class Number:
    """A number the answer must state (within `tol`, or `rel` times the value)."""

    value: float
    tol: float = 0.005
    rel: float = 0.005
    name: str = ""  # what the number is, for the failure line

    def missing(self, text: str) -> str | None:
        """Why `text` does not state the number, or None when it does."""
        reach = max(self.tol, self.rel * abs(self.value))
        reach += EPSILON * max(1.0, abs(self.value))  # "within 0.01" holds at 0.01 in decimal
        if any(abs(found - self.value) <= reach for found in numbers_in(text)):
            return None
        return f"{self.name or 'the number'}: {self.value:g} not stated"


@dataclass(frozen=True)
class Words:
    """Names the answer must state (each, as a whole word, in any case)."""

    words: tuple[str, ...]

    def missing(self, text: str) -> str | None:
        """Why `text` does not state the names, or None when it does."""
        absent = [w for w in self.words if not re.search(
            rf"(?<![\w]){re.escape(w)}(?![\w])", text, re.IGNORECASE)]
        return f"{', '.join(absent)} not named" if absent else None


Expect = Number | Words


@dataclass(frozen=True)
class Reference:
    """Code that does a task (right) or does it plausibly wrong; it prints its answer. Used by
    the tests only, to prove that a task's check passes the one and fails the other."""

    language: str  # "python" | "shell" | "javascript"
    code: str


def no_files(folder: Path) -> None:
    """The inputs of a task that has none."""


FileCheck = Callable[[Attempt], Iterator[str]]  # yields what is wrong with the files


@dataclass(frozen=True)
class Task:
    """One task: inputs, the sentence, and what a right result is."""

    id: str
    category: str
    sentence: str
    make: Callable[[Path], None]  # writes the input files into a fresh folder (deterministic)
    answer: tuple[Expect, ...] = ()  # what the final message must state
    files: FileCheck | None = None
    uses: tuple[str, ...] = ()  # a program the run must have used ("node")
    right: Reference | None = None
    wrong: Reference | None = None

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"{self.id}: unknown category {self.category!r}")


@dataclass(frozen=True)
class Score:
    """How a run did: what is wrong with its files, with its final message, and with what the
    user saw (each empty when right)."""

    files: tuple[str, ...] = ()
    answer: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()

    @property
    def right(self) -> bool:
        """The files are right and the run showed the result."""
        return not self.files and not self.shown

    @property
    def answered(self) -> bool:
        """The files are right and the final message states the result."""
        return not self.files and not self.answer

    @property
    def failures(self) -> list[str]:
        """Every failure, each once, files first."""
        return list(dict.fromkeys([*self.files, *(f"answer: {a}" for a in self.answer)]))


def score(task: Task, attempt: Attempt) -> Score:
    """Check a run of `task` (a check that raises counts as a failure, never as an error)."""
    try:
        files = list(task.files(attempt)) if task.files else []
    except Unreadable as exc:  # missing, too large or malformed: the message says which
        files = [str(exc)]
    except Exception as exc:  # a file the check could not read the way it needed
        files = [f"the check could not read the files ({type(exc).__name__}: {exc})"]
    files += [f"no {name} block ran" for name in task.uses if not _used(name, attempt.blocks)]
    answer = _missing(task.answer, attempt.answer)
    if not attempt.answer.strip():
        answer = ["no final message", *answer]
    return Score(tuple(files), tuple(answer), tuple(_missing(task.answer, attempt.shown)))


def _missing(expected: tuple[Expect, ...], text: str) -> list[str]:
    return [why for e in expected if (why := e.missing(text)) is not None]


def _used(program: str, blocks: tuple[Block, ...]) -> bool:
    """A block ran `program`: a block in its language, or a shell block that calls it."""
    language = {"node": "javascript"}.get(program, program)
    return any(b.language == language or (b.language == "shell" and re.search(
        rf"(?<![\w./-]){re.escape(program)}(?![\w-])", b.code)) for b in blocks)


_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
                     r"|(?<![\w.])[-+]?\.\d+")
_FRACTION = re.compile(r"(?<![\w.])(-?\d+)\s*/\s*(\d+)(?!\w|\.\d)"
                       r"|(-?)\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}")


def numbers_in(text: str) -> list[float]:
    """Every number written in `text`: 1,234.5, -3, 2.5e-3, $12, and fractions such as 5/2
    or LaTeX's \\frac{32}{3}."""
    text = text.replace("\u2212", "-")
    found = [float(m.group().replace(",", "")) for m in _NUMBER.finditer(text)]
    for a, b, sign, top, bottom in _FRACTION.findall(text):
        a, b = (a, b) if b else (sign + top, bottom)
        if int(b):
            found.append(int(a) / int(b))
    return found
