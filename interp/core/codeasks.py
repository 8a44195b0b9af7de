"""Answers that should have come from code: "Use Python to compute 2**20 + 7" answered from
memory (a small model's `1048582`), a question about sales.csv answered from the preview of
its first lines, about the files of a folder answered unseen (`1` file renamed), or a root or
an integral worked out in the reply's text (`-0.50000` for x^3 - 2x - 5 = 0). The model is
asked, once a task, to run the code; once a task, to write a file the task asks for that is
still missing when it answers; and, once a task, to state the answer to a question when it
only acknowledges the output ("ok.")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from interp.core.savedscripts import heredoc, run_line

# How people name a language in a task, beyond the runners' own names.
_ALIASES = {"python3": "python", "py": "python", "bash": "shell", "sh": "shell",
            "zsh": "shell", "terminal": "shell", "node": "javascript", "nodejs": "javascript",
            "node.js": "javascript", "js": "javascript"}
# A formula: a power (x^3, 2**20), arithmetic between a number or variable and a number, or a
# matrix written as nested lists ([[6, -2], [-2, 9]]).
_FORMULA = re.compile(r"[a-z0-9)]\s*(?:\^|\*\*)\s*[-a-z0-9(]"
                      r"|\b(?:\d+(?:\.\d+)?|[a-z])\s*[-+*/]\s*\d|\[\s*\[\s*-?\d", re.IGNORECASE)
_CALCULATION = re.compile(r"\b(?:integral|integrate|derivative|differentiate|roots?|solve|area|"
                          r"equations?|decimal places|compute|calculate|evaluate|determinant|"
                          r"eigenvalues?|inverse)\b", re.IGNORECASE)
_ASKS = re.compile(r"\b(?:use|using|with|in|run|write|by running)\s+(?:a\s+|some\s+)?"
                   r"([a-z][\w.+-]*[\w+])", re.IGNORECASE)


@dataclass(frozen=True)
class RunRequest:
    """Why an answer given without code is not taken yet (`why` starts both the model's
    request and the person's line), and the language to ask for."""

    why: str
    language: str = "python"
    prints: str = "the result"  # what the code is to print

    def request(self, tools: bool) -> str:
        """The message that asks the model to run code, through the `execute` tool (`tools`)
        or a fenced block. It asks for the code itself: a small model answered a request that
        only said how code runs here with that sentence, word for word."""
        code = f"{self.language} code that does it and prints {self.prints}"
        how = (f'Call the `execute` tool (language "{self.language}") with {code}' if tools
               else f"Reply with a ```{self.language} block of {code}")
        return (f"{self.why}, and no code has run yet. {how}; it will run, and you will see its "
                "output. Then answer from the output.")

    def notice(self) -> str:
        """The line the person sees."""
        return f"{self.why}, and the model answered without running code; asking it to run the code."


def language_asked(task: str, languages: Iterable[str]) -> RunRequest | None:
    """A request when the task tells the model to use one of `languages` ("use Python",
    "with bash", "in Node"), else None."""
    known = {name.lower() for name in languages}
    for match in _ASKS.finditer(task):
        word = match.group(1)
        language = _ALIASES.get(word.lower(), word.lower())
        if language in known:
            return RunRequest(f"The task asks to use {word}", language)
    return None


def previewed(names: Sequence[str]) -> RunRequest | None:
    """A request when the task's files were described to the model (a preview of their first
    lines), else None."""
    if not names:
        return None
    return RunRequest(f"Only a preview of {listed(names)} was shown to you")


def folders_named(names: Sequence[str]) -> RunRequest | None:
    """A request when the task names folders of the working folder ("rename the files in the
    photos folder"), which the model cannot have seen, else None."""
    if not names:
        return None
    return RunRequest(f"The task is about what is in {listed(names)}"
                      f"{'/' if len(names) == 1 else ''} here")


def calculation_asked(task: str) -> RunRequest | None:
    """A request when the task asks for a calculation on a formula ("the real root of
    x^3 - 2x - 5 = 0", "the integral of x^2 * e^(-x) from 0 to 3", "the eigenvalues of
    [[6, -2], [-2, 9]]"), else None."""
    if _CALCULATION.search(task) and _FORMULA.search(task):
        return RunRequest("The task asks for a calculation",
                          prints="the result as decimal numbers (not a formula)")
    return None


_WRITES = re.compile(r"\b(?:save|write|create|export|convert|turn|generate|produce|store|build|"
                     r"make)s?\b", re.IGNORECASE)


@dataclass(frozen=True)
class WriteRequest:
    """Files the task asks for that were still not written when the model answered."""

    names: tuple[str, ...]

    def request(self, tools: bool) -> str:
        """The message that asks the model to write them."""
        one = len(self.names) == 1
        if one and run_line(self.names[0]) and not tools:
            name = self.names[0]
            return (f"The task asks for the script {name}, which has not been written yet: "
                    f"reply with {heredoc(name)}, and `{run_line(name)}` on the line after it "
                    f"to run it; then answer from the output.")
        how = ("call the `execute` tool with code that saves" if tools
               else "reply with a code block that saves")
        return (f"The task asks for {listed(self.names)}, which {'has' if one else 'have'} not "
                f"been written yet: {how} {'it' if one else 'them'}, then answer from the output.")

    def notice(self) -> str:
        """The line the person sees."""
        one = len(self.names) == 1
        return (f"The task asks for {listed(self.names)}, which {'does' if one else 'do'} not "
                f"exist yet; asking the model to write {'it' if one else 'them'}.")


@dataclass(frozen=True)
class FixRequest:
    """Scripts the task asks to fix that were still unchanged when the model answered: their
    fixed copy ran only in the session."""

    names: tuple[str, ...]

    def request(self, tools: bool) -> str:
        """The message that asks the model to save the fixed code to the script and run it."""
        name = self.names[0]
        how = (f"call the `execute` tool (language \"shell\") with `cat > {name} <<'EOF'`, the "
               f"code, then `EOF`" if tools else f"reply with {heredoc(name)}")
        which = "which is" if len(self.names) == 1 else "which are"
        return (f"The task asks to fix {listed(self.names)}, {which} still unchanged: the "
                f"fixed code ran only in this session. {how[0].upper()}{how[1:]}, and "
                f"`{run_line(name)}` on the line after it to run it; then answer from the output.")

    def notice(self) -> str:
        """The line the person sees."""
        return (f"The task asks to fix {listed(self.names)}, which the model has not changed; "
                f"asking it to save its fix.")


def unwritten(task: str, names: Sequence[str],
              exists: Callable[[str], bool]) -> WriteRequest | None:
    """A request when a task that asks to save, write, convert... names files (`names`: those
    that did not exist when it began) and some still do not (`exists`), else None."""
    missing = tuple(name for name in names if not exists(name))
    return WriteRequest(missing) if missing and _WRITES.search(task) else None


@dataclass(frozen=True)
class DoneRequest:
    """Files this task wrote that still do not do what it asks (taskfiles.unmet's note) when
    the model answered."""

    note: str  # "Not done yet: ... Fix the code and run it again."

    def request(self, tools: bool) -> str:  # noqa: ARG002 (the same either way)
        """The message that asks the model to fix them before it answers."""
        return f"{self.note.removesuffix('.')}; then answer from the output."

    def notice(self) -> str:
        """The line the person sees."""
        return ("The files this task wrote do not do what it asks yet; asking the model to fix "
                "them before it answers.")


def listed(names: Sequence[str]) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# A reply that acknowledges the output without saying anything: the 1.5B model's "ok." after
# its block printed the sum the task asked for.
_ACKNOWLEDGED = re.compile(r"\W*(?:ok(?:ay)?|done|yes|sure|great|all done|got it|finished|"
                           r"the output above answers the task)\W*", re.IGNORECASE)
# A task that asks something (unprinted.py reads its words)
QUESTION = re.compile(r"\?|\b(?:tell me|how many|how much|which|what|report|list)\b",
                      re.IGNORECASE)
# A reply that copies interp's report of a block (the 1.5B model's reply to a note on its file)
_REPORT_ECHO = re.compile(r"\[Block \d+, [\w-]+\]\s*\n\s*(?:Output:|No output\.|Not run)")


@dataclass(frozen=True)
class AnswerRequest:
    """A reply that only acknowledged the output of a task that asks a question, or that
    copied interp's report of a block (`echo`)."""

    said: str
    echo: bool = False

    def request(self, tools: bool) -> str:  # noqa: ARG002 (the same either way)
        """The message that asks the model for the answer itself."""
        if self.echo:
            return ("Your last reply copied the report of a block instead of replying. If the "
                    "task is done, reply to the user with the answer (the values you found) "
                    "and no code; if it is not, run code that does what is still missing.")
        return ("That does not answer the task. Reply to the user with the answer itself: "
                "the values or names the output shows, in words, and no code.")

    def notice(self) -> str:
        """The line the person sees."""
        if self.echo:
            return "The model replied with a copy of a block's report; asking it to go on."
        return f"The model replied {self.said!r} to a question; asking it for the answer itself."


def acknowledged(task: str, text: str) -> AnswerRequest | None:
    """A request when `text` only acknowledges ("ok.", "Done!") and `task` asks a question,
    or when it starts as interp's report of a block does ("[Block 2, python]\nOutput:")."""
    said = text.strip()
    if _ACKNOWLEDGED.fullmatch(said) and QUESTION.search(task):
        return AnswerRequest(said)
    if _REPORT_ECHO.match(said):
        return AnswerRequest(said[:80], echo=True)
    return None
