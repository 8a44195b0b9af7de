"""End-of-output detection with a fresh random marker per run."""

from __future__ import annotations

import json
import secrets

PREFIX = "__INTERP_"


def new_token() -> str:
    """A random token; the marker a driver prints is PREFIX + token + '__'."""
    return secrets.token_hex(12)


class MarkerScanner:
    """Splits a byte stream into output before the marker and the status line after it."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.marker = f"{PREFIX}{token}__".encode()
        self._buf = b""
        self.status: dict | None = None
        self.rest = b""

    @property
    def done(self) -> bool:
        """True once the marker and its status line have been seen."""
        return self.status is not None

    def feed(self, data: bytes) -> bytes:
        """Consume bytes and return the part that is certainly output."""
        if self.done:
            self.rest += data
            return b""
        buf = self._buf + data
        at = buf.find(self.marker)
        if at >= 0:
            end = buf.find(b"\n", at)
            if end < 0:
                self._buf = buf[at:]
                return buf[:at]
            self.status = _parse_status(buf[at + len(self.marker):end])
            self.rest = buf[end + 1:]
            self._buf = b""
            return buf[:at]
        keep = self._partial(buf)
        self._buf = buf[len(buf) - keep:] if keep else b""
        return buf[:len(buf) - keep] if keep else buf

    def flush(self) -> bytes:
        """Return bytes held back as a possible marker start (the stream ended)."""
        held, self._buf = self._buf, b""
        return held

    def _partial(self, buf: bytes) -> int:
        """Length of the longest suffix of buf that could begin the marker."""
        width = len(self.marker) - 1
        start = max(0, len(buf) - width)
        at = buf.find(b"_", start)
        while at >= 0:
            if self.marker.startswith(buf[at:]):
                return len(buf) - at
            at = buf.find(b"_", at + 1)
        return 0


def route(data: bytes, scanner: MarkerScanner, ping: MarkerScanner | None) -> bytes:
    """Pass bytes through a run's marker, then a resync ping's marker; return output bytes."""
    if not data:
        return b""
    if scanner.done:
        if ping is not None:
            ping.feed(data)
        return b""
    out = scanner.feed(data)
    if ping is None:
        return out
    out = ping.feed(out)
    if scanner.done:
        ping.feed(scanner.rest)
        scanner.rest = b""
    return out


def _parse_status(raw: bytes) -> dict:
    try:
        value = json.loads(raw.decode("utf-8", "replace") or "{}")
    except ValueError:
        return {"status": "ok", "note": "unreadable status line"}
    return value if isinstance(value, dict) else {"status": "ok"}
