"""The standard streams of interp's protocol servers (`interp mcp`, `interp acp`): while one
serves, the protocol moves to private close-on-exec copies of fd 0 and 1, and fd 0 reads the
null device and fd 1 writes to stderr, so nothing stray (a library's print, a child process)
reaches the protocol stream; they are put back afterwards."""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def claimed_fds() -> Iterator[tuple[int, int] | None]:
    """(input, output): the protocol's descriptors while the block runs; None when the
    standard ones cannot be copied (they are then left as they are)."""
    sys.stdout.flush()
    wires = _copies(0, 1)
    if wires is None:
        yield None
        return
    wire_in, wire_out = wires
    try:
        _divert(0, os.open(os.devnull, os.O_RDONLY))
        _divert(1, os.dup(2))
        yield wire_in, wire_out
    finally:
        sys.stdout.flush()
        for fd, wire in ((0, wire_in), (1, wire_out)):
            try:
                os.dup2(wire, fd)
            finally:
                os.close(wire)


def _copies(*fds: int) -> list[int] | None:
    """Close-on-exec copies of the descriptors above the standard three, or None."""
    copies: list[int] = []
    try:
        for fd in fds:
            copies.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3))
    except OSError:
        for copy in copies:
            os.close(copy)
        return None
    return copies


def _divert(fd: int, to: int) -> None:
    try:
        os.dup2(to, fd)
    finally:
        os.close(to)
