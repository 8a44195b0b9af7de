"""Split a shell block into the simple commands it would run, for approval rules.

Separators: ``;``, ``&&``, ``||``, ``|``, ``|&``, ``&``, newlines. The insides of ``$(…)``,
backticks, ``<(…)``, ``>(…)``, ``( … )`` and ``{ …; }`` are commands too (the outer command
keeps its ``$(…)`` text). Quotes, escapes and comments are understood; heredoc bodies are
data, except ``$(…)``/backticks in an unquoted-delimiter body. Leading reserved words
(``if``, ``then``, ``do``, ``!``, ``time``…), ``for`` headers, function headers and
redirections after a group are not commands. Whitespace outside quotes is collapsed.
Anything else (``case``, unbalanced quotes or brackets) raises ShellParseError.
"""

from __future__ import annotations

import re
from typing import NoReturn

from interp.approval.shellwords import Command, PartialCommand, ShellParseError, squash, unquote

_PLAIN = re.compile(r"[^\s;&|<>()'\"`$\\#{}]+")
_ANSI_C = re.compile(r"\$'(?:[^'\\]|\\.)*'", re.S)
_BACKTICK = re.compile(r"`((?:[^`\\]|\\.)*)`", re.S)
_HEREDOC = re.compile(r"<<(-?)[ \t]*((?:[^\s;&|<>()'\"\\]|\\.|'[^']*'|\"(?:[^\"\\]|\\.)*\")+)", re.S)
_MAX_DEPTH = 50


