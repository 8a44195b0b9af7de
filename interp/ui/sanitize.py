"""Making untrusted text safe to show: no escape sequence may reach the terminal.

Model text and program output lose every escape sequence (CSI, OSC, DCS, SOS, PM, APC, in
their 7-bit and 8-bit forms; the patterns are languages/escapes.py's, shared with what the
model is given, so an unterminated string ends at the end of its line in both), every other
C0/C1 control except tab and newline (program output keeps carriage returns for progress
lines; they cannot leave the current row), and bidi overrides/isolates. Code shown for approval
is never altered that way: `visible` (languages/escapes.py, also the MCP approval form's) turns
each control, invisible or look-alike-space character into a visible escape instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from languages.escapes import (BIDI, EscapeStream, collapse_cr, controls, drop_sequences,
                               has_hidden, visible, visible_spans)

__all__ = ["OutputFilter", "has_hidden", "safe_output", "safe_text", "visible", "visible_spans"]

_CONTROLS = controls(extra=BIDI)
_CONTROLS_KEEP_CR = controls(keep="\t\n\r", extra=BIDI)


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
