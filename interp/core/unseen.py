"""Numbers an answer states that nothing in the task showed: the 1.5B model, asked "What is
its determinant?", ran code that printed nothing and answered "The determinant of the matrix
is -10" (it is -24). Such an answer to a one-line question is asked once to be printed by
code first."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from interp.core.codeasks import listed

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)  # "1. Acme": a list's numbering
SMALL = 10  # whole numbers below this are counts and list positions: never asked about
NAMED = 3  # numbers named in the request


def numbers(text: str) -> list[tuple[float, int, str]]:
    """(value, decimals, as written) of each number in `text`."""
    found = []
    for match in _NUMBER.finditer(text):
        written = match.group(0)
        plain = written.replace(",", "")
        try:
            value = float(plain)
        except ValueError:
            continue
        mantissa = plain.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        found.append((value, decimals, written))
    return found


def unseen(answer: str, seen: Iterable[str]) -> tuple[str, ...]:
    """The numbers of `answer` (as written) that no number of the `seen` texts rounds or cuts
    to (also as a percentage: within one unit of the last digit written), leaving out whole
    numbers below SMALL and list numbering."""
    shown = [value for text in seen for value, _, _ in numbers(text)]
    out: list[str] = []
    for value, decimals, written in numbers(_LIST_ITEM.sub(" ", answer)):
        if decimals == 0 and abs(value) < SMALL or written in out:
            continue
        slack = 10.0 ** -decimals + 1e-9 * max(1.0, abs(value))  # rounded or cut off
        if not any(abs(s - value) <= slack or abs(s * 100 - value) <= slack for s in shown):
            out.append(written)
    return tuple(out)


@dataclass(frozen=True)
class UnseenRequest:
    """An answer to a question that states numbers no output (nor the task) showed."""

    numbers: tuple[str, ...]

    def request(self, tools: bool) -> str:
        """The message that asks the model to print them with code first."""
        how = ("Call the `execute` tool with code" if tools else "Reply with a ```python block")
        return (f"Your answer states {listed(self.numbers[:NAMED])}, which no output of this "
                f"task shows. {how} that computes and prints the values the task asks for (the "
                "session keeps its variables); then answer from its output.")

    def notice(self) -> str:
        """The line the person sees."""
        return (f"The answer states {listed(self.numbers[:NAMED])}, which no output showed; "
                "asking the model to print it with code.")

