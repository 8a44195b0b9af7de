"""Reading a file for context within a bound: the AGENTS.md files, attachments, previews of
the files a task names or a block wrote. Only what is used is read, never the whole file, so a
huge (or sparse) file, or a symlink to a log that keeps growing, costs no more than its first
bytes; a FIFO or a device is refused without a wait (opened non-blocking, checked by fstat)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CHUNK = 1024 * 1024


class TooLarge(OSError):
    """The file holds more than the bytes it may be read to."""


@dataclass(frozen=True)
class Head:
    """The first bytes of a file and its size when it was opened."""

    data: bytes
    size: int

    @property
    def whole(self) -> bool:
        """True when `data` is all the file held when it was opened."""
        return len(self.data) >= self.size


def read_head(path: str | os.PathLike, limit: int) -> Head:
    """At most `limit` bytes from the start of a regular file, and its size; OSError when it
    cannot be opened or is not a regular file (a FIFO, a device, a folder)."""
    with _regular(path) as (fd, size):
        return Head(b"".join(_reads(fd, limit, CHUNK)), size)


def read_at_most(path: str | os.PathLike, limit: int) -> bytes:
    """A regular file's bytes when it holds at most `limit` of them; TooLarge when it holds
    more (only `limit` + 1 are read), OSError when it cannot be read."""
    data = read_head(path, limit + 1).data
    if len(data) > limit:
        raise TooLarge(errno.EFBIG, f"larger than {limit:,} bytes", os.fspath(path))
    return data


def chunks(path: str | os.PathLike, limit: int, size: int = CHUNK) -> Iterator[bytes]:
    """The first `limit` bytes of a regular file, in chunks of at most `size`; OSError when it
    cannot be opened or is not a regular file. Reads stop at `limit` however the file grows."""
    with _regular(path) as (fd, _):
        yield from _reads(fd, limit, size)


@contextmanager
def _regular(path: str | os.PathLike) -> Iterator[tuple[int, int]]:
    """(descriptor, size) of a regular file opened for reading, without waiting on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EISDIR if stat.S_ISDIR(info.st_mode) else errno.EINVAL,
                          "not a regular file", os.fspath(path))
        yield fd, info.st_size
    finally:
        os.close(fd)


def _reads(fd: int, limit: int, size: int) -> Iterator[bytes]:
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, size))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk
