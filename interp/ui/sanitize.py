"""Making untrusted text safe to show: no escape sequence may reach the terminal.

Model text and program output lose every escape sequence (CSI, OSC, DCS, SOS, PM, APC, in
their 7-bit and 8-bit forms; the patterns are languages/escapes.py's, shared with what the
model is given, so an unterminated string ends at the end of its line in both), every other
C0/C1 control except tab and newline (program output keeps carriage returns for progress
lines; they cannot leave the current row), and bidi overrides/isolates. Code shown for approval is never altered that way: `visible` turns
each control, invisible or look-alike-space character into a visible escape instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from languages.escapes import BIDI, EscapeStream, collapse_cr, controls, drop_sequences

_CONTROLS = controls(extra=BIDI)
_CONTROLS_KEEP_CR = controls(keep="\t\n\r", extra=BIDI)

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


def safe_output(text: str) -> str:
    """Program output without escape sequences or controls; carriage returns kept."""
    return _CONTROLS_KEEP_CR.sub("", drop_sequences(text))


def safe_text(text: str) -> str:
    """Model or message text without escape sequences, controls or bidi overrides."""
    return _CONTROLS.sub("", collapse_cr(drop_sequences(text)))


class OutputFilter:
    """Sanitises a stream chunk by chunk: a sequence cut by a chunk's end is held back, and
    so is a tail that may be the start of a secret, which is replaced once complete.
    With sanitize=False it only redacts (for --json, which escapes everything anyway)."""

    def __init__(self, secrets: Iterable[str] = (), replacement: str = "[REDACTED]",
                 sanitize: bool = True) -> None:
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._replacement = replacement
        self._sanitize = sanitize
        self._escapes = EscapeStream()  # holds a cut-off escape sequence
        self._clean = ""  # sanitised text that may begin a secret

    def feed(self, chunk: str) -> str:
        """The part of the stream so far that is safe to show now."""
        if not self._sanitize:
            return self._redact(self._clean + chunk, final=False)
        text = self._escapes.feed(chunk)
        return self._redact(self._clean + safe_output(text), final=False)

    def flush(self) -> str:
        """Whatever is held back, sanitised (the stream has ended)."""
        return self._redact(self._clean + safe_output(self._escapes.flush()), final=True)

    def _redact(self, text: str, final: bool) -> str:
        for secret in self._secrets:
            text = text.replace(secret, self._replacement)
        self._clean = "" if final else self._secret_start(text)
        return text[:len(text) - len(self._clean)]

    def _secret_start(self, text: str) -> str:
        """The longest tail of text that is a proper prefix of a secret."""
        best = 0
        for secret in self._secrets:
            for size in range(min(len(secret) - 1, len(text)), best, -1):
                if text.endswith(secret[:size]):
                    best = size
                    break
        return text[len(text) - best:] if best else ""
