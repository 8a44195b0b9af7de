"""Making untrusted text safe to show: no escape sequence may reach the terminal."""

from __future__ import annotations

import re

from languages.output import ESCAPES, strip_escapes

_ESC_OR_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f]")


def visible(code: str) -> str:
    """Show every non-printable character of code (except newline and tab) as a visible escape."""
    def show(match: re.Match[str]) -> str:
        char = match.group()
        if char == "\x1b":
            return "\\e"
        if char == "\r":
            return "\\r"
        return f"\\u{ord(char):04x}" if ord(char) > 0xFF else f"\\x{ord(char):02x}"

    return _ESC_OR_CONTROL.sub(show, code)


def has_hidden(code: str) -> bool:
    """True when code holds characters that `visible` would rewrite."""
    return bool(_ESC_OR_CONTROL.search(code))


def safe_output(text: str) -> str:
    """Program output without escape sequences; carriage returns kept for progress lines."""
    return _drop_controls(ESCAPES.sub("", text))


def _drop_controls(text: str) -> str:
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", "", text)


def safe_text(text: str) -> str:
    """Model text with escape sequences and control characters removed."""
    return _drop_controls(strip_escapes(text))
