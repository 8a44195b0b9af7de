"""The one escape-sequence sanitizer: what the model gets and (through interp/ui/sanitize.py)
what the terminal shows.

Removed: CSI sequences, strings (OSC, DCS, SOS, PM, APC) in their 7-bit and 8-bit forms, and
two-byte escapes. A string ends at BEL or ST; like a terminal, an ESC or C1 control that is not
ST aborts it. Unlike a terminal, a line end (LF or CR) also ends it, so an unterminated string
(`printf '\\e]0;title'`, `cat` of a binary file) hides at most the rest of its own line, never
the output that follows. `EscapeStream` does the same to a stream chunk by chunk.

Code shown for approval (the terminal's question, the MCP approval form) is never altered
that way: `visible` turns each control, invisible or look-alike-space character into a
visible escape instead, so what is approved is what runs.
"""

from __future__ import annotations

import re

_STRING_START = r"(?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])"
_BODY = r"[^\x07\x1b\x90\x98\x9b-\x9f\r\n]*"  # ESC, any C1 or a line end ends the string
SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    rf"|{_STRING_START}{_BODY}(?:\x07|\x1b\\|\x9c|(?=[\x1b\x90\x98\x9b\x9d-\x9f\r\n])|\Z)"
    r"|\x1b[ -/]*[0-~]"
)
# An escape sequence at the end of a chunk that the next chunk may complete.
PARTIAL = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*\Z"
    rf"|{_STRING_START}{_BODY}\x1b?\Z"
    r"|\x1b[ -/]*\Z"
)
BIDI = "\u202a-\u202e\u2066-\u2069"


def controls(keep: str = "\t\n", extra: str = "") -> re.Pattern[str]:
    """A pattern for one control character: C0, DEL and C1, less those in `keep`, plus the
    characters (or ranges) of the character-class body `extra`."""
    chars = "".join(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)) if chr(c) not in keep)
    return re.compile(f"[{re.escape(chars)}{extra}]")


# The model's text keeps bidi marks: they may be what it is looking for.
CONTROLS = controls()
MAX_CARRY = 256  # longest cut-off sequence a stream holds back between chunks


def drop_sequences(text: str) -> str:
    """text without escape sequences (controls are left alone)."""
    return SEQUENCE.sub("", text)


def collapse_cr(text: str) -> str:
    """What a terminal would leave of each line after carriage returns (roughly)."""
    if "\r" not in text:
        return text
    return "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n"))


def strip_escapes(text: str) -> str:
    """Text for the model: no escape sequences, carriage-return overwrites applied, and no
    control characters other than tab and newline."""
    return CONTROLS.sub("", collapse_cr(drop_sequences(text)))


class EscapeStream:
    """Holds back an escape sequence cut off by the end of a chunk until it is complete."""

    def __init__(self) -> None:
        self._raw = ""

    def feed(self, chunk: str) -> str:
        """The text so far whose sequences are complete (still to be sanitised)."""
        text, self._raw = self._raw + chunk, ""
        if match := PARTIAL.search(text):  # linear: a string's body stops at any introducer
            self._raw = text[match.start():]
            text = text[:match.start()]
            if len(self._raw) > MAX_CARRY:  # a long string: drop its body, keep waiting for its end
                self._raw = self._raw[:2] if self._raw[0] == "\x1b" else self._raw[:1]
        return text

    def flush(self) -> str:
        """Whatever is held back (the stream has ended)."""
        held, self._raw = self._raw, ""
        return held


# Entering and leaving the alternate screen (xterm's modes 1049, 1047 and 47), and the start
# of such a sequence cut off by the end of a chunk.
_SCREEN = re.compile(r"\x1b\[\?([\d;]*)([hl])")
_SCREEN_START = re.compile(r"\x1b(?:\[(?:\?[\d;]*)?)?")
_ALTERNATE = frozenset({"1049", "1047", "47"})
SCREEN_HOLD = 64 * 1024  # characters of an alternate screen held back; past that it is output
SCREEN_NOTE = ("[left out: what a full-screen program drew on the terminal's alternate screen, "
               "which it closed]\n")


