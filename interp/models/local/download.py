"""Downloading a model file: resumable, checked by sha256, and atomic.

The file is written to `NAME.part` beside the destination; an interrupted download resumes
from there (an HTTP Range request), and only a complete file whose size and sha256 match is
renamed to NAME. So a half-written file is never taken for the model.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

CHUNK = 1 << 20
Progress = Callable[[int, int | None], None]  # (bytes so far, total bytes or None)


class DownloadError(Exception):
    """A download failed; the message says why in one line."""


def part_path(dest: Path) -> Path:
    """Where an unfinished download of `dest` is kept."""
    return dest.with_name(dest.name + ".part")


class _Partial:
    """The `.part` file: its length and the sha256 of what it holds so far."""

    def __init__(self, path: Path, size: int | None) -> None:
        self.path = path
        self.have = path.stat().st_size if path.exists() else 0
        if size is not None and self.have > size:
            self.restart()
        self.digest = hashlib.sha256()
        if self.have:
            with open(path, "rb") as fh:
                while block := fh.read(CHUNK):
                    self.digest.update(block)

    def restart(self) -> None:
        """Forget what the file holds (the server sends the whole file again)."""
        self.path.unlink(missing_ok=True)
        self.have, self.digest = 0, hashlib.sha256()


def download(url: str, dest: Path, *, sha256: str, size: int | None = None,
             progress: Progress | None = None, timeout: float = 30.0) -> Path:
    """Fetch `url` to `dest`, resuming `dest.part` if there is one; returns `dest`.

    `timeout` bounds each connection attempt and each read. A size or hash mismatch deletes
    the partial file and raises DownloadError; an interruption (Ctrl-C included) keeps it."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = _Partial(part_path(dest), size)
    if size is None or part.have < size:
        _fetch(url, part, size, progress, timeout)
    if size is not None and part.have != size:
        got = part.have
        part.restart()
        raise DownloadError(f"the download of {dest.name} has {got} bytes, not {size}; "
                            f"it was deleted, try again")
    if part.digest.hexdigest() != sha256.lower():
        got = part.digest.hexdigest()
        part.restart()
        raise DownloadError(f"{dest.name} did not match its sha256 checksum (got "
                            f"{got[:16]}…); the download was deleted, try again")
    os.replace(part.path, dest)
    return dest


def _fetch(url: str, part: _Partial, size: int | None, progress: Progress | None,
           timeout: float) -> None:
    """Append the rest of `url` to the part file."""
    headers = {"User-Agent": "interp", "Accept-Encoding": "identity"}
    if part.have:
        headers["Range"] = f"bytes={part.have}-"
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                          timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and part.have:  # nothing left to send: the checks below decide
            return
        raise DownloadError(f"{_host(url)} answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DownloadError(f"cannot reach {_host(url)}: {reason}") from None
    with response:
        if part.have and response.status != 206:  # the server ignored the range
            part.restart()
        length = response.headers.get("Content-Length")
        total = part.have + int(length) if length and length.isdigit() else size
        try:
            with open(part.path, "ab") as out:
                while chunk := response.read(CHUNK):
                    out.write(chunk)
                    part.digest.update(chunk)
                    part.have += len(chunk)
                    if progress is not None:
                        progress(part.have, total)
        except (OSError, http.client.HTTPException) as exc:  # a read timeout or a dropped connection
            raise _stopped(url, part, exc) from None
    if total is not None and part.have < total:  # the connection closed early
        raise _stopped(url, part, "the connection closed")


def _stopped(url: str, part: _Partial, why) -> DownloadError:
    return DownloadError(f"the download from {_host(url)} stopped after {part.have} bytes "
                         f"({why}); run it again to resume")


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url
