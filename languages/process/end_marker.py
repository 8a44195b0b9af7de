"""End-of-output detection: a fresh random marker per run, confirmed by a sync marker.

A driver ends each run by printing ``PREFIX + token + "__"`` and a JSON status line. The
block's own code runs in the same process as the driver, so it can find the run's token
(Python frames, /proc/self/mem) and print that line early. That is why a run's marker is
never trusted on its own: the runner sends a second, *sync* command with another fresh
token right behind the run command, on the driver's command pipe. The driver reads that
command only after the run has really ended, so the run is over when the sync marker
arrives, and the run marker that came last before it carries the real status. An earlier
copy of the run marker was printed by the block: it is dropped from the output and counted
(`MarkerScanner.fakes`), and the output that followed it stays with its block.
"""

from __future__ import annotations

import json
import secrets

from .output_capture import clean_surrogates

PREFIX = "__INTERP_"
_PREFIX = PREFIX.encode()


def new_token() -> str:
    """A random token; the marker a driver prints is PREFIX + token + '__'."""
    return secrets.token_hex(12)


class MarkerScanner:
    """Splits a byte stream into output and the markers that end a run.

    With no sync token the run ends at its own marker (start-up uses a sync token alone).
    With sync tokens (`expect`) it ends at the marker of the last one expected; markers of
    the earlier ones are dropped from the output. Markers of other tokens are output."""

    def __init__(self, token: str | None) -> None:
        self.token = token
        self.syncs: list[str] = []
        self._buf = b""
        self.status: dict | None = None
        self.fakes = 0  # run markers that a later run marker showed to be the block's own
        self.done = False
        self.rest = b""

    @property
    def marker(self) -> bytes:
        """The run's marker bytes (without the status line)."""
        return f"{PREFIX}{self.token}__".encode()

    def expect(self, token: str) -> None:
        """Add a sync token: the run now ends at its marker."""
        self.syncs.append(token)

    def feed(self, data: bytes) -> bytes:
        """Consume bytes and return the part that is certainly output."""
        if self.done:
            self.rest += data
            return b""
        buf, out, pos = self._buf + data, [], 0
        self._buf = b""
        while not self.done:
            at = buf.find(_PREFIX, pos)
            if at < 0:
                keep = _partial_prefix(buf, pos)
                out.append(buf[pos:len(buf) - keep])
                self._buf = buf[len(buf) - keep:]
                break
            out.append(buf[pos:at])
            token, undecided = self._match(buf, at + len(_PREFIX))
            if undecided:
                self._buf = buf[at:]
                break
            if token is None:  # not one of ours: plain output
                out.append(_PREFIX[:1])
                pos = at + 1
                continue
            end = buf.find(b"\n", at)
            if end < 0:
                self._buf = buf[at:]
                break
            self._take(token, buf[at + len(_PREFIX) + len(token) + 2:end])
            pos = end + 1
            if self.done:
                self.rest = buf[pos:]
        return b"".join(out)

    def flush(self) -> bytes:
        """Return bytes held back as a possible marker start (the stream ended)."""
        held, self._buf = self._buf, b""
        return held

    def _known(self) -> list[str]:
        return [t for t in (self.token, *self.syncs) if t]

    def _match(self, buf: bytes, start: int) -> tuple[str | None, bool]:
        """(the known token whose marker starts at `start`, or None; True if more bytes are needed)."""
        rest = buf[start:]
        for token in self._known():
            tail = token.encode() + b"__"
            if rest.startswith(tail):
                return token, False
            if len(rest) < len(tail) and tail.startswith(rest):
                return None, True
        return None, False

    def _take(self, token: str, raw: bytes) -> None:
        if token == self.token:
            if self.status is not None:
                self.fakes += 1
            self.status = _parse_status(raw)
            self.done = not self.syncs
        elif self.syncs and token == self.syncs[-1]:
            self.done = True


def _partial_prefix(buf: bytes, start: int) -> int:
    """Length of the longest suffix of buf[start:] that could begin PREFIX."""
    first = max(start, len(buf) - len(_PREFIX) + 1)
    at = buf.find(b"_", first)
    while at >= 0:
        if _PREFIX.startswith(buf[at:]):
            return len(buf) - at
        at = buf.find(b"_", at + 1)
    return 0


def _parse_status(raw: bytes) -> dict:
    try:
        value = json.loads(raw.decode("utf-8", "replace") or "{}")
    except ValueError:
        return {"status": "ok", "note": "unreadable status line"}
    return _clean(value) if isinstance(value, dict) else {"status": "ok"}


def _clean(value):
    """The status with lone surrogates (from JSON escapes) replaced in every string."""
    if isinstance(value, str):
        return clean_surrogates(value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value
