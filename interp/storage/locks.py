"""One writer per saved conversation: an advisory lock on a file beside the session file.

The lock (`flock`) is held for as long as the conversation is open in a process and goes
away with the process, however it ends, so a crash never leaves a conversation locked. The
file holds the holder's pid, for the message a second process gets; the holder removes it
when it closes the conversation (a process that locks a file already removed tries again).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


class SessionBusy(Exception):
    """The conversation is open in another process (`pid`, None if it could not be read)."""

    def __init__(self, path: Path, pid: int | None) -> None:
        super().__init__(path, pid)
        self.path, self.pid = path, pid


class SessionLock:
    """The lock of one conversation, held until `release()`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = _acquire(path)

    def release(self) -> None:
        """Remove the lock file and let go of the lock; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # still locked: nobody can take the file being removed
        os.close(fd)


def lock_path(session_file: Path) -> Path:
    """The lock file of a session file: `ID.lock` beside `ID.jsonl`."""
    return session_file.with_suffix(".lock")


def _acquire(path: Path) -> int:
    """A descriptor of `path` holding its exclusive lock; SessionBusy if another process has it."""
    for _ in range(20):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder(fd)
            os.close(fd)
            raise SessionBusy(path, pid) from None
        except OSError:
            os.close(fd)
            raise
        if _same_file(fd, path):  # not removed by its last holder between open and lock
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)
    raise OSError(f"{path} keeps changing")


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None
