"""DABench's closed-form scoring: the final answer holds `@name[value]` for every labelled
name; a sub-answer is right when its text equals the label's or both parse as numbers within
1e-6 of each other; a question is right when all its sub-answers are."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

ANSWER = re.compile(r"@(\w+)\[(.*?)\]")  # the benchmark's own pattern
TOLERANCE = 1e-6


@dataclass(frozen=True)
class SubAnswer:
    """One labelled name: the label's value, the value found (None: not in the answer)."""

    name: str
    label: str
    got: str | None
    right: bool


@dataclass(frozen=True)
class Score:
    """A question's score: right when every sub-answer is."""

    subs: tuple[SubAnswer, ...]

    @property
    def right(self) -> bool:
        return bool(self.subs) and all(sub.right for sub in self.subs)

    @property
    def formatted(self) -> bool:
        """Every labelled name is in the answer as `@name[...]` (right or not)."""
        return all(sub.got is not None for sub in self.subs)


def answers(text: str) -> dict[str, str]:
    """`@name[value]` pairs in `text`; the last value of a name wins."""
    return {name: value for name, value in ANSWER.findall(text or "")}


def equal(got: str, label: str) -> bool:
    """The benchmark's comparison: the same text, or numbers within TOLERANCE."""
    got, label = got.strip(), label.strip()
    if got == label:
        return True
    try:
        a, b = float(got), float(label)
    except ValueError:
        return False
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) < TOLERANCE


def score(labels: tuple[tuple[str, str], ...], text: str) -> Score:
    """Score `text` (the final answer) against the labels."""
    found = answers(text)
    return Score(tuple(SubAnswer(name, label, found.get(name),
                                 name in found and equal(found[name], label))
                       for name, label in labels))


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def values_shown(labels: tuple[tuple[str, str], ...], text: str) -> bool:
    """Whether every labelled value appears in `text` in any form (a diagnostic: the run
    computed the answer, whether or not its final answer gave it as asked): `@name[value]`,
    a number equal to it, or its text as it stands."""
    if score(labels, text).right:
        return True
    numbers = _NUMBER.findall(text or "")
    for _, label in labels:
        try:
            float(label)
        except ValueError:
            if label.strip() not in (text or ""):
                return False
            continue
        if not any(equal(number, label) for number in numbers):
            return False
    return True