class ScreenFilter:
    """What a full-screen program (an editor, a pager) draws on the alternate screen is held
    back; when the program leaves that screen, as a terminal drops it, one line says it was
    left out (nothing is dropped unsaid). A screen never left, or past SCREEN_HOLD, is output
    as it came. A sequence cut by the end of a chunk is held until the next one."""

    def __init__(self) -> None:
        self.alternate = False
        self._held = ""  # the start of a sequence, cut off
        self._screen: list[str] = []  # what was drawn on the alternate screen so far
        self._size = 0
        self._spilled = False  # the screen grew past SCREEN_HOLD: it is passed on

    def feed(self, chunk: str) -> str:
        """The output so far, less what waits on the alternate screen."""
        text, self._held = self._held + chunk, ""
        cut = text.rfind("\x1b", max(0, len(text) - 32))
        if cut >= 0 and _SCREEN_START.fullmatch(text, cut):
            text, self._held = text[:cut], text[cut:]
        if not self.alternate and "\x1b[?" not in text:
            return text
        shown, at = [], 0
        for match in _SCREEN.finditer(text):
            if _ALTERNATE.isdisjoint(match.group(1).split(";")):
                continue
            shown.append(self._part(text[at:match.start()]))
            shown.append(self._switch(match.group(2) == "h"))
            at = match.end()
        shown.append(self._part(text[at:]))
        return "".join(shown)

    def flush(self) -> str:
        """Whatever is held back (the output has ended): a screen never left is output."""
        held, self._held = self._held, ""
        screen, self._screen, self._size = "".join(self._screen), [], 0
        return screen + held

    def _part(self, text: str) -> str:
        if not self.alternate or self._spilled:
            return text
        self._screen.append(text)
        self._size += len(text)
        if self._size <= SCREEN_HOLD:
            return ""
        self._spilled = True
        screen, self._screen, self._size = "".join(self._screen), [], 0
        return screen

    def _switch(self, on: bool) -> str:
        """Enter (`on`) or leave the alternate screen; leaving drops what it held, said."""
        if on == self.alternate:
            return ""
        self.alternate, spilled, self._spilled = on, self._spilled, False
        if on:
            return ""
        screen, self._screen, self._size = "".join(self._screen), [], 0
        return SCREEN_NOTE if strip_escapes(screen).strip() and not spilled else ""


# Shown as escapes in code: C0 (not tab/newline), DEL, C1, spaces other than U+0020, format
# characters (zero-width, bidi, tags, BOM, ...), invisible fillers and variation selectors,
# and the control pictures used below to mark trailing whitespace.
_HIDDEN = controls(extra=(
    "\xa0\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891"
    "\u08e2\u115f\u1160\u1680\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f"
    "\u2400-\u2426\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"))
_TRAILING = re.compile(r"(?<=[^ \t\n])[ \t]+$", re.M)
HIDDEN_NOTE = "hidden characters shown as \\e, \\u…, ␠"  # under code `visible` changed
_NAMED = {"\x1b": "\\e", "\r": "\\r", "\x00": "\\0", "\x08": "\\b"}
MARKS = {" ": "\u2420", "\t": "\u2409"}  # ␠ ␉


def _show(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _emoji_selector(text: str, at: int) -> bool:
    """True for U+FE0F right after a visible symbol (emoji presentation): left alone."""
    if text[at] != "\ufe0f" or at == 0:
        return False
    before = text[at - 1]
    return ord(before) >= 0x2000 and not _HIDDEN.match(before)


def visible_spans(code: str) -> tuple[str, list[tuple[int, int]]]:
    """`visible(code)` and the (start, end) offsets of every escape or mark in it."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    length, last = 0, 0
    marked = {m.start() + i for m in _TRAILING.finditer(code) for i in range(len(m.group()))}
    hidden = {m.start() for m in _HIDDEN.finditer(code) if not _emoji_selector(code, m.start())}
    for at in sorted(marked | hidden):
        out.append(code[last:at])
        length += at - last
        shown = MARKS[code[at]] if at in marked else _show(code[at])
        out.append(shown)
        spans.append((length, length + len(shown)))
        length += len(shown)
        last = at + 1
    out.append(code[last:])
    return "".join(out), spans


def visible(code: str) -> str:
    """Code with every control, invisible or odd-space character shown as an escape (\\e,
    \\r, \\x9b, \\u202e, ...) and trailing spaces/tabs after text shown as ␠/␉; tab and
    newline are kept."""
    return visible_spans(code)[0]


def has_hidden(code: str) -> bool:
    """True when `visible` would show code differently from its raw text."""
    return visible(code) != code