class _Parser:
    """A recursive scanner that records every simple command it meets."""

    def __init__(self, src: str, out: list[tuple[int, Command]], depth: int = 0, base: int = 0) -> None:
        self.src, self.out, self.depth, self.base, self.i = src, out, depth, base, 0
        self.heredocs: list[tuple[str, bool, bool]] = []

    def peek(self, k: int = 0) -> str:
        """The character k places ahead, or "" past the end."""
        return self.src[self.i + k:self.i + k + 1]

    def at(self, chars: str, k: int = 0) -> bool:
        """Whether the character k places ahead is one of `chars`."""
        return self.peek(k) != "" and self.peek(k) in chars

    def fail(self, message: str) -> NoReturn:
        """Raise a ShellParseError at the current position."""
        raise ShellParseError(f"{message} (at character {self.base + self.i})")

    def nested(self, src: str | None = None, base: int = 0) -> _Parser:
        """This parser one level deeper (or a new one over `src`), guarding the depth."""
        if self.depth >= _MAX_DEPTH:
            self.fail("nested too deeply")
        if src is not None:
            return _Parser(src, self.out, self.depth + 1, base)
        self.depth += 1
        return self

    def sub(self, closer: str) -> None:
        """Parse a nested command list that ends with `closer`."""
        self.nested().parse_list(closer)
        self.depth -= 1

    def parse_list(self, closer: str | None = None) -> None:
        """Parse commands until `closer` (")" or "}") or the end of the text."""
        cmd = PartialCommand(self.i)
        while True:
            c = self.peek()
            if not c or (c == ")" and closer == ")") or (c == "}" and closer == "}" and cmd.at_start):
                if not c and (closer or self.heredocs):
                    self.fail(f"missing {closer!r}" if closer else "unterminated heredoc")
                self.i += 1 if c else 0
                self.flush(cmd)
                return
            if c in " \t":
                self.i += 1
                cmd.end_word()
            elif c in "\n;|" or (c == "&" and not self.at(">", 1)):
                self.i += 2 if self.src[self.i:self.i + 2] in ("&&", "||", "|&", ";;") else 1
                if c == "\n" and self.heredocs:
                    self.read_heredocs()
                cmd = self.flush(cmd)
            elif c == "#" and not cmd.started:
                end = self.src.find("\n", self.i)
                self.i = len(self.src) if end < 0 else end
            elif c in "()":
                self.paren(cmd)
            elif c == "{" and self.group_start(cmd):
                self.i += 1
                cmd.group_at = len(cmd.words)
                self.sub("}")
            else:
                self.word_part(cmd)

    def flush(self, cmd: PartialCommand) -> PartialCommand:
        """Record `cmd` and start a new one."""
        command = cmd.finish()
        if command is not None:
            self.out.append((self.base + cmd.start, command))
        return PartialCommand(self.i)

    def group_start(self, cmd: PartialCommand) -> bool:
        """Whether a `{` here opens a `{ …; }` group (or a function body)."""
        if not self.at(" \t\n", 1) or cmd.started:
            return False
        return not cmd.words or cmd.words[0] == "function" or cmd.words[-1].endswith("()")

    def paren(self, cmd: PartialCommand) -> None:
        """Handle `(`: subshell, `((…))`, array literal, extglob or function header."""
        start = self.i
        if self.peek() == ")":
            self.fail("unexpected ')'")
        if cmd.at_start and self.at("(", 1):
            self.i += 2
            self.scan(")", "(")
            if self.peek() == ")":
                self.i += 1
                return cmd.add(squash(self.src[start:self.i]))
            self.i = start
        if cmd.at_start:
            self.i += 1
            cmd.group_at = 0
            self.sub(")")
        elif cmd.started and cmd.text[-1] in "=@!?*+":
            self.i += 1
            self.scan(")", "(")
            cmd.add(squash(self.src[start:self.i]))
        elif cmd.started and self.at(")", 1):
            self.i += 2
            cmd.add("()")
            cmd.end_word()
            cmd.group_at = len(cmd.words)
        else:
            self.fail("unexpected '('")

    def word_part(self, cmd: PartialCommand) -> None:
        """Consume one piece of a word: plain text, a quote, an expansion or a redirection."""
        c, start = self.peek(), self.i
        match = _PLAIN.match(self.src, self.i)
        if match:
            self.i = match.end()
            return cmd.add(match.group())
        if c == "\\":
            nxt = self.peek(1)
            self.i += 2 if nxt else 1
            return None if nxt == "\n" else cmd.add(c + nxt, nxt)
        if c in "<>&":
            return self.redirection(cmd)
        if c == "'":
            end = self.src.find("'", self.i + 1)
            self.i = end + 1 if end >= 0 else self.fail("unterminated single quote")
        elif c == '"':
            self.i += 1
            self.scan('"', quotes=False)
        elif c in "$`":
            self.expansion(in_dquote=False)
        else:
            self.i += 1  # a literal "{", "}" or "#" inside a word
        raw = self.src[start:self.i]
        quoted = raw.startswith(("'", '"', "$'", '$"'))
        return cmd.add(raw, unquote(raw)) if quoted else cmd.add(squash(raw))

    def redirection(self, cmd: PartialCommand) -> None:
        """Consume a redirection operator, a process substitution or a heredoc operator."""
        if cmd.started and not cmd.text.isdigit():
            cmd.end_word()
        start, c = self.i, self.peek()
        heredoc = _HEREDOC.match(self.src, self.i)
        if c in "<>" and self.at("(", 1):
            self.i += 2
            self.sub(")")
        elif self.src.startswith("<<<", self.i):
            self.i += 3
        elif heredoc:
            self.i = heredoc.end()
            raw = heredoc.group(2)
            word = re.sub(r"\\(.)", r"\1", raw.replace("'", "").replace('"', ""))
            self.heredocs.append((word, bool(heredoc.group(1)), not any(q in raw for q in "'\"\\")))
        elif c == "<" and self.at("<", 1):
            self.fail("heredoc without a delimiter")
        else:  # > >> >& >| < <& <> &> &>>
            self.i += 1 + self.at(">&|" if c == ">" else "&>" if c == "<" else ">")
            self.i += c == "&" and self.at(">")
        cmd.add(squash(self.src[start:self.i]))

    def read_heredocs(self) -> None:
        """Skip the bodies of pending heredocs; expansions in unquoted ones are commands."""
        pending, self.heredocs = self.heredocs, []
        for word, strip, expand in pending:
            start = body_end = self.i
            while True:
                if self.i >= len(self.src):
                    self.fail(f"heredoc {word!r} is not terminated")
                end = self.src.find("\n", self.i)
                end = len(self.src) if end < 0 else end
                line, self.i = self.src[self.i:end], end + 1
                if (line.lstrip("\t") if strip else line) == word:
                    break
                body_end = self.i
            if expand:
                self.nested(self.src[start:body_end], self.base + start).scan("", quotes=False)
        self.i = min(self.i, len(self.src))

    def scan(self, stop: str, open_: str = "", quotes: bool = True) -> None:
        """Consume up to and including `stop` (nesting on `open_`), recording substitutions."""
        depth = 0
        while c := self.peek():
            if c == "\\":
                self.i += 2
            elif c in "$`":
                self.expansion(in_dquote=not quotes)
            elif quotes and c == "'":
                end = self.src.find("'", self.i + 1)
                self.i = end + 1 if end >= 0 else self.fail("unterminated single quote")
            elif quotes and c == '"':
                self.i += 1
                self.scan('"', quotes=False)
            else:
                self.i += 1
                if c == stop and depth == 0:
                    return
                depth += (c == open_) - (c == stop)
        if stop:
            self.fail(f"missing {stop!r}")

    def expansion(self, in_dquote: bool) -> None:
        """Consume a backtick substitution or `$…`: $'…', $"…", $((…)), $(…), ${…}, plain `$`."""
        start, nxt = self.i, self.peek(1)
        if self.peek() == "`":
            match = _BACKTICK.match(self.src, self.i) or self.fail("unterminated backtick")
            self.i = match.end()
            inner = re.sub(r"\\([`\\$])", r"\1", match.group(1))
            self.nested(inner, self.base + start + 1).parse_list()
        elif nxt == "'" and not in_dquote:
            match = _ANSI_C.match(self.src, self.i) or self.fail("unterminated $'…' string")
            self.i = match.end()
        elif nxt == '"' and not in_dquote:
            self.i += 2
            self.scan('"', quotes=False)
        elif nxt == "(" and self.at("(", 2):
            self.i += 3
            self.scan(")", "(")
            if not self.at(")"):
                self.i = start + 2
                return self.sub(")")
            self.i += 1
        elif nxt == "(":
            self.i += 2
            self.sub(")")
        elif nxt == "{":
            self.i += 2
            self.scan("}", "{")
        else:
            self.i += 1
        return None


def parse_commands(code: str) -> list[Command]:
    """Every simple command in a shell block, in source order; raises ShellParseError."""
    found: list[tuple[int, Command]] = []
    _Parser(code, found).parse_list()
    return [command for _, command in sorted(found, key=lambda item: item[0])]


def split_commands(code: str) -> list[str]:
    """The normalised text of every simple command in a shell block; raises ShellParseError."""
    return [command.text for command in parse_commands(code)]
