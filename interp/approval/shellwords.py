"""The records of shellsplit's parser: a simple command's words, and the command being read."""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEYWORDS = frozenset({"!", "if", "then", "elif", "else", "do", "while", "until", "time"})
_CLOSERS = frozenset({"fi", "done", "esac"})
_HEADERS = frozenset({"for", "select"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_REDIRECT = re.compile(r"\d*[<>]|&>")


class ShellParseError(ValueError):
    """The block is not shell syntax this splitter understands."""


@dataclass(frozen=True)
class Command:
    """One simple command: its words as written and with quotes and escapes removed."""

    words: tuple[str, ...]
    bare_words: tuple[str, ...]

    @property
    def text(self) -> str:
        """The normalised command as written."""
        return " ".join(self.words)

    @property
    def bare(self) -> str:
        """The command with quotes and backslash escapes removed."""
        return " ".join(self.bare_words)

    def without_assignments(self) -> Command:
        """The command without its leading `NAME=value` words (a lone assignment stays)."""
        n = 0
        while n < len(self.words) - 1 and _ASSIGNMENT.match(self.words[n]):
            n += 1
        return Command(self.words[n:], self.bare_words[n:])


def squash(text: str) -> str:
    """text with each run of white space made one space."""
    return re.sub(r"\s+", " ", text)


def unquote(raw: str) -> str:
    """The word part `raw` with its quoting removed (approximately, as the shell would)."""
    if raw.startswith(("$'", '$"')):
        raw = raw[1:]
    if raw.startswith("'"):
        return raw[1:-1]
    if raw.startswith('"'):
        return re.sub(r'\\([$`"\\])', r"\1", raw[1:-1])
    return raw


class PartialCommand:
    """The command being built: finished words and the current word."""

    def __init__(self, start: int) -> None:
        self.start, self.words, self.bare = start, [], []
        self.text = self.plain = ""
        self.started = False
        self.group_at: int | None = None

    @property
    def at_start(self) -> bool:
        """No word has begun yet."""
        return not self.words and not self.started

    def add(self, text: str, plain: str | None = None) -> None:
        """Append to the current word."""
        self.text += text
        self.plain += text if plain is None else plain
        self.started = True

    def end_word(self) -> None:
        """Finish the current word; leading reserved words are dropped."""
        if not self.started:
            return
        leading = not self.words and self.group_at is None
        if leading and self.text in _CLOSERS:
            self.group_at = 0
        elif not (leading and self.text in _KEYWORDS):
            self.words.append(self.text)
            self.bare.append(self.plain)
        self.text = self.plain = ""
        self.started = False

    def finish(self) -> Command | None:
        """The simple command this was, if any."""
        self.end_word()
        words, bare = self.words, self.bare
        if self.group_at is not None:
            words, bare = words[self.group_at:], bare[self.group_at:]
            if words and _REDIRECT.match(words[0]):
                return None
        if not words or words[0] in _HEADERS:
            return None
        return Command(tuple(words), tuple(bare))
