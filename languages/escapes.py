"""The one escape-sequence sanitizer: what the model gets and (through interp/ui/sanitize.py)
what the terminal shows.

Removed: CSI sequences, strings (OSC, DCS, SOS, PM, APC) in their 7-bit and 8-bit forms, and
two-byte escapes. A string ends at BEL or ST; like a terminal, an ESC or C1 control that is not
ST aborts it. Unlike a terminal, a line end (LF or CR) also ends it, so an unterminated string
(`printf '\\e]0;title'`, `cat` of a binary file) hides at most the rest of its own line, never
the output that follows. `EscapeStream` does the same to a stream chunk by chunk.
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
