"""Driving the real `interp` in a pseudo-terminal: a cursor into its visible output.

prompt_toolkit and rich draw with escape sequences, so `Term` strips them and matches on the
visible text, a log in which nothing is ever erased (a line erased and redrawn, as the status
line is, shows as a new line). `Term.screen()` is what the terminal shows at the end instead,
scrollback included (a real terminal emulator, pyte), for checking that nothing is left
behind. Every wait is a generous hang guard; nothing asserts how long anything takes.
"""

from __future__ import annotations

import json
import re
import time

import pexpect
import pyte


HANG_GUARD = 40.0  # seconds: only a guard against a hung test, never a timing assertion


QUESTION = r"Run this (\w+) block\? \[y\]es / \[n\]o / \[e\]dit / \[a\]lways: "


PROMPT = r"^> "


PANEL = r"╭─ \w+ block \d+ ─"


ESC = "\x1b"


_FORWARD = re.compile(r"\x1b\[(\d*)C")


_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                      r"|\x1b[()][0-9A-Za-z]|\x1b[=>78DEHMNOPZc]")


_ERASE_LINE = re.compile(r"\r?\x1b\[2K")


def visible_text(raw: str) -> str:
    """What the terminal output says, roughly: escapes dropped, cursor-forward as spaces, an
    erased line (the status line) ended as if by a newline."""
    raw = _FORWARD.sub(lambda m: " " * int(m.group(1) or 1), raw)
    raw = _ERASE_LINE.sub("\n", raw)
    return _ESCAPES.sub("", raw).replace("\x08", "").replace("\r", "")


def screen_lines(raw: str, columns: int = 120, rows: int = 40) -> list[str]:
    """The lines a terminal of that size shows after `raw`, scrollback first, right-trimmed,
    without the empty rows below the last text."""
    screen = pyte.HistoryScreen(columns, rows, history=1_000_000, ratio=0.001)
    stream = pyte.Stream(screen)
    stream.feed(raw)  # the pty already turned each \n into \r\n (ONLCR)
    history = ["".join(line[x].data for x in range(columns)).rstrip()
               for line in screen.history.top]
    lines = history + [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Term:
    """A spawned interp and a cursor into its visible output."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.raw = ""
        self.pos = 0

    @property
    def text(self) -> str:
        return visible_text(self.raw)

    def screen(self) -> list[str]:
        """What the terminal shows now, scrollback included (see screen_lines)."""
        rows, columns = self.child.getwinsize()
        return screen_lines(self.raw, columns, rows)

    def _read(self) -> bool:
        """Read what is available; False at end of file."""
        try:
            self.raw += self.child.read_nonblocking(65536, timeout=0.2)
        except pexpect.TIMEOUT:
            pass
        except pexpect.EOF:
            return False
        return True

    def expect(self, pattern: str, guard: float = HANG_GUARD) -> re.Match:
        """Wait for pattern in the visible output after the cursor; move the cursor past it."""
        regex = re.compile(pattern, re.M)
        deadline = time.monotonic() + guard
        alive = True
        while True:
            text = self.text
            match = regex.search(text, self.pos)
            if match:
                self.pos = match.end()
                return match
            if not alive:
                raise AssertionError(f"interp exited before {pattern!r} appeared; "
                                     f"output after the cursor:\n{text[self.pos:][-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"hang guard: no {pattern!r} after {guard:g} s; "
                                     f"output after the cursor:\n{text[self.pos:][-3000:]}")
            alive = self._read()

    def since(self, start: int) -> str:
        """Visible output from an earlier cursor position up to the current one."""
        return self.text[start:self.pos]

    def prompt(self) -> None:
        self.expect(PROMPT)

    def question(self) -> str:
        """Wait for the next block's panel and its approval question; returns the language.

        The question is redrawn as keys are typed, so matching its text alone could find an
        old copy; each proposal's panel is printed exactly once."""
        self.expect(PANEL)
        return self.expect(QUESTION).group(1)

    def settle(self, guard: float = HANG_GUARD) -> None:
        """Wait for the task prompt, declining any block a real model proposes on the way."""
        while self.expect(rf"{PROMPT}|{QUESTION}", guard).group(0).startswith("Run this"):
            self.line("n")
            self.expect("Reason")
            self.line("")

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def line(self, text: str) -> None:
        self.child.send(text + "\r")

    def task(self, text: str) -> None:
        """Wait for the task prompt, then type a task."""
        self.prompt()
        self.line(text)

    def exit_status(self) -> int:
        """Ctrl-D at the prompt; the exit status once interp has gone."""
        self.prompt()
        self.child.sendeof()
        return self.wait()

    def quit(self) -> int:
        """Ctrl-D at a prompt already seen; the exit status once interp has gone."""
        self.child.sendeof()
        return self.wait()

    def wait(self, guard: float = HANG_GUARD) -> int:
        """Read until interp exits; its exit status."""
        deadline = time.monotonic() + guard
        while self._read():
            if time.monotonic() > deadline:
                raise AssertionError(f"hang guard: interp still running after {guard:g} s; "
                                     f"output:\n{self.text[-3000:]}")
        self.child.close()
        return self.child.exitstatus


def fenced(language: str, code: str, before: str = "Let me check.") -> str:
    return f"{before}\n```{language}\n{code}\n```\n"


def texts(request: dict) -> list[str]:
    """The contents of a request's messages, as strings."""
    return [json.dumps(m["content"]) if not isinstance(m.get("content"), str) else m["content"]
            for m in request["messages"] if m.get("content") is not None]


def last_user(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] in ("user", "tool")][-1]["content"]
