"""Tasks that ask for code by name: "Use Python to compute 2**20 + 7" answered from memory
(a small model's `1048582`) is not what the person asked for, so the model is asked, once a
task, to run the code."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# How people name a language in a task, beyond the runners' own names.
_ALIASES = {"python3": "python", "py": "python", "bash": "shell", "sh": "shell",
            "zsh": "shell", "terminal": "shell", "node": "javascript", "nodejs": "javascript",
            "node.js": "javascript", "js": "javascript"}
_ASKS = re.compile(r"\b(?:use|using|with|in|run|write|by running)\s+(?:a\s+|some\s+)?"
                   r"([a-z][\w.+-]*[\w+])", re.IGNORECASE)
RUN_REQUEST = ("The task asks to use {written}, and no code has run yet. {how} Then answer "
               "from its output. If no code is needed after all, say so.")
RUN_NOTICE = ("The task asks to use {written} and the model answered without running code; "
              "asking it to run the code.")


@dataclass(frozen=True)
class Asked:
    """A language a task asks for: the runner's name and the word the person wrote."""

    language: str
    written: str

    def request(self, how: str) -> str:
        """The message that asks the model to run the code; `how`: how code runs here."""
        return RUN_REQUEST.format(written=self.written, how=how[:1].upper() + how[1:])

    def notice(self) -> str:
        """The line the person sees."""
        return RUN_NOTICE.format(written=self.written)


def language_asked(task: str, languages: Iterable[str]) -> Asked | None:
    """The runner language the task tells the model to use ("use Python", "with bash",
    "in Node"), or None."""
    known = {name.lower() for name in languages}
    for match in _ASKS.finditer(task):
        word = match.group(1)
        language = _ALIASES.get(word.lower(), word.lower())
        if language in known:
            return Asked(language, word)
    return None
